// SPDX-License-Identifier: Apache-2.0
import BenchmarkProcesses
import Foundation
import PrefsClient
import PrefsPlist
import PrefsWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// Fleet propagation (docs/FLEET.md, "Propagation"): a real three-member etcd cluster on loopback, then 10 and 50
// real prefsd hosts joined to it, each with a subscriber to the managed domain's effective values. For each change
// `defaults fleet write` runs once; the time from its start to each host's event is one sample. In the same run, a
// raw `etcdctl watch` on the managed keys is the floor: the time from the same start to etcd's own watch response.
//
// The next change starts --pause ms (default 100) after every host had the last, an administrator's pace: the hosts
// write their cache files just after their subscribers hear of a change, and with no pause those writes, fifty hosts'
// on this one disk, would meet etcd's commit of the next change there (on real machines each host has its disk).
//
// usage: FleetBenchmarks [--prefsd PATH] [--defaults PATH] [--hosts 10,50] [--changes 100] [--pause 100]
// (run from Benchmarks/ after scripts/build-release.sh; `make bench` does both)

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let prefsd = option("--prefsd") ?? "../.build/release/prefsd"
let defaults = option("--defaults") ?? "../.build/release/defaults"
let hostCounts = (option("--hosts") ?? "10,50").split(separator: ",").compactMap { Int($0) }
let changeCount = Int(option("--changes") ?? "100") ?? 100
let pauseMilliseconds = Int(option("--pause") ?? "100") ?? 100
// Diagnostic: this many more watchers of the managed prefix on etcd's JSON gateway (curl, one stream each), as many
// as the hosts would add, to measure what serving them costs etcd.
let gatewayWatcherCount = Int(option("--gateway-watchers") ?? "0") ?? 0
for (tool, path) in [
    ("prefsd", prefsd), ("defaults", defaults), ("etcd", "/usr/bin/etcd"), ("etcdctl", "/usr/bin/etcdctl"),
]
where !FileManager.default.isExecutableFile(atPath: path) {
    print("FleetBenchmarks: no \(tool) at \(path) (scripts/build-release.sh; apt-get install etcd-server etcd-client)")
    exit(1)
}

let work = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

/// Loopback ports nobody listens on now.
func freePorts(_ count: Int) throws -> [Int] {
    var descriptors: [Int32] = []
    defer { for descriptor in descriptors { close(descriptor) } }
    return try (0..<count).map { _ in
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        descriptors.append(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError("cannot bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

// The cluster.
let ports = try freePorts(6)
let endpoints = ports[0..<3].map { "http://127.0.0.1:\($0)" }
let peers = ports[3..<6].map { "http://127.0.0.1:\($0)" }
let initialCluster = peers.indices.map { "m\($0)=\(peers[peers.startIndex + $0])" }.joined(separator: ",")
var members: [Process] = []
for index in 0..<3 {
    members.append(
        try startBenchmarkProcess(
            "/usr/bin/etcd",
            [
                "--name", "m\(index)", "--data-dir", "\(work)/etcd-m\(index)",
                "--listen-client-urls", endpoints[index], "--advertise-client-urls", endpoints[index],
                "--listen-peer-urls", peers[peers.startIndex + index],
                "--initial-advertise-peer-urls", peers[peers.startIndex + index],
                "--initial-cluster", initialCluster, "--initial-cluster-token", "fleet-bench-\(getpid())",
                "--initial-cluster-state", "new", "--heartbeat-interval", "50", "--election-timeout", "500",
                "--logger", "zap", "--log-level", "error",
            ], environment: [:], output: "\(work)/etcd-m\(index).log"))
}
defer { for member in members { member.terminate() } }
let controlEnvironment = ["ETCDCTL_API": "3", "PATH": "/usr/bin:/bin"]
func etcdctl(_ arguments: [String]) throws -> Int32 {
    try SpawnedCommand(
        "/usr/bin/etcdctl", ["--endpoints", endpoints.joined(separator: ","), "--command-timeout", "2s"] + arguments,
        environment: controlEnvironment
    ).run()
}
var healthy = false
for _ in 0..<300 where !healthy {
    healthy = (try? etcdctl(["put", "/health", "ok"])) == 0
    if !healthy { usleep(100_000) }
}
guard healthy else { throw BenchmarkError("the etcd cluster did not accept a write within 30 s") }

/// When a subscriber saw each value of `Step`.
final class StepArrivals: Sendable {
    private let seen = Mutex<[Int64: ContinuousClock.Instant]>([:])

    func record(_ step: Int64, at instant: ContinuousClock.Instant) { seen.withLock { $0[step] = instant } }
    subscript(step: Int64) -> ContinuousClock.Instant? { seen.withLock { $0[step] } }
}

/// One host: its prefsd and a subscriber to the effective values of `app`.
final class Host: Sendable {
    let directory: String
    let process: Process
    let client: PrefsBlockingClient
    let arrivals: StepArrivals
    let subscription: PrefsBlockingClient.Subscription

    init(index: Int, run: Int, app: String) throws {
        directory = "\(work)/host-\(run)-\(index)"
        for sub in ["prefs", "run"] {
            try FileManager.default.createDirectory(
                atPath: "\(directory)/\(sub)", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        let settings: PlistDictionary = ["FleetEndpoints": .array(endpoints.map(PlistValue.string))]
        try Data(try PlistSerialization.encode(.dictionary(settings), format: .xml)).write(
            to: URL(fileURLWithPath: "\(directory)/prefs/prefsd.plist"))
        let machineID = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
        let socket = "\(directory)/run/socket"
        process = try startBenchmarkProcess(
            prefsd, [],
            environment: [
                "PREFERENCES_HOME": "\(directory)/prefs", "PREFERENCES_SYSTEM_DIR": "\(directory)/system",
                "PREFERENCES_DOMAINS_DIR": "\(directory)/domains", "PREFSD_SOCKET": socket,
                "PREFERENCES_MACHINE_ID": machineID, "HOME": directory,
            ], output: "\(directory)/prefsd.log")
        var connected: PrefsBlockingClient?
        for _ in 0..<1000 where connected == nil {
            connected = try? PrefsBlockingClient(socketPath: socket, clientName: "fleet bench \(index)")
            if connected == nil { usleep(10_000) }
        }
        guard let connected else { throw BenchmarkError("host \(index): prefsd does not answer on \(socket)") }
        client = connected
        let arrivals = StepArrivals()
        self.arrivals = arrivals
        subscription = try client.subscribe(
            WireSubscriptionFilter(.effective(WireSearchList(app: app)), keys: .key("Step"))
        ) { event in
            guard case .changes(let changes, _)? = event else { return }
            let now = ContinuousClock.now
            for change in changes {
                if case .integer(let step)? = change.new, let value = step.int64Value {
                    arrivals.record(value, at: now)
                }
            }
        }
    }

    /// Resident memory in KiB and open sockets, from /proc.
    var resources: (rssKiB: Int, sockets: Int) {
        let pid = process.processIdentifier
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let rss =
            status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let sockets = descriptors.filter {
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "")
                .hasPrefix("socket:")
        }
        return (rss, sockets.count)
    }

    func stop() {
        subscription.cancel()
        process.terminate()
        process.waitUntilExit()
    }
}

/// etcd's own watch, as an administrator's tool sees it: `etcdctl watch --prefix -w json`, one JSON line per
/// watch response, read on a thread of its own.
final class RawWatch: Sendable {
    let process: Process
    let arrivals = Mutex<[ContinuousClock.Instant]>([])

    init(prefix: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/etcdctl")
        process.arguments = [
            "--endpoints", endpoints.joined(separator: ","), "watch", "--prefix", prefix, "-w", "json",
        ]
        process.environment = controlEnvironment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                let now = ContinuousClock.now
                let lines = buffer[0..<count].filter { $0 == UInt8(ascii: "\n") }.count
                self.arrivals.withLock { $0 += Array(repeating: now, count: lines) }
            }
        }
    }
}

/// etcd's metrics page from a member's client port: a plain HTTP/1.0 GET (Foundation's URL loading is in
/// FoundationNetworking, which this program does not need otherwise).
func metrics(port: Int) -> [String: String] {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else { return [:] }
    let request = Array("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == request.count else { return [:] }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        response += buffer[0..<count]
    }
    var values: [String: String] = [:]
    for line in String(decoding: response, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
        let parts = line.split(separator: " ")
        if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
    }
    return values
}

/// The gRPC calls all members have started (`grpc_server_started_total`, every method; the JSON gateway's requests
/// are among them).
func grpcRequests() -> Int {
    ports[0..<3].map { port in
        metrics(port: port).filter { $0.key.hasPrefix("grpc_server_started_total") }.values.compactMap { Int($0) }
            .reduce(0, +)
    }.reduce(0, +)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
func percentile(_ sorted: [Duration], _ fraction: Double) -> Double {
    milliseconds(sorted[max(0, min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))])
}

let adminEnvironment = ["PREFERENCES_FLEET_ENDPOINTS": endpoints.joined(separator: ","), "HOME": work]
print(
    "fleet propagation: 3 etcd members on loopback, \(changeCount) changes per run, each \(pauseMilliseconds) ms after "
        + "the last host had the one before, 2 cores")
for (run, hostCount) in hostCounts.enumerated() {
    let app = "org.preferences.bench.fleet\(run)"
    let hosts = try (0..<hostCount).map { try Host(index: $0, run: run, app: app) }
    defer { for host in hosts { host.stop() } }
    let raw = try RawWatch(prefix: "/preferences/managed/all/forced/\(app)")
    let gatewayWatchers = try (0..<gatewayWatcherCount).map { _ in
        let key = Data("/preferences/managed/".utf8).base64EncodedString()
        let end = Data("/preferences/managed0".utf8).base64EncodedString()
        return try startBenchmarkProcess(
            "/usr/bin/curl",
            [
                "-sN", "-X", "POST", "\(endpoints[0])/v3/watch", "-d",
                #"{"create_request":{"key":"\#(key)","range_end":"\#(end)"}}"#,
            ], environment: ["PATH": "/usr/bin:/bin"], output: "/dev/null")
    }
    defer { for watcher in gatewayWatchers { watcher.terminate() } }
    usleep(500_000)  // the raw watch registered, every host past its first full read
    let rawBefore = raw.arrivals.withLock { $0.count }

    var hostLatencies: [Duration] = []
    var rawLatencies: [Duration] = []
    let requestsBefore = grpcRequests()
    let loopStarted = ContinuousClock.now
    for step in 1...Int64(changeCount) {
        let started = ContinuousClock.now
        let status = try SpawnedCommand(
            defaults, ["fleet", "write", "-forced", app, "Step", "-int", "\(step)"], environment: adminEnvironment
        ).run()
        guard status == 0 else { throw BenchmarkError("defaults fleet write exited with \(status)") }
        let deadline = started + .seconds(10)
        while hosts.contains(where: { host in host.arrivals[step] == nil }) {
            guard ContinuousClock.now < deadline else {
                throw BenchmarkError("step \(step) did not reach every host within 10 s")
            }
            usleep(500)
        }
        for host in hosts { hostLatencies.append(host.arrivals[step]! - started) }
        usleep(UInt32(pauseMilliseconds * 1000))
        if let arrived = raw.arrivals.withLock({
            $0.count >= rawBefore + Int(step) ? $0[rawBefore + Int(step) - 1] : nil
        }) {
            rawLatencies.append(arrived - started)
        }
    }
    let requestRate = Double(grpcRequests() - requestsBefore) / (milliseconds(ContinuousClock.now - loopStarted) / 1000)
    let hostSorted = hostLatencies.sorted()
    let rawSorted = rawLatencies.sorted()
    let resources = hosts.map(\.resources)
    let etcd = metrics(port: ports[0])
    let watchers = etcd["etcd_debugging_mvcc_watcher_total"] ?? "?"
    let streams = etcd["etcd_debugging_mvcc_watch_stream_total"] ?? "?"
    print(
        String(
            format:
                "%d hosts: to every host's subscriber p50 %.1f ms, p99 %.1f ms, max %.1f ms; raw etcdctl watch p50 %.1f ms, p99 %.1f ms (%d samples); p50 ratio %.2fx",
            hostCount, percentile(hostSorted, 0.5), percentile(hostSorted, 0.99), percentile(hostSorted, 1),
            rawSorted.isEmpty ? .nan : percentile(rawSorted, 0.5),
            rawSorted.isEmpty ? .nan : percentile(rawSorted, 0.99),
            rawSorted.count,
            rawSorted.isEmpty ? .nan : percentile(hostSorted, 0.5) / percentile(rawSorted, 0.5)))
    print(
        String(
            format: "%d hosts: prefsd RSS per host %.1f MB (mean), sockets per host %.1f",
            hostCount, Double(resources.map(\.rssKiB).reduce(0, +)) / Double(hostCount) / 1024,
            Double(resources.map(\.sockets).reduce(0, +)) / Double(hostCount))
            + "; etcd member 0: \(watchers) watchers on \(streams) watch streams; etcd, all members: "
            + String(format: "%.0f requests/s", requestRate))
    raw.process.terminate()
}
