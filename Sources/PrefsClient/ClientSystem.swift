#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C calls of the client, in one place.
enum ClientSystem {
    /// The user id of this process.
    static var userID: UInt32 { UInt32(getuid()) }

    /// The process id of this process.
    static var processID: Int32 { getpid() }

    /// An environment variable, or `nil` when unset.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Whether a directory exists.
    static func directoryExists(_ path: String) -> Bool {
        var info = stat()
        var result: Int32
        repeat { result = stat(path, &info) } while result != 0 && errno == EINTR
        return result == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

extension ClientSystem {
    /// A connected Unix stream socket, close-on-exec.
    static func connect(to path: String) throws(PrefsClientError) -> Int32 {
        let bytes = Array(path.utf8)
        var address = sockaddr_un()
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PrefsClientError(.daemonUnavailable, "socket path \(path) is too long for a Unix socket")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw PrefsClientError(.daemonUnavailable, "cannot create a socket: \(errorText(errno))")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while result != 0 && errno == EINTR
        if result != 0 {
            let code = errno
            close(descriptor)
            throw PrefsClientError(.daemonUnavailable, "prefsd does not answer on \(path): \(errorText(code))")
        }
        return descriptor
    }

    /// Writes all of `bytes`.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(PrefsClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                throw PrefsClientError(.connectionLost, "cannot send to prefsd: \(errorText(code))")
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
        while true {
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                throw PrefsClientError(.connectionLost, "cannot wait for prefsd: \(errorText(code))")
            }
            if ready == 0 { throw PrefsClientError(.timedOut, "prefsd did not answer within \(timeout ?? .zero)") }
            break
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ECONNRESET { return [] }
                throw PrefsClientError(.connectionLost, "cannot read from prefsd: \(errorText(code))")
            }
            return Array(buffer[0..<count])
        }
    }

    /// Stops both directions of a socket, waking a thread blocked reading it.
    static func shutdownSocket(_ descriptor: Int32) {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes a descriptor.
    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

extension ClientSystem {
    /// Runs `body` on a new detached thread.
    static func startThread(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let box = Unmanaged<AnyObject>.fromOpaque(argument!).takeRetainedValue()
                (box as! Box).body()
                return nil
            }, box)
        if result == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<AnyObject>.fromOpaque(box).release()
            body()
        }
    }
}
