// SPDX-License-Identifier: Apache-2.0
import BenchmarkProcesses
import CEpoll
import Foundation
import PrefsClient
import PrefsPlist
import PrefsWire

#if canImport(Glibc)
    import Glibc
#endif

/// Fan-out latency: one `set` to a key that many connections subscribe to, and the time until each subscriber has
/// its event. The subscribers live in a few receiver processes (this program with `--fanout`), each holding a share
/// of the connections and reading them with epoll; for every event they note the monotonic clock on arrival minus
/// the value set (the setter's clock when it sent the request; CLOCK_MONOTONIC is one clock across processes).
enum FanOutLatency {
    static let domain = WireDomain("org.preferences.bench.fanout")

    /// The receiver's side: `connections` subscriptions; prints `ready`, then after `events` events on every
    /// connection, one latency in nanoseconds per line.
    static func receiver(socket: String, connections: Int, events: Int) throws {
        let hello = try WireFrame.encode(WireRequest(id: 0, .hello(WireHello(client: "fan-out receiver"))).dictionary)
        let subscribe = try WireFrame.encode(
            WireRequest(id: 1, .subscribe(WireSubscriptionFilter(.domain(domain), keys: .key("sent")))).dictionary)
        // epoll, as a process holding many connections would use: poll's cost grows with every connection on every
        // wake, and with hundreds per receiver it would measure the receivers rather than the fan-out.
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw BenchmarkError("epoll_create1: \(String(cString: strerror(errno)))") }
        defer { close(epoll) }
        var received: [Int32: Int] = [:]
        for _ in 0..<connections {
            let descriptor = try LoadGenerator.connect(socket)
            try LoadGenerator.writeAll(descriptor, hello + subscribe)
            var counter = LoadGenerator.FrameCounter()
            try counter.read(descriptor, frames: 2)
            received[descriptor] = 0
            guard c_epoll_watch_input(epoll, descriptor) == 0 else {
                throw BenchmarkError("epoll_ctl: \(String(cString: strerror(errno)))")
            }
        }
        NotificationLatency.writeLine("ready")
        // During the run frames are only cut out of the stream and kept with their arrival time; they are decoded
        // after the last one. Decoding as they come would hold up the reads of the other connections of this
        // process, and take the CPU that the daemon and the other receivers need, so the figure would measure the
        // receivers rather than the fan-out.
        var arrivals: [(frame: [UInt8], arrived: Int64)] = []
        arrivals.reserveCapacity(connections * events)
        var pending = [Int32: [UInt8]]()
        var complete = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var ready = [Int32](repeating: 0, count: 256)
        while complete < connections {
            let count = c_epoll_wait_input(epoll, &ready, Int32(ready.count), 30_000)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchmarkError("no event for 30 s (\(complete) connections complete)") }
            for descriptor in ready[0..<Int(count)] {
                let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard read > 0 else { throw BenchmarkError("prefsd closed a subscriber's connection") }
                let arrived = NotificationLatency.now()
                pending[descriptor, default: []].append(contentsOf: buffer[0..<read])
                var bytes = pending[descriptor]!
                var offset = 0
                while let length = LoadGenerator.wholeFrameLength(in: bytes, at: offset) {
                    arrivals.append((Array(bytes[offset..<(offset + length)]), arrived))
                    offset += length
                    // One event per change: each set makes one event on every subscription.
                    received[descriptor]! += 1
                    if received[descriptor]! == events { complete += 1 }
                }
                bytes.removeFirst(offset)
                pending[descriptor] = bytes
            }
        }
        var latencies: [Int64] = []
        latencies.reserveCapacity(arrivals.count)
        var decoder = WireFrameDecoder()
        for (frame, arrived) in arrivals {
            try decoder.append(frame)
            guard let message = try decoder.nextFrame(),
                case .event(let event) = try WireServerMessage(dictionary: message),
                case .change(_, let change, _) = event, case .integer(let sent)? = change.new,
                let value = sent.int64Value
            else { throw BenchmarkError("a subscriber received something other than one change of the key set") }
            latencies.append(arrived - value)
        }
        NotificationLatency.writeLine(latencies.map(String.init).joined(separator: "\n"))
    }

    /// The setter's side: starts `processes` receivers sharing `subscribers` connections, sets `events` values at
    /// `interval` through prefsd, and returns every subscriber's latency of every event, in milliseconds.
    static func measure(
        socket: String, subscribers: Int, processes: Int, events: Int, interval: Duration
    ) throws -> [Double] {
        var client: PrefsBlockingClient?
        return try measure(
            socket: socket, subscribers: subscribers, processes: processes, events: events, interval: interval
        ) { sent in
            if client == nil { client = try PrefsBlockingClient(socketPath: socket, clientName: "fan-out setter") }
            _ = try client?.send(.set(domain, key: "sent", value: .integer(PlistInteger(sent)), expectedVersion: nil))
        }
    }

    /// Starts the receivers against `socket` and, once every one is subscribed, calls `publish` with the clock
    /// `events` times, `interval` apart; returns every subscriber's latency of every event, in milliseconds.
    static func measure(
        socket: String, subscribers: Int, processes: Int, events: Int, interval: Duration,
        publish: (_ sent: Int64) throws -> Void
    ) throws -> [Double] {
        var receivers: [(Process, Pipe)] = []
        for index in 0..<processes {
            let share = subscribers / processes + (index < subscribers % processes ? 1 : 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--fanout", socket, "\(share)", "\(events)"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            receivers.append((process, output))
        }
        var outputs = [String](repeating: "", count: processes)
        for (index, (_, pipe)) in receivers.enumerated() {
            while !outputs[index].contains("ready\n") {
                let data = pipe.fileHandleForReading.availableData
                guard !data.isEmpty else { throw BenchmarkError("a fan-out receiver exited before it was ready") }
                outputs[index] += String(decoding: data, as: UTF8.self)
            }
        }
        for _ in 0..<events {
            try publish(NotificationLatency.now())
            Thread.sleep(
                forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
        }
        var latencies: [Double] = []
        for (index, (process, pipe)) in receivers.enumerated() {
            outputs[index] += String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            latencies += outputs[index].split(separator: "\n").dropFirst().compactMap { Double($0) }.map { $0 / 1e6 }
        }
        return latencies
    }
}
