// SPDX-License-Identifier: Apache-2.0
import BenchmarkProcesses
import Foundation
import PrefsPlist
import PrefsWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The floor under the fan-out figure: the same receiver processes holding the same 1,000 connections, served by a
/// bare server that answers each connection's `hello` and `subscribe` and then, for every event, writes one
/// ready-made event frame to every connection with `send(2)`, from one thread per core (prefsd runs one event loop
/// per core). No store, no subscription matching, no NIO: what is left is the frame's encoding, the system calls,
/// the wake-ups and the receivers' own work, on the same cores. A fan-out target below this floor's p99 cannot be met
/// on the machine.
enum FanOutFloor {
    /// The descriptors accepted by the accepting thread, handed over when it finishes.
    private final class Accepted: @unchecked Sendable {
        var descriptors: [Int32] = []
        var failure: (any Error)?
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs the receivers against a bare server on a socket in `directory`, `events` events `interval` apart; returns
    /// every subscriber's latency of every event, in milliseconds.
    static func measure(
        directory: String, subscribers: Int, processes: Int, events: Int, interval: Duration
    ) throws -> [Double] {
        // This process holds every connection's server end (the default soft limit is often 1,024 descriptors).
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        let path = directory + "/fan-out-floor.socket"
        unlink(path)
        let listener = try listen(at: path)
        defer {
            close(listener)
            unlink(path)
        }
        let accepted = Accepted()
        let acceptor = Thread {
            do {
                accepted.descriptors = try acceptSubscribers(listener, count: subscribers)
            } catch {
                accepted.failure = error
            }
            accepted.done.signal()
        }
        acceptor.start()
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var sequence: UInt64 = 0
        let latencies = try FanOutLatency.measure(
            socket: path, subscribers: subscribers, processes: processes, events: events, interval: interval
        ) { sent in
            if descriptors.isEmpty {
                // Every receiver said it is ready, so every connection was accepted and answered.
                accepted.done.wait()
                if let failure = accepted.failure { throw failure }
                descriptors = accepted.descriptors
            }
            sequence += 1
            try broadcast(eventFrame(sent: sent, sequence: sequence), to: descriptors)
        }
        if descriptors.isEmpty { accepted.done.wait() }
        return latencies
    }

    /// The event prefsd sends a subscriber of the key when it changes, in wire form.
    private static func eventFrame(sent: Int64, sequence: UInt64) throws -> [UInt8] {
        let change = WireChange(
            domain: FanOutLatency.domain, key: "sent", old: nil, new: .integer(PlistInteger(sent)), sequence: sequence)
        let event = WireEvent.change(subscription: 1, change, origin: WireOrigin(.client, pid: getpid()))
        return try WireFrame.encode(WireServerMessage.event(event).dictionary)
    }

    /// Writes `frame` to every connection, the connections split evenly over one thread per core.
    private static func broadcast(_ frame: [UInt8], to descriptors: [Int32]) throws {
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let failures = Mutex<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            frame.withUnsafeBytes { bytes in
                var index = thread
                while index < descriptors.count {
                    if !sendWhole(bytes, to: descriptors[index]) { failures.withLock { $0 += 1 } }
                    index += threads
                }
            }
        }
        let failed = failures.withLock { $0 }
        if failed > 0 { throw BenchmarkError("fan-out floor: \(failed) connections refused the event") }
    }

    private static func sendWhole(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Accepts `count` connections one after another, reading each one's `hello` and `subscribe` and answering both
    /// (the receivers connect, subscribe and wait for the two answers in turn).
    private static func acceptSubscribers(_ listener: Int32, count: Int) throws -> [Int32] {
        let answers =
            try WireFrame.encode(["id": .integer(0), "result": .dictionary(["protocol": .integer(1)])])
            + WireFrame.encode(["id": .integer(1), "result": .dictionary(["subscription": .integer(1)])])
        var descriptors: [Int32] = []
        while descriptors.count < count {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                if errno == EINTR { continue }
                throw BenchmarkError("fan-out floor: accept: \(String(cString: strerror(errno)))")
            }
            descriptors.append(descriptor)
            var counter = LoadGenerator.FrameCounter()
            try counter.read(descriptor, frames: 2)
            try LoadGenerator.writeAll(descriptor, answers)
        }
        return descriptors
    }

    private static func listen(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            throw BenchmarkError("fan-out floor: socket: \(String(cString: strerror(errno)))")
        }
        let bound = LoadGenerator.withSocketAddress(path) { bind(descriptor, $0, $1) }
        guard bound == 0, Glibc.listen(descriptor, 1024) == 0 else {
            close(descriptor)
            throw BenchmarkError("fan-out floor: bind/listen \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}
