import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every C call of the daemon, in one place: `EINTR` is retried and `errno` is read at once, right after the call
/// that set it.
enum DaemonSystem {
    typealias SystemCallError = PrefsDaemonError.SystemCallError

    /// The text of an `errno` value.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The daemon's own user id.
    static var userID: UInt32 { UInt32(getuid()) }

    /// The daemon's process id.
    static var processID: Int32 { getpid() }

    /// An environment variable, or `nil` when unset.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets the file-creation mask and returns the previous one.
    @discardableResult
    static func setFileCreationMask(_ mask: UInt32) -> UInt32 {
        UInt32(umask(mode_t(mask)))
    }

    /// What `lstat` says about a path.
    struct PathStatus: Sendable, Hashable {
        enum Kind: Sendable, Hashable { case directory, socket, symbolicLink, other }
        var kind: Kind
        var ownerID: UInt32
        var permissions: UInt32
    }

    /// `lstat` of a path, or `nil` when nothing is there.
    static func status(of path: String) throws(SystemCallError) -> PathStatus? {
        var info = stat()
        while lstat(path, &info) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { return nil }
            throw SystemCallError(call: "lstat \(path)", errno: code)
        }
        let kind: PathStatus.Kind
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFSOCK: kind = .socket
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        return PathStatus(kind: kind, ownerID: UInt32(info.st_uid), permissions: UInt32(info.st_mode & 0o7777))
    }

    /// Whether a directory exists (following symbolic links, as a path lookup does).
    static func directoryExists(_ path: String) -> Bool {
        var info = stat()
        var result: Int32
        repeat { result = stat(path, &info) } while result != 0 && errno == EINTR
        return result == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates one directory with `mode` (the umask applies); an existing one is left alone.
    /// - Returns: Whether this call created it.
    static func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) -> Bool {
        while mkdir(path, mode_t(mode)) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EEXIST { return false }
            throw SystemCallError(call: "mkdir \(path)", errno: code)
        }
        return true
    }

    /// Opens (creating it 0600 if needed, never following a symbolic link) and exclusively locks a lock file.
    /// - Returns: The locked descriptor, or `nil` when another process holds the lock.
    static func lockFile(_ path: String) throws(SystemCallError) -> Int32? {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        } while descriptor < 0 && errno == EINTR
        if descriptor < 0 { throw SystemCallError(call: "open \(path)", errno: errno) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw SystemCallError(call: "flock \(path)", errno: code)
        }
        return descriptor
    }

    /// Sleeps this thread (start-up only, before any event loop work).
    static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// Closes a descriptor; errors are ignored (there is nothing to retry after `close`).
    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Removes a file; a missing one is fine.
    static func unlinkFile(_ path: String) throws(SystemCallError) {
        while unlink(path) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT { return }
            throw SystemCallError(call: "unlink \(path)", errno: code)
        }
    }

    /// The longest Unix socket path, in bytes (without the terminating NUL).
    static let maxSocketPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Whether something accepts connections on a Unix stream socket path.
    static func socketAnswers(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maxSocketPathBytes else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        // A connect interrupted by a signal goes on in the background; it still says someone listens.
        return result == 0 || errno == EINTR || errno == EAGAIN
    }

    /// A duplicate of a descriptor, close-on-exec.
    static func duplicate(_ descriptor: Int32) throws(SystemCallError) -> Int32 {
        var copy: Int32
        repeat { copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0) } while copy < 0 && errno == EINTR
        if copy < 0 { throw SystemCallError(call: "fcntl F_DUPFD_CLOEXEC \(descriptor)", errno: errno) }
        return copy
    }

    /// Whether a listening socket has a connection waiting to be accepted, without waiting.
    static func hasPendingConnection(_ descriptor: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, 0) } while ready < 0 && errno == EINTR
        return ready > 0 && poller.revents & Int16(POLLIN) != 0
    }

    /// A peer's credentials as the kernel recorded them when it connected (`SO_PEERCRED`).
    struct PeerCredentials: Sendable, Hashable {
        var processID: Int32
        var userID: UInt32
        var groupID: UInt32
    }

    /// Reads `SO_PEERCRED` of a connected Unix socket channel.
    static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(SystemCallError(call: "getsockopt SO_PEERCRED", errno: ENOTSOCK))
        }
        let future: EventLoopFuture<KernelCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerCredentialsOption))
        return future.map { PeerCredentials(processID: $0.pid, userID: $0.uid, groupID: $0.gid) }
    }

    /// `struct ucred` of `<sys/socket.h>`, which Glibc's module map hides (it needs `_GNU_SOURCE`): three 32-bit
    /// fields, pid, uid, gid.
    struct KernelCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// `SO_PEERCRED` (17 on every Linux architecture but a few legacy ones this project does not target).
    static let peerCredentialsOption: Int32 = 17
}

extension DaemonSystem {
    /// Writes text to standard error, all of it.
    static func writeStandardError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
