// SPDX-License-Identifier: Apache-2.0
import BenchmarkProcesses
import Foundation
import PrefsClient
import PrefsPlist
import PrefsWire

#if canImport(Glibc)
    import Glibc
#endif

/// Notification latency across processes: this process sets a key whose value is the monotonic clock when it sent
/// the request; a subscriber in another process (this program with `--subscriber`) notes, for each event, the clock
/// when it arrived minus that value. CLOCK_MONOTONIC is the same clock in every process of the machine.
enum NotificationLatency {
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static let domain = WireDomain("org.preferences.bench.latency")

    /// Writes a line to standard output at once (no buffering between the two processes).
    static func writeLine(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    /// The subscriber's side: prints `ready`, then one latency in nanoseconds per event, until `count` events.
    static func subscriber(socket: String, count: Int) throws {
        let client = try PrefsBlockingClient(socketPath: socket, clientName: "latency subscriber")
        let done = DispatchSemaphore(value: 0)
        let received = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        received.initialize(to: 0)
        let address = UInt(bitPattern: received)
        let subscription = try client.subscribe(WireSubscriptionFilter(.domain(domain), keys: .key("sent"))) { event in
            let arrived = now()
            guard case .changes(let changes, _)? = event else { return }
            for change in changes {
                guard case .integer(let sent)? = change.new, let value = sent.int64Value else { continue }
                writeLine("\(arrived - value)")
                let counter = UnsafeMutablePointer<Int>(bitPattern: address)!
                counter.pointee += 1
                if counter.pointee == count { done.signal() }
            }
        }
        writeLine("ready")
        done.wait()
        subscription.cancel()
    }

    /// The setter's side: starts the subscriber process, sets `count` values at `interval`, returns the latencies.
    static func measure(socket: String, count: Int, interval: Duration) throws -> [Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--subscriber", socket, "\(count)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        var text = ""
        while !text.contains("ready\n") {
            let data = handle.availableData
            guard !data.isEmpty else { throw BenchmarkError("the subscriber exited before it was ready") }
            text += String(decoding: data, as: UTF8.self)
        }
        let client = try PrefsBlockingClient(socketPath: socket, clientName: "latency setter")
        for _ in 0..<count {
            _ = try client.send(.set(domain, key: "sent", value: .integer(PlistInteger(now())), expectedVersion: nil))
            Thread.sleep(
                forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
        }
        text += String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").dropFirst().compactMap { Double($0) }.map { $0 / 1e6 }
    }
}
