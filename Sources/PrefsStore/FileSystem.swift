import Glibc

/// Every C call the store makes, in one place: files, directories, locks, inotify, poll, threads, the clock.
///
/// Each wrapper retries `EINTR` and reads `errno` right after the failing call, turning it into a
/// ``SystemCallError`` that names the call and the path. Files are opened with `O_NOFOLLOW` and `O_CLOEXEC`, and
/// created with mode 0600 (directories 0700), so no later `chmod` is needed.
enum FileSystem {
    /// What reading a file found.
    enum FileContents {
        /// No file by that name.
        case missing
        /// The file's bytes and identity.
        case contents([UInt8], FileIdentity)
        /// The file is larger than the caller accepts; it was not read.
        case tooLarge(size: Int, FileIdentity)
    }

    /// One inotify event.
    struct WatchEvent: Sendable {
        var watch: Int32
        var mask: UInt32
        var cookie: UInt32
        var name: String
    }

    /// The inotify event bits the store uses.
    enum WatchMask {
        static let closeWrite = UInt32(IN_CLOSE_WRITE)
        static let movedFrom = UInt32(IN_MOVED_FROM)
        static let movedTo = UInt32(IN_MOVED_TO)
        static let create = UInt32(IN_CREATE)
        static let delete = UInt32(IN_DELETE)
        static let deleteSelf = UInt32(IN_DELETE_SELF)
        static let moveSelf = UInt32(IN_MOVE_SELF)
        static let overflow = UInt32(IN_Q_OVERFLOW)
        static let ignored = UInt32(IN_IGNORED)
        static let isDirectory = UInt32(IN_ISDIR)
        static let onlyDirectory = UInt32(IN_ONLYDIR)
        /// What a watched directory of domain files reports.
        static let directoryChanges = closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf
    }

    // MARK: Errors and retries

    private static func failure(_ operation: String, _ path: String?, _ code: Int32) -> SystemCallError {
        let reason: String
        switch code {
        case ELOOP where operation == "open":
            reason = "is a symbolic link, which the store does not follow"
        case EMFILE where operation == "inotify_init1":
            reason = "the per-user limit of inotify instances is reached (sysctl fs.inotify.max_user_instances)"
        case ENOSPC where operation == "inotify_add_watch":
            reason = "the per-user limit of inotify watches is reached (sysctl fs.inotify.max_user_watches)"
        default:
            reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        }
        return SystemCallError(operation: operation, path: path, errno: code, reason: reason)
    }

    /// Runs a call until it does not fail with `EINTR`; returns its result and, on failure, `errno`.
    private static func retrying(_ call: () -> Int32) -> (result: Int32, errno: Int32) {
        while true {
            let result = call()
            if result != -1 { return (result, 0) }
            let code = errno
            if code != EINTR { return (result, code) }
        }
    }

    private static func retrying(_ call: () -> Int) -> (result: Int, errno: Int32) {
        while true {
            let result = call()
            if result != -1 { return (result, 0) }
            let code = errno
            if code != EINTR { return (result, code) }
        }
    }

    private static func closeIgnoringErrors(_ descriptor: Int32) {
        // Linux releases the descriptor even when close fails; retrying after EINTR could close another file.
        _ = close(descriptor)
    }

    // MARK: Files

    /// Reads a regular file whole, without following a symbolic link in its last component.
    /// - Parameters:
    ///   - path: The file.
    ///   - maxBytes: The largest size read; a larger file yields `.tooLarge`.
    static func readFile(_ path: String, maxBytes: Int) throws(SystemCallError) -> FileContents {
        let (descriptor, openError) = retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) }
        if descriptor == -1 {
            if openError == ENOENT || openError == ENOTDIR { return .missing }
            throw failure("open", path, openError)
        }
        defer { closeIgnoringErrors(descriptor) }
        var info = stat()
        let (statResult, statError) = retrying { fstat(descriptor, &info) }
        if statResult == -1 { throw failure("fstat", path, statError) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SystemCallError(operation: "open", path: path, errno: EINVAL, reason: "not a regular file")
        }
        let identity = FileIdentity(info)
        let size = Int(info.st_size)
        if size > maxBytes { return .tooLarge(size: size, identity) }
        // Read one byte more than the size so a file that grew meanwhile is caught rather than truncated.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var total = 0
        while total < bytes.count {
            let (count, readError) = bytes.withUnsafeMutableBytes { buffer in
                retrying { read(descriptor, buffer.baseAddress! + total, buffer.count - total) }
            }
            if count == -1 { throw failure("read", path, readError) }
            if count == 0 { break }
            total += count
            if total == bytes.count {
                if total > maxBytes { return .tooLarge(size: total, identity) }
                bytes.append(contentsOf: repeatElement(0, count: max(4096, total)))
            }
        }
        bytes.removeLast(bytes.count - total)
        return .contents(bytes, identity)
    }

    /// The identity of the file at `path` (not following a final symbolic link), or `nil` when there is none.
    static func identity(of path: String) throws(SystemCallError) -> FileIdentity? {
        var info = stat()
        let (result, code) = retrying { lstat(path, &info) }
        if result == -1 {
            if code == ENOENT || code == ENOTDIR { return nil }
            throw failure("lstat", path, code)
        }
        return FileIdentity(info)
    }

    /// Writes a file so that no reader ever sees it torn: temp file, write, `fsync`, `rename`, `fsync` the directory.
    /// - Parameters:
    ///   - bytes: The new contents.
    ///   - location: The file to replace.
    ///   - temporaryName: A name in the same directory for the temp file; removed again if anything fails.
    /// - Returns: The identity of the new file.
    static func writeAtomically(
        _ bytes: [UInt8], to location: FileLocation, temporaryName: String
    ) throws(SystemCallError) -> FileIdentity {
        let temporaryPath = location.directory + "/" + temporaryName
        let (descriptor, openError) = retrying {
            open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        if descriptor == -1 { throw failure("open", temporaryPath, openError) }
        var isOpen = true
        do throws(SystemCallError) {
            var written = 0
            while written < bytes.count {
                let (count, writeError) = bytes.withUnsafeBytes { buffer in
                    retrying { write(descriptor, buffer.baseAddress! + written, buffer.count - written) }
                }
                if count == -1 { throw failure("write", temporaryPath, writeError) }
                written += count
            }
            let (syncResult, syncError) = retrying { fsync(descriptor) }
            if syncResult == -1 { throw failure("fsync", temporaryPath, syncError) }
            var info = stat()
            let (statResult, statError) = retrying { fstat(descriptor, &info) }
            if statResult == -1 { throw failure("fstat", temporaryPath, statError) }
            isOpen = false
            if close(descriptor) == -1 {
                let code = errno
                if code != EINTR { throw failure("close", temporaryPath, code) }
            }
            let (renameResult, renameError) = retrying { rename(temporaryPath, location.path) }
            if renameResult == -1 { throw failure("rename", location.path, renameError) }
            try syncDirectory(location.directory)
            return FileIdentity(info)
        } catch {
            if isOpen { closeIgnoringErrors(descriptor) }
            _ = unlink(temporaryPath)
            throw error
        }
    }

    /// Removes a file (a missing file is fine) and makes the removal durable.
    static func removeFile(_ location: FileLocation) throws(SystemCallError) {
        let (result, code) = retrying { unlink(location.path) }
        if result == -1 {
            if code == ENOENT { return }
            throw failure("unlink", location.path, code)
        }
        try syncDirectory(location.directory)
    }

    /// Removes a file, ignoring every failure (for leftovers such as stale temp files).
    static func removeQuietly(_ path: String) {
        _ = unlink(path)
    }

    /// Moves a file to a new name in the same directory unless that name exists; never replaces a file.
    /// - Returns: `false` when `newName` already exists.
    static func moveAside(_ location: FileLocation, to newName: String) throws(SystemCallError) -> Bool {
        let newPath = location.directory + "/" + newName
        // link() fails with EEXIST instead of replacing, which rename() would do.
        let (linkResult, linkError) = retrying { link(location.path, newPath) }
        if linkResult == -1 {
            if linkError == EEXIST { return false }
            throw failure("link", newPath, linkError)
        }
        let (unlinkResult, unlinkError) = retrying { unlink(location.path) }
        if unlinkResult == -1, unlinkError != ENOENT { throw failure("unlink", location.path, unlinkError) }
        try syncDirectory(location.directory)
        return true
    }

    /// `fsync`s a directory so that renames and removals in it survive a crash.
    static func syncDirectory(_ path: String) throws(SystemCallError) {
        let (descriptor, openError) = retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor == -1 { throw failure("open", path, openError) }
        defer { closeIgnoringErrors(descriptor) }
        let (result, code) = retrying { fsync(descriptor) }
        // Some file systems cannot sync a directory; the data itself is already synced.
        if result == -1, code != EINVAL, code != EROFS { throw failure("fsync", path, code) }
    }

    /// Creates a directory and any missing parents with mode 0700; an existing directory is fine.
    static func makeDirectories(_ path: String) throws(SystemCallError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            let (result, code) = retrying { mkdir(prefix, 0o700) }
            if result == -1, code != EEXIST { throw failure("mkdir", prefix, code) }
        }
        var info = stat()
        let (statResult, statError) = retrying { stat(path, &info) }
        if statResult == -1 { throw failure("stat", path, statError) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw SystemCallError(
                operation: "mkdir", path: path, errno: ENOTDIR, reason: "exists and is not a directory")
        }
    }

    /// Whether `path` is an existing directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in a directory, without `.` and `..`; empty when the directory does not exist.
    static func directoryEntries(_ path: String) throws(SystemCallError) -> [String] {
        guard let directory = opendir(path) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return [] }
            throw failure("opendir", path, code)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Locks

    /// Opens (creating with mode 0600) and exclusively `flock`s a lock file, waiting for other holders.
    /// - Returns: The descriptor; closing it releases the lock, as does the holder's death.
    static func lockExclusively(_ path: String) throws(SystemCallError) -> Int32 {
        let (descriptor, openError) = retrying { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        if descriptor == -1 { throw failure("open", path, openError) }
        let (result, code) = retrying { flock(descriptor, LOCK_EX) }
        if result == -1 {
            closeIgnoringErrors(descriptor)
            throw failure("flock", path, code)
        }
        return descriptor
    }

    /// Releases a lock taken with ``lockExclusively(_:)``.
    static func unlock(_ descriptor: Int32) {
        closeIgnoringErrors(descriptor)
    }

    // MARK: Watching

    /// A non-blocking inotify descriptor.
    static func makeWatcher() throws(SystemCallError) -> Int32 {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if descriptor == -1 { throw failure("inotify_init1", nil, errno) }
        return descriptor
    }

    /// Watches a directory; returns the watch descriptor.
    static func addWatch(_ watcher: Int32, directory: String, mask: UInt32) throws(SystemCallError) -> Int32 {
        let (result, code) = retrying { inotify_add_watch(watcher, directory, mask | WatchMask.onlyDirectory) }
        if result == -1 { throw failure("inotify_add_watch", directory, code) }
        return result
    }

    /// Reads every queued inotify event without blocking.
    static func readWatchEvents(_ watcher: Int32) -> [WatchEvent] {
        var events: [WatchEvent] = []
        let headerSize = MemoryLayout<inotify_event>.size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let (count, _) = buffer.withUnsafeMutableBytes { raw in
                retrying { read(watcher, raw.baseAddress!, raw.count) }
            }
            if count <= 0 { break }
            var offset = 0
            while offset + headerSize <= count {
                let header = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                }
                let nameLength = Int(header.len)
                let nameEnd = min(count, offset + headerSize + nameLength)
                let nameBytes = buffer[(offset + headerSize)..<nameEnd].prefix { $0 != 0 }
                events.append(
                    WatchEvent(
                        watch: header.wd, mask: header.mask, cookie: header.cookie,
                        name: String(decoding: nameBytes, as: UTF8.self)))
                offset += headerSize + nameLength
            }
        }
        return events
    }

    /// A connected pair of non-blocking sockets: writing a byte to `.send` makes `.receive` readable.
    static func makeWakeChannel() throws(SystemCallError) -> (receive: Int32, send: Int32) {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if socketpair(AF_UNIX, type, 0, &descriptors) == -1 { throw failure("socketpair", nil, errno) }
        return (descriptors[0], descriptors[1])
    }

    /// Makes the receiving end of a wake channel readable; a full channel is already readable.
    static func sendWake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = retrying { send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Empties the receiving end of a wake channel.
    static func drainWakes(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let (count, _) = buffer.withUnsafeMutableBytes { raw in
                retrying { recv(descriptor, raw.baseAddress!, raw.count, Int32(MSG_DONTWAIT)) }
            }
            if count <= 0 { return }
        }
    }

    /// Closes a descriptor the store owns (watcher, wake channel).
    static func closeDescriptor(_ descriptor: Int32) {
        closeIgnoringErrors(descriptor)
    }

    /// Waits until one of the descriptors is readable or the timeout passes.
    /// - Parameters:
    ///   - descriptors: The descriptors to wait for.
    ///   - timeoutMilliseconds: How long to wait; -1 waits without limit.
    /// - Returns: For each descriptor, whether it is readable (or failed, which reading will then report).
    static func waitUntilReadable(_ descriptors: [Int32], timeoutMilliseconds: Int32) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let count = entries.count
        let (result, _) = entries.withUnsafeMutableBufferPointer { buffer in
            retrying { poll(buffer.baseAddress, nfds_t(count), timeoutMilliseconds) }
        }
        if result <= 0 { return Array(repeating: false, count: count) }
        return entries.map { $0.revents != 0 }
    }

    // MARK: Processes and threads

    /// This process's id.
    static var processID: Int32 { getpid() }

    /// Whether a process with this id exists (a process of another user counts as existing).
    static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) == 0 { return true }
        return errno != ESRCH
    }

    /// Starts a detached thread running `body`.
    static func startThread(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
                box.body()
                return nil
            }, context)
        if result != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            throw failure("pthread_create", nil, result)
        }
        pthread_detach(thread)
    }

    /// Registers a function to run at normal process exit.
    static func runAtExit(_ handler: @convention(c) () -> Void) {
        atexit(handler)
    }

    // MARK: Environment, clock, output

    /// The value of an environment variable of this process.
    static func environmentVariable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The current user's home directory from the password database.
    static func homeDirectoryOfCurrentUser() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// Seconds since 1970-01-01 UTC.
    static func currentTimeSince1970() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Sleeps the calling thread.
    static func sleep(milliseconds: Int) {
        sleep(microseconds: milliseconds * 1000)
    }

    /// Sleeps for a number of microseconds, resuming after signals.
    static func sleep(microseconds: Int) {
        var request = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: (microseconds % 1_000_000) * 1000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }

    /// Writes text to standard error, ignoring failures.
    static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let (count, _) = retrying { write(2, bytes.baseAddress! + offset, bytes.count - offset) }
                if count <= 0 { return }
                offset += count
            }
        }
    }
}

extension FileIdentity {
    fileprivate init(_ info: stat) {
        self.init(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modificationSeconds: Int64(info.st_mtim.tv_sec), modificationNanoseconds: Int64(info.st_mtim.tv_nsec))
    }
}
