// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C calls only the daemon makes, in one place: the umask, the socket's lock, a socket's peer credentials and
/// listening state. `EINTR` is retried and `errno` is read at once, right after the call that set it. What other
/// modules do too (file status, directories, removing a file, the environment, sleeping) is `PrefsPOSIX`'s, and so
/// is the one `SystemCallError` every failure here is.
enum DaemonSystem {
    typealias SystemCallError = PrefsPOSIX.SystemCallError

    /// Raises the soft limit on open descriptors, up to the hard limit, so that it covers `needed`.
    ///
    /// systemd starts services with a soft limit of 1,024 and a much higher hard limit, and expects a program that
    /// needs more, and uses no `select()` (NIO uses epoll), to raise the soft limit itself.
    /// - Returns: The soft limit in force afterwards.
    @discardableResult
    static func raiseDescriptorLimit(toCover needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return needed }
        // RLIM_INFINITY is all ones, the largest value: comparisons and `min` treat it as unlimited.
        let wanted = rlim_t(needed)
        guard limit.rlim_cur < wanted else { return Int(clamping: limit.rlim_cur) }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Sets the file-creation mask and returns the previous one.
    @discardableResult
    static func setFileCreationMask(_ mask: UInt32) -> UInt32 {
        UInt32(umask(mode_t(mask)))
    }

    /// `lstat` of a path, or `nil` when nothing is there.
    static func status(of path: String) throws(SystemCallError) -> FileStatus? {
        try POSIX.fileStatus(atPath: path, followsSymbolicLinks: false)
    }

    /// Creates one directory with `mode` (the umask applies); an existing one is left alone.
    /// - Returns: Whether this call created it.
    @discardableResult
    static func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) -> Bool {
        try POSIX.makeDirectory(path, mode: mode)
    }

    /// Opens (creating it 0600 if needed, never following a symbolic link) and exclusively locks a lock file;
    /// `readOnly` opens it for reading only, which `flock` allows.
    /// - Returns: The locked descriptor, or `nil` when another process holds the lock.
    static func lockFile(_ path: String, readOnly: Bool = false) throws(SystemCallError) -> Int32? {
        let (descriptor, openError) = POSIX.retrying {
            open(path, (readOnly ? O_RDONLY : O_RDWR) | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        }
        if descriptor < 0 { throw SystemCallError("open", path: path, errno: openError) }
        let (result, code) = POSIX.retrying { flock(descriptor, LOCK_EX | LOCK_NB) }
        if result != 0 {
            POSIX.closeDescriptor(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw SystemCallError("flock", path: path, errno: code)
        }
        return descriptor
    }

    /// ``lockFile(_:readOnly:)``, waiting half a second for a holder to let go: a lock held a moment longer than its
    /// daemon (a child forked just then keeps the descriptor until it execs); a daemon that really runs keeps it.
    /// - Returns: The locked descriptor, or `nil` when another process still holds the lock.
    static func lockFileSoon(_ path: String, readOnly: Bool = false) throws(SystemCallError) -> Int32? {
        for _ in 0..<19 {
            if let lock = try lockFile(path, readOnly: readOnly) { return lock }
            POSIX.sleep(milliseconds: 25)
        }
        return try lockFile(path, readOnly: readOnly)
    }

    /// Creates a directory and its missing parents 0700 (the umask applies).
    static func makeDirectories(_ path: String) throws(SystemCallError) {
        try POSIX.makeDirectories(path, mode: 0o700)
    }

    /// Replaces what an existing file holds with `bytes` (never following a symbolic link).
    static func replaceContents(of path: String, with bytes: [UInt8]) throws(SystemCallError) {
        let (descriptor, openError) = POSIX.retrying { open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC) }
        if descriptor < 0 { throw SystemCallError("open", path: path, errno: openError) }
        defer { POSIX.closeDescriptor(descriptor) }
        try POSIX.writeAll(bytes, to: descriptor, name: path)
    }

    /// Whether a call failed because the file system is read-only or the directory not this user's to write.
    static func isNotWritable(_ error: SystemCallError) -> Bool {
        error.errno == EROFS || error.errno == EACCES
    }

    /// Removes a file; a missing one is fine.
    static func unlinkFile(_ path: String) throws(SystemCallError) {
        try POSIX.removeFile(path)
    }

    /// The longest Unix socket path, in bytes (without the terminating NUL).
    static let maxSocketPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Whether something accepts connections on a Unix stream socket path.
    static func socketAnswers(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { POSIX.closeDescriptor(descriptor) }
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

    /// A Unix stream socket bound to `path` and listening, close-on-exec; the caller sets the umask it is created
    /// under.
    static func listeningSocket(path: String, backlog: Int32) throws(SystemCallError) -> Int32 {
        let (descriptor, socketError) = POSIX.retrying {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        if descriptor < 0 { throw SystemCallError("socket", errno: socketError) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maxSocketPathBytes else {
            POSIX.closeDescriptor(descriptor)
            throw SystemCallError("bind", path: path, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let (bound, bindError) = POSIX.retrying {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        if bound != 0 {
            POSIX.closeDescriptor(descriptor)
            throw SystemCallError("bind", path: path, errno: bindError)
        }
        let (listening, listenError) = POSIX.retrying { listen(descriptor, backlog) }
        if listening != 0 {
            POSIX.closeDescriptor(descriptor)
            throw SystemCallError("listen", path: path, errno: listenError)
        }
        return descriptor
    }

    /// Whether an accept error means the process or the system is out of descriptors or memory, which waiting can
    /// cure.
    static func isResourceExhaustion(_ error: any Error) -> Bool {
        guard let error = error as? IOError else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
    }

    /// Opens `/dev/null`, a descriptor held only to be given back when descriptors run out; `nil` when none is left.
    static func openSpareDescriptor() -> Int32? {
        let (descriptor, _) = POSIX.retrying { open("/dev/null", O_RDONLY | O_CLOEXEC) }
        return descriptor >= 0 ? descriptor : nil
    }

    /// A duplicate of a descriptor, close-on-exec.
    static func duplicate(_ descriptor: Int32) throws(SystemCallError) -> Int32 {
        let (copy, code) = POSIX.retrying { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
        if copy < 0 { throw SystemCallError("fcntl F_DUPFD_CLOEXEC", path: "descriptor \(descriptor)", errno: code) }
        return copy
    }

    /// Whether a listening socket has a connection waiting to be accepted, without waiting.
    static func hasPendingConnection(_ descriptor: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let (ready, _) = POSIX.retrying { poll(&poller, 1, 0) }
        return ready > 0 && poller.revents & Int16(POLLIN) != 0
    }

    /// Reads `SO_PEERCRED` of a connected Unix socket channel, into the layout PrefsPOSIX defines.
    static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(SystemCallError("getsockopt SO_PEERCRED", errno: ENOTSOCK))
        }
        let future: EventLoopFuture<PeerCredentials.Kernel> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(PeerCredentials.socketOption))
        return future.map(PeerCredentials.init)
    }
}
