import BenchmarkProcesses
import Foundation
import PrefsClient
import PrefsPlist
import PrefsWire

#if canImport(Glibc)
    import Glibc
#endif

/// Fan-out latency: one `set` to a key that many connections subscribe to, and the time until each subscriber has
/// its event. The subscribers live in a few receiver processes (this program with `--fanout`), each holding a share
/// of the connections and reading them with `poll`; for every event they note the monotonic clock on arrival minus
/// the value set (the setter's clock when it sent the request; CLOCK_MONOTONIC is one clock across processes).
enum FanOutLatency {
    static let domain = WireDomain("org.preferences.bench.fanout")

    /// The receiver's side: `connections` subscriptions; prints `ready`, then after `events` events on every
    /// connection, one latency in nanoseconds per line.
    static func receiver(socket: String, connections: Int, events: Int) throws {
        let hello = try WireFrame.encode(WireRequest(id: 0, .hello(WireHello(client: "fan-out receiver"))).dictionary)
        let subscribe = try WireFrame.encode(
            WireRequest(id: 1, .subscribe(WireSubscriptionFilter(.domain(domain), keys: .key("sent")))).dictionary)
        var watched: [pollfd] = []
        var decoders: [Int32: WireFrameDecoder] = [:]
        var received: [Int32: Int] = [:]
        for _ in 0..<connections {
            let descriptor = try LoadGenerator.connect(socket)
            try LoadGenerator.writeAll(descriptor, hello + subscribe)
            var counter = LoadGenerator.FrameCounter()
            try counter.read(descriptor, frames: 2)
            decoders[descriptor] = WireFrameDecoder()
            received[descriptor] = 0
            watched.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        }
        NotificationLatency.writeLine("ready")
        var latencies: [Int64] = []
        latencies.reserveCapacity(connections * events)
        var complete = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while complete < connections {
            let count = poll(&watched, nfds_t(watched.count), 30_000)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchmarkError("no event for 30 s (\(complete) connections complete)") }
            // Every ready connection is read (and its arrival noted) before any frame is decoded, so that decoding
            // one subscriber's event does not delay the next one's arrival.
            var arrivals: [(descriptor: Int32, bytes: [UInt8], arrived: Int64)] = []
            for index in watched.indices where watched[index].revents != 0 {
                let descriptor = watched[index].fd
                let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard read > 0 else { throw BenchmarkError("prefsd closed a subscriber's connection") }
                arrivals.append((descriptor, Array(buffer[0..<read]), NotificationLatency.now()))
            }
            for (descriptor, bytes, arrived) in arrivals {
                try decoders[descriptor]!.append(bytes)
                while let frame = try decoders[descriptor]!.nextFrame() {
                    guard case .event(let event) = try WireServerMessage(dictionary: frame) else { continue }
                    let changes: [WireChange]
                    switch event {
                    case .change(_, let change, _): changes = [change]
                    case .batch(_, let batch, _): changes = batch
                    default: continue
                    }
                    for change in changes {
                        guard case .integer(let sent)? = change.new, let value = sent.int64Value else { continue }
                        latencies.append(arrived - value)
                        received[descriptor]! += 1
                        if received[descriptor]! == events { complete += 1 }
                    }
                }
            }
        }
        NotificationLatency.writeLine(latencies.map(String.init).joined(separator: "\n"))
    }

    /// The setter's side: starts `processes` receivers sharing `subscribers` connections, sets `events` values at
    /// `interval`, and returns every subscriber's latency of every event, in milliseconds.
    static func measure(
        socket: String, subscribers: Int, processes: Int, events: Int, interval: Duration
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
        let client = try PrefsBlockingClient(socketPath: socket, clientName: "fan-out setter")
        for _ in 0..<events {
            _ = try client.send(
                .set(
                    domain, key: "sent", value: .integer(PlistInteger(NotificationLatency.now())), expectedVersion: nil)
            )
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
