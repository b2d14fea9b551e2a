// SPDX-License-Identifier: Apache-2.0
import BenchmarkProcesses
import Foundation
import PrefsPlist
import PrefsWire

#if canImport(Glibc)
    import Glibc
#endif

/// Requests per second against a Unix-socket server: `connections` clients, each keeping `depth` requests in
/// flight, for `duration`. Like redis-benchmark, one thread drives every connection with `poll`: it sends a batch of
/// `depth` pre-encoded requests, counts replies by their length prefix alone, and sends the next batch when the
/// whole batch is answered.
enum LoadGenerator {
    struct Outcome {
        var requests: Int
        var seconds: Double
        var perSecond: Double { Double(requests) / seconds }
    }

    /// Runs the load; `frame` is one whole request (its reply is one frame), `hello` is sent first on each connection.
    static func run(
        socket path: String, connections: Int, depth: Int, duration: Double, hello: [UInt8], frame: [UInt8]
    ) throws -> Outcome {
        let descriptors = try (0..<connections).map { _ in try connect(path) }
        defer { for descriptor in descriptors { close(descriptor) } }
        var counters = [FrameCounter](repeating: FrameCounter(), count: connections)
        for (index, descriptor) in descriptors.enumerated() {
            try writeAll(descriptor, hello)
            try counters[index].read(descriptor, frames: 1)
        }
        let batch = Array([[UInt8]](repeating: frame, count: depth).joined())
        var outstanding = [Int](repeating: depth, count: connections)
        var pollers = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(duration * 1e9)
        var completed = 0
        for descriptor in descriptors { try writeAll(descriptor, batch) }
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let ready = poll(&pollers, nfds_t(pollers.count), 100)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw BenchmarkError("poll: \(String(cString: strerror(errno)))") }
            for index in pollers.indices where pollers[index].revents != 0 {
                let answered = try counters[index].readAvailable(descriptors[index])
                outstanding[index] -= answered
                completed += answered
                if outstanding[index] == 0 {
                    outstanding[index] = depth
                    try writeAll(descriptors[index], batch)
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Outcome(requests: completed, seconds: seconds)
    }

    /// The length of the frame (length prefix and payload) at `offset` of `bytes`, once it has arrived whole.
    static func wholeFrameLength(in bytes: [UInt8], at offset: Int) -> Int? {
        guard bytes.count - offset >= 4 else { return nil }
        let length =
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
            | Int(bytes[offset + 3])
        return bytes.count - offset >= 4 + length ? 4 + length : nil
    }

    /// Counts whole frames in a stream without decoding them.
    struct FrameCounter {
        private var buffer = [UInt8](repeating: 0, count: 1 << 16)
        private var pending: [UInt8] = []

        /// Reads what one `recv` returns and counts the whole frames it completes.
        mutating func readAvailable(_ descriptor: Int32) throws -> Int {
            var count = recv(descriptor, &buffer, buffer.count, 0)
            while count < 0, errno == EINTR { count = recv(descriptor, &buffer, buffer.count, 0) }
            guard count > 0 else { throw BenchmarkError("server closed the connection") }
            pending.append(contentsOf: buffer[0..<count])
            var counted = 0
            var offset = 0
            while let length = LoadGenerator.wholeFrameLength(in: pending, at: offset) {
                offset += length
                counted += 1
            }
            pending.removeFirst(offset)
            return counted
        }

        mutating func read(_ descriptor: Int32, frames wanted: Int) throws {
            var counted = 0
            while counted < wanted {
                while let length = LoadGenerator.wholeFrameLength(in: pending, at: 0) {
                    pending.removeFirst(length)
                    counted += 1
                }
                if counted >= wanted { break }
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw BenchmarkError("server closed the connection") }
                pending.append(contentsOf: buffer[0..<count])
            }
        }
    }

    /// Calls `body` with the address of the Unix socket at `path` (`connect`, `bind`).
    static func withSocketAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = withSocketAddress(path) { Glibc.connect(descriptor, $0, $1) }
        guard result == 0 else { throw BenchmarkError("connect \(path): \(String(cString: strerror(errno)))") }
        return descriptor
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw BenchmarkError("send: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
