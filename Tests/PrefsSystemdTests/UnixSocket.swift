// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A Unix socket the tests own: the datagram socket that plays the service manager's `NOTIFY_SOCKET`, or the
/// client end of a stream connection to an activated fixture.
final class UnixSocket {
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// A datagram socket bound at `path`, as systemd binds its notification socket.
    static func boundDatagram(at path: String) throws -> UnixSocket {
        let socket = UnixSocket(descriptor: try check(Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0), "socket"))
        let result = try withAddress(path) { bind(socket.descriptor, $0, $1) }
        _ = try check(result, "bind \(path)")
        return socket
    }

    /// A datagram socket that is not bound and not connected.
    static func unboundDatagram() throws -> UnixSocket {
        UnixSocket(descriptor: try check(Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0), "socket"))
    }

    /// A stream socket connected to `path`.
    static func connectedStream(to path: String) throws -> UnixSocket {
        let socket = UnixSocket(descriptor: try check(Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0), "socket"))
        let result = try withAddress(path) { connect(socket.descriptor, $0, $1) }
        _ = try check(result, "connect \(path)")
        return socket
    }

    /// A stream socket bound at `path` but not listening.
    static func boundStream(at path: String) throws -> UnixSocket {
        let socket = UnixSocket(descriptor: try check(Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0), "socket"))
        let result = try withAddress(path) { bind(socket.descriptor, $0, $1) }
        _ = try check(result, "bind \(path)")
        return socket
    }

    /// A stream socket bound at `path` and listening.
    static func listeningStream(at path: String) throws -> UnixSocket {
        let socket = try boundStream(at: path)
        _ = try check(listen(socket.descriptor, 4), "listen")
        return socket
    }

    /// The next datagram as text, or `nil` when none arrives within `timeout`.
    func receive(timeout: Duration) throws -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, Self.milliseconds(timeout)) } while ready < 0 && errno == EINTR
        _ = try Self.check(ready, "poll")
        guard ready == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        _ = try Self.check(Int32(count), "recv")
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Writes all of `text`.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            _ = try Self.check(Int32(written), "write")
            offset += written
        }
    }

    /// Sends one datagram to the socket bound at `path`.
    func send(datagram: String, to path: String) throws {
        let bytes = Array(datagram.utf8)
        let sent = try Self.withAddress(path) { address, length in
            Int32(bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, 0, address, length) })
        }
        try Self.check(sent, "sendto \(path)")
    }

    /// Reads one line (without its newline), waiting at most `timeout` for each byte.
    func readLine(timeout: Duration) throws -> String? {
        var line: [UInt8] = []
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard try Self.check(poll(&poller, 1, Self.milliseconds(timeout)), "poll") == 1 else { return nil }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            _ = try Self.check(Int32(count), "read")
            if count == 0 || byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    private static func withAddress(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SocketError(message: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    @discardableResult
    private static func check(_ result: Int32, _ what: String) throws -> Int32 {
        if result < 0 { throw SocketError(message: "\(what): \(String(cString: strerror(errno)))") }
        return result
    }
}

/// A socket call in a test failed.
struct SocketError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
