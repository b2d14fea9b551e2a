// SPDX-License-Identifier: Apache-2.0
import Foundation
public import PrefsPlist
public import PrefsWire

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking client connection for tests: raw bytes, whole frames, decoded messages, with timeouts.
public final class WireTestConnection {
    /// How long a read waits for an expected message by default. Generous on purpose: on a machine loaded by
    /// parallel tests a reply can take seconds, and a passing test never waits for the whole of it.
    public static let defaultTimeout: Duration = .seconds(30)

    /// The connected socket.
    public let descriptor: Int32
    private var decoder = WireFrameDecoder()
    private var nextID: UInt64 = 1

    /// Connects to the Unix socket at `path`.
    public init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            // No close here: every stored property is set, so deinit runs when init throws and closes the
            // descriptor. Closing it twice could close another connection's reused descriptor number.
            throw TestFailure("connect \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Sets the socket's receive buffer, to make a reader slow sooner.
    public func setReceiveBuffer(_ bytes: Int32) {
        var value = bytes
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes raw bytes.
    public func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw TestFailure("send: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Closes the sending side (a half-close).
    public func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Sends a message dictionary as one frame.
    public func send(_ message: PlistDictionary) throws {
        try sendRaw(try WireFrame.encode(message))
    }

    /// Sends a request with the next id; returns the id.
    @discardableResult
    public func send(_ operation: WireOperation) throws -> UInt64 {
        let id = nextID
        nextID += 1
        try send(WireRequest(id: id, operation).dictionary)
        return id
    }

    /// The next message, or `nil` when the server closed the connection; fails after `timeout`.
    public func receive(timeout: Duration = WireTestConnection.defaultTimeout) throws -> PlistDictionary? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let message = try decoder.nextFrame() { return message }
            let remaining = deadline - .now
            guard remaining > .zero else { throw TestFailure("no message within \(timeout)") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw TestFailure("poll: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return nil }
                throw TestFailure("recv: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return nil }
            try decoder.append(Array(buffer[0..<count]))
        }
    }

    /// Every message until the server ends the stream, and how it ended: `false` for an orderly end of stream,
    /// `true` for a reset (`ECONNRESET`, which can make a peer lose what it had not read yet).
    public func receiveUntilEnd(
        timeout: Duration = WireTestConnection.defaultTimeout
    ) throws -> (messages: [PlistDictionary], reset: Bool) {
        var messages: [PlistDictionary] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            while let message = try decoder.nextFrame() { messages.append(message) }
            let remaining = deadline - .now
            guard remaining > .zero else { throw TestFailure("the stream did not end within \(timeout)") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw TestFailure("poll: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return (messages, true) }
                throw TestFailure("recv: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return (messages, false) }
            try decoder.append(Array(buffer[0..<count]))
        }
    }

    /// The next message as a server message.
    public func receiveMessage(timeout: Duration = WireTestConnection.defaultTimeout) throws -> WireServerMessage {
        guard let dictionary = try receive(timeout: timeout) else {
            throw TestFailure("the server closed the connection")
        }
        return try WireServerMessage(dictionary: dictionary)
    }

    /// The next reply; fails if an event comes first.
    public func receiveReply(timeout: Duration = WireTestConnection.defaultTimeout) throws -> WireReply {
        let message = try receiveMessage(timeout: timeout)
        guard case .reply(let reply) = message else { throw TestFailure("expected a reply, got \(message)") }
        return reply
    }

    /// Sends a request and returns its reply (no subscriptions may be active).
    public func call(_ operation: WireOperation) throws -> Result<WireResult, WireError> {
        let id = try send(operation)
        let reply = try receiveReply()
        guard reply.id == id else { throw TestFailure("reply \(reply.id) for request \(id)") }
        return reply.outcome
    }

    /// Says hello.
    public func hello() throws {
        guard case .success(.hello) = try call(.hello(WireHello(client: "tests"))) else {
            throw TestFailure("hello failed")
        }
    }
}

/// A failure of the test harness itself (not of the code under test).
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
