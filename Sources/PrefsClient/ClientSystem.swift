// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C calls only the client makes (a Unix socket: connect, send, poll and receive, shut down); the environment,
/// threads and errno texts are `PrefsPOSIX`'s.
enum ClientSystem {
    /// A connected Unix stream socket, close-on-exec.
    /// - Parameters:
    ///   - path: The socket.
    ///   - timeout: How long to wait for a daemon whose queue of connections is full (a stopped daemon's fills up);
    ///     `nil` waits for ever.
    /// - Throws: ``PrefsClientError`` `daemonUnavailable`; after the timeout, with a `timedOut` cause.
    static func connect(to path: String, timeout: Duration?) throws(PrefsClientError) -> Int32 {
        let bytes = Array(path.utf8)
        var address = sockaddr_un()
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PrefsClientError(.daemonUnavailable, "socket path \(path) is too long for a Unix socket")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw PrefsClientError(.daemonUnavailable, "cannot create a socket: \(POSIX.errorText(errno))")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // A Unix socket's connect waits while the listener's queue is full for as long as the send timeout says.
        if let timeout { setSendTimeout(descriptor, timeout) }
        let (result, code) = POSIX.retrying {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        if result != 0 {
            POSIX.closeDescriptor(descriptor)
            if code == EAGAIN, let timeout {
                throw PrefsClientError(
                    .daemonUnavailable, "prefsd on \(path) did not accept the connection within \(timeout.seconds) s",
                    cause: PrefsClientError(.timedOut, "its queue of connections stayed full"))
            }
            throw PrefsClientError(.daemonUnavailable, "prefsd does not answer on \(path): \(POSIX.errorText(code))")
        }
        if timeout != nil { setSendTimeout(descriptor, .zero) }
        return descriptor
    }

    /// Sets `SO_SNDTIMEO`; zero waits for ever.
    private static func setSendTimeout(_ descriptor: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(PrefsClientError) {
        var offset = 0
        while offset < bytes.count {
            let (written, code) = bytes[offset...].withUnsafeBytes { raw in
                POSIX.retrying { Glibc.send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
            if written < 0 {
                throw PrefsClientError(.connectionLost, "cannot send to prefsd: \(POSIX.errorText(code))")
            }
            offset += written
        }
    }

    /// Reads what is available, waiting at most `timeout` (for ever when `nil`); an empty result is end of stream.
    static func readSome(_ descriptor: Int32, timeout: Duration?) throws(PrefsClientError) -> [UInt8] {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds: Int32 =
            timeout.map {
                Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)
            }
            ?? -1
        let (ready, pollError) = POSIX.retrying { poll(&poller, 1, milliseconds) }
        if ready < 0 {
            throw PrefsClientError(.connectionLost, "cannot wait for prefsd: \(POSIX.errorText(pollError))")
        }
        if ready == 0 { throw PrefsClientError(.timedOut, "prefsd did not answer within \(timeout ?? .zero)") }
        // Received straight into the array, neither zeroed first nor copied after.
        var (count, code) = (0, Int32(0))
        let bytes = [UInt8](unsafeUninitializedCapacity: 65536) { buffer, initialized in
            (count, code) = POSIX.retrying { recv(descriptor, buffer.baseAddress, buffer.count, 0) }
            initialized = max(count, 0)
        }
        if count < 0 {
            if code == ECONNRESET { return [] }
            throw PrefsClientError(.connectionLost, "cannot read from prefsd: \(POSIX.errorText(code))")
        }
        return bytes
    }

    /// The process at the other end of a connected Unix socket (`SO_PEERCRED`), if it is stopped (`SIGSTOP`, a
    /// debugger) or gone, which is what tells a daemon that cannot answer from a busy one.
    /// - Returns: The peer's pid when it is stopped, traced, a zombie or gone; `nil` when it runs (or is not visible:
    ///   another pid namespace).
    static func stoppedPeer(_ descriptor: Int32) -> Int32? {
        guard let pid = peerProcessID(descriptor) else { return nil }
        guard let bytes = try? POSIX.readFile("/proc/\(pid)/stat", maxBytes: 4096) else { return pid }
        // `pid (comm) S …`: the state is the first field after the last `)`.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")),
            let state = bytes[(close + 1)...].first(where: { $0 != UInt8(ascii: " ") })
        else { return nil }
        switch state {
        case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "Z"), UInt8(ascii: "X"): return pid
        default: return nil
        }
    }

    /// The pid of the process at the other end of a connected Unix socket (`SO_PEERCRED`), or `nil` when it is not
    /// visible (another pid namespace).
    static func peerProcessID(_ descriptor: Int32) -> Int32? {
        guard let credentials = try? POSIX.peerCredentials(of: descriptor), credentials.processID > 0 else {
            return nil
        }
        return credentials.processID
    }

    /// Stops both directions of a socket, waking a thread blocked reading it.
    static func shutdownSocket(_ descriptor: Int32) {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes a descriptor.
    static func closeDescriptor(_ descriptor: Int32) {
        POSIX.closeDescriptor(descriptor)
    }

    /// Runs `body` on a new detached thread, or on this one when no thread can be started.
    static func startThread(_ body: @escaping @Sendable () -> Void) {
        do {
            try POSIX.startThread(body)
        } catch {
            body()
        }
    }
}

extension Duration {
    /// The duration in seconds, for messages: `1`, `0.5`.
    var seconds: String {
        let (seconds, attoseconds) = components
        guard attoseconds != 0 else { return String(seconds) }
        return String(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
