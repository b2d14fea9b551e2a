// SPDX-License-Identifier: Apache-2.0
import BenchmarkProcesses
import Foundation
import PrefsPlist
import PrefsWire

#if canImport(Glibc)
    import Glibc
#endif

// The daemon's benchmarks, with redis-benchmark and dconf as references in the same run (docs/DAEMON.md).
//
// usage: DaemonBenchmarks [--prefsd PATH] [--defaults PATH] [--seconds N] [--rounds N]
// (run from Benchmarks/ after `swift build -c release` at the top level; `--subscriber` is internal)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--subscriber", arguments.count == 3, let count = Int(arguments[2]) {
    try NotificationLatency.subscriber(socket: arguments[1], count: count)
    exit(0)
}

if arguments.first == "--fanout", arguments.count == 4, let connections = Int(arguments[2]),
    let events = Int(arguments[3])
{
    try FanOutLatency.receiver(socket: arguments[1], connections: connections, events: events)
    exit(0)
}

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
// `--attach SOCKET DEPTH SECONDS [get|set]`: only the get (or set) load, against a daemon already running (for
// profiling it).
if arguments.first == "--attach", arguments.count >= 4, let depth = Int(arguments[2]), let time = Double(arguments[3]) {
    let domain = WireDomain("org.preferences.bench")
    let hello = try WireFrame.encode(WireRequest(id: 0, .hello(WireHello(client: "DaemonBenchmarks"))).dictionary)
    let isSet = arguments.count > 4 && arguments[4] == "set"
    let request: WireRequest =
        isSet
        ? WireRequest(id: 3, .set(domain, key: "key", value: "value", expectedVersion: nil))
        : WireRequest(id: 2, .get(domain, key: "key"))
    let outcome = try LoadGenerator.run(
        socket: arguments[1], connections: 50, depth: depth, duration: time, hello: hello,
        frame: try WireFrame.encode(request.dictionary))
    print(
        String(
            format: "%@, 50 clients, depth %d: %.0f requests per second", isSet ? "set" : "get", depth,
            outcome.perSecond))
    exit(0)
}
let prefsd = option("--prefsd") ?? "../.build/release/prefsd"
// The defaults users get, from the release build (scripts/build-release.sh; `make bench` runs it).
let defaults = option("--defaults") ?? "../.build/release/defaults"
let seconds = Double(option("--seconds") ?? "3") ?? 3
guard FileManager.default.isExecutableFile(atPath: prefsd) else {
    print("DaemonBenchmarks: no prefsd at \(prefsd); build it with `swift build -c release` at the top level")
    exit(1)
}

let work = FileManager.default.temporaryDirectory.appendingPathComponent("prefsd-bench-\(getpid())").path
try FileManager.default.createDirectory(
    atPath: work + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
defer { try? FileManager.default.removeItem(atPath: work) }
let socketPath = work + "/run/socket"
let environment: [String: String] = {
    var environment = ProcessInfo.processInfo.environment
    environment["PREFERENCES_HOME"] = work + "/prefs"
    environment["PREFERENCES_SYSTEM_DIR"] = work + "/system"
    environment["PREFERENCES_DOMAINS_DIR"] = work + "/domains"
    environment["PREFSD_SOCKET"] = socketPath
    environment["HOME"] = work
    environment["XDG_CONFIG_HOME"] = work + "/config"
    environment["XDG_RUNTIME_DIR"] = work + "/run"
    for name in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC"] { environment[name] = nil }
    return environment
}()

nonisolated(unsafe) let processEnvironment = environment

func start(_ path: String, _ arguments: [String], output: String? = nil) throws -> Process {
    try startBenchmarkProcess(path, arguments, environment: processEnvironment, output: output)
}

func waitForSocket(_ path: String) throws {
    // Up to 60 s: a daemon run under valgrind (for instruction counts) takes seconds to start.
    for _ in 0..<6000 {
        if let descriptor = try? LoadGenerator.connect(path) {
            close(descriptor)
            return
        }
        usleep(10_000)
    }
    throw BenchmarkError("nothing answers on \(path)")
}

func run(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = processEnvironment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// Median wall time of `count` runs of a command (started with `posix_spawn`, output to /dev/null), in
/// milliseconds; Foundation's `Process` would add more than the commands themselves take.
func medianMilliseconds(_ path: String, _ arguments: [String], count: Int) throws -> Double {
    let command = SpawnedCommand(path, arguments, environment: processEnvironment)
    var times: [Double] = []
    for run in 0..<(count + 10) {
        let start = DispatchTime.now().uptimeNanoseconds
        try command.run()
        // The first runs warm the page cache.
        if run >= 10 { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
    }
    return percentile(times, 0.5)
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
}

func which(_ name: String) -> String? {
    for directory in (processEnvironment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

// MARK: - prefsd

// Room for the fan-out measurement's 1,000 subscribers (the default table holds 256 connections).
try FileManager.default.createDirectory(atPath: work + "/prefs", withIntermediateDirectories: true)
try Data(try PlistSerialization.encode(.dictionary(["MaxConnections": 1100]), format: .xml))
    .write(to: URL(fileURLWithPath: work + "/prefs/prefsd.plist"))
let daemon = try start(prefsd, [], output: work + "/prefsd.log")
try waitForSocket(socketPath)
let domain = WireDomain("org.preferences.bench")
let hello = try WireFrame.encode(WireRequest(id: 0, .hello(WireHello(client: "DaemonBenchmarks"))).dictionary)
let setup = try LoadGenerator.connect(socketPath)
try LoadGenerator.writeAll(setup, hello)
var counter = LoadGenerator.FrameCounter()
try counter.read(setup, frames: 1)
try LoadGenerator.writeAll(
    setup,
    try WireFrame.encode(WireRequest(id: 1, .set(domain, key: "key", value: "value", expectedVersion: nil)).dictionary))
try counter.read(setup, frames: 1)
close(setup)

// `--fanout-only [--subscribers N] [--events N]`: the fan-out measurement alone, repeated `--seconds` times (for
// profiling prefsd while it runs).
if arguments.contains("--fanout-only") {
    let subscribers = Int(option("--subscribers") ?? "1000") ?? 1000
    let events = Int(option("--events") ?? "100") ?? 100
    for _ in 0..<Int(seconds) {
        let fanOut = try FanOutLatency.measure(
            socket: socketPath, subscribers: subscribers, processes: 4, events: events, interval: .milliseconds(20))
        print(
            String(
                format: "fan-out, one set → %d subscribers: p50 %.3f ms, p99 %.3f ms, max %.3f ms", subscribers,
                percentile(fanOut, 0.5), percentile(fanOut, 0.99), fanOut.max() ?? 0))
        let floor = try FanOutFloor.measure(
            directory: work, subscribers: subscribers, processes: 4, events: events, interval: .milliseconds(20))
        print(
            String(
                format: "fan-out floor, bare send(2) → %d subscribers: p50 %.3f ms, p99 %.3f ms, max %.3f ms",
                subscribers, percentile(floor, 0.5), percentile(floor, 0.99), floor.max() ?? 0))
    }
    daemon.terminate()
    daemon.waitUntilExit()
    exit(0)
}

let get = try WireFrame.encode(WireRequest(id: 2, .get(domain, key: "key")).dictionary)
let set = try WireFrame.encode(
    WireRequest(id: 3, .set(domain, key: "key", value: "value", expectedVersion: nil)).dictionary)

// Redis, when installed, runs beside prefsd for the whole measurement: each row alternates the two, five rounds, so
// that both see the same machine (on a shared machine the load moves from minute to minute, and the ratio with it).
let redisServer = which("redis-server")
let redisBenchmark = which("redis-benchmark")
let redisSocket = work + "/redis.sock"
var redis: Process?
if let redisServer, redisBenchmark != nil {
    redis = try start(redisServer, ["--port", "0", "--unixsocket", redisSocket, "--save", "", "--appendonly", "no"])
    try waitForSocket(redisSocket)
}

/// One redis-benchmark run of `test` at `depth` for about as many requests as prefsd answered in `seconds`.
func redisPerSecond(test: String, depth: Int, prefsdPerSecond: Double, running: Bool) throws -> Double? {
    guard let redisBenchmark, running else { return nil }
    // Redis answers several times faster at depth 16: more requests keep its run about as long as prefsd's.
    let requests = Int(prefsdPerSecond * seconds) * (depth > 1 ? 3 : 1)
    let output = try run(
        redisBenchmark,
        ["-s", redisSocket, "-c", "50", "-n", "\(max(100_000, requests))", "-P", "\(depth)", "-t", test, "-q"])
    // "GET: 123456.79 requests per second, p50=0.199 msec"
    guard let range = output.range(of: #"[0-9.]+ requests per second"#, options: .regularExpression) else {
        return nil
    }
    return Double(output[range].split(separator: " ")[0])
}

struct Row {
    var name: String
    var prefsd: [Double] = []
    var redis: [Double] = []
    var ratios: [Double] = []
}
let rounds = Int(option("--rounds") ?? "5") ?? 5
var rows: [Row] = []
for (name, frame) in [("get", get), ("set", set)] {
    for depth in [1, 16] {
        var row = Row(name: "\(name), 50 clients, depth \(depth)")
        for _ in 0..<rounds {
            let outcome = try LoadGenerator.run(
                socket: socketPath, connections: 50, depth: depth, duration: seconds, hello: hello, frame: frame)
            row.prefsd.append(outcome.perSecond)
            if let redisRate = try redisPerSecond(
                test: name, depth: depth, prefsdPerSecond: outcome.perSecond, running: redis != nil)
            {
                row.redis.append(redisRate)
                row.ratios.append(outcome.perSecond / redisRate)
            }
        }
        rows.append(row)
    }
}
redis?.terminate()
redis?.waitUntilExit()

let latencies = try NotificationLatency.measure(socket: socketPath, count: 2000, interval: .microseconds(500))
let fanOut = try FanOutLatency.measure(
    socket: socketPath, subscribers: 1000, processes: 4, events: 100, interval: .milliseconds(20))
// The floor under it: the same receivers and connections served by a bare server (FanOutFloor.swift), while prefsd
// sits idle.
let fanOutFloor = try FanOutFloor.measure(
    directory: work, subscribers: 1000, processes: 4, events: 100, interval: .milliseconds(20))

// defaults read through the daemon (the value set above), against dconf read: with hyperfine when it is installed
// (as Benchmarks/cli-defaults.sh measures), else with posix_spawn here; medians.
var defaultsRead: Double?
var dconfRead: Double?
var readTool = "posix_spawn, median of 300"
if FileManager.default.isExecutableFile(atPath: defaults) {
    let dconf = which("dconf")
    if let hyperfine = which("hyperfine"), let dconf {
        let json = work + "/hyperfine.json"
        _ = try run(
            hyperfine,
            [
                "-N", "--warmup", "30", "--runs", "300", "--export-json", json,
                "\(defaults) read org.preferences.bench key", "\(dconf) read /org/preferences/bench/key",
            ])
        let data = try Data(contentsOf: URL(fileURLWithPath: json))
        if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let results = object["results"] as? [[String: Any]], results.count == 2
        {
            defaultsRead = (results[0]["median"] as? Double).map { $0 * 1000 }
            dconfRead = (results[1]["median"] as? Double).map { $0 * 1000 }
            readTool = "hyperfine -N, median of 300"
        }
    }
    if defaultsRead == nil {
        defaultsRead = try medianMilliseconds(defaults, ["read", "org.preferences.bench", "key"], count: 300)
        if let dconf { dconfRead = try medianMilliseconds(dconf, ["read", "/org/preferences/bench/key"], count: 300) }
    }
}
daemon.terminate()
daemon.waitUntilExit()

// MARK: - report

print(
    "| load (Unix socket; \(rounds) alternating rounds of \(Int(seconds)) s) | prefsd req/s, median | redis req/s, "
        + "median | prefsd / redis, median of the rounds (range) |")
print("|---|---|---|---|")
for row in rows {
    let redisMedian = row.redis.isEmpty ? "–" : String(format: "%.0f", percentile(row.redis, 0.5))
    let ratio =
        row.ratios.isEmpty
        ? "–"
        : String(
            format: "%.2f (%.2f–%.2f)", percentile(row.ratios, 0.5), row.ratios.min() ?? 0, row.ratios.max() ?? 0)
    print("| \(row.name) | \(String(format: "%.0f", percentile(row.prefsd, 0.5))) | \(redisMedian) | \(ratio) |")
}
print("")
print(
    String(
        format: "notification latency, set in one process → event in another (%d events): p50 %.3f ms, p99 %.3f ms",
        latencies.count, percentile(latencies, 0.5), percentile(latencies, 0.99)))
print(
    String(
        format: "fan-out, one set → 1,000 subscribers (4 processes, %d events each): p50 %.3f ms, p99 %.3f ms, "
            + "max %.3f ms",
        fanOut.count / 1000, percentile(fanOut, 0.5), percentile(fanOut, 0.99), fanOut.max() ?? 0))
print(
    String(
        format: "fan-out floor, the same receivers served by a bare send(2) of one frame to each connection from one "
            + "thread per core (%d events each): p50 %.3f ms, p99 %.3f ms, max %.3f ms",
        fanOutFloor.count / 1000, percentile(fanOutFloor, 0.5), percentile(fanOutFloor, 0.99),
        fanOutFloor.max() ?? 0))
if let defaultsRead {
    print(
        "defaults read through prefsd (\(defaults)): \(String(format: "%.2f", defaultsRead)) ms (\(readTool))"
    )
}
if let dconfRead {
    print("dconf read: \(String(format: "%.2f", dconfRead)) ms (\(readTool))")
}
