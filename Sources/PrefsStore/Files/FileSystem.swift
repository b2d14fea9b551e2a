// SPDX-License-Identifier: Apache-2.0
import Glibc
import PrefsPOSIX

/// The store's name for `PrefsPOSIX`'s error, so that the store's files need not import `PrefsPOSIX` to name it.
typealias SystemCallError = PrefsPOSIX.SystemCallError

/// Every C call the store makes, in one place: files, directories, locks, inotify, poll, the clock. What other
/// modules do too (reading a file, the atomic write, threads, the environment) is `PrefsPOSIX`'s.
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

    // MARK: Errors

    private static func failure(_ call: String, _ path: String?, _ code: Int32) -> SystemCallError {
        SystemCallError(call, path: path, errno: code, reason: reason(call, code))
    }

    /// A `PrefsPOSIX` error in the store's words.
    private static func reworded(_ error: SystemCallError) -> SystemCallError {
        var error = error
        if let reason = reason(error.call, error.errno) { error.reason = reason }
        return error
    }

    /// The store's wording of a failure, where it says more than `strerror`.
    private static func reason(_ call: String, _ code: Int32) -> String? {
        switch code {
        case ELOOP where call == "open":
            "is a symbolic link, which the store does not follow"
        case EMFILE where call == "inotify_init1":
            "the per-user limit of inotify instances is reached (sysctl fs.inotify.max_user_instances)"
        case ENOSPC where call == "inotify_add_watch":
            "the per-user limit of inotify watches is reached (sysctl fs.inotify.max_user_watches)"
        default:
            nil
        }
    }

    // MARK: Files

    /// Whether something may be at `path`: false only when `access()` says nothing is (`ENOENT`, `ENOTDIR`), so that a
    /// caller looking for a file that is usually missing skips the open and its error.
    static func mayExist(_ path: String) -> Bool {
        let (result, error) = POSIX.retrying { access(path, F_OK) }
        return result == 0 || (error != ENOENT && error != ENOTDIR)
    }

    /// Reads a regular file whole. A symbolic link in its last component is followed only as
    /// ``followedLink(at:home:)`` allows, and refused otherwise.
    /// - Parameters:
    ///   - path: The file.
    ///   - maxBytes: The largest size read; a larger file yields `.tooLarge`.
    ///   - home: The directory a followed link must lead into; `nil` follows none.
    static func readFile(_ path: String, maxBytes: Int, home: String? = nil) throws(SystemCallError) -> FileContents {
        let contents: PrefsPOSIX.FileContents
        do {
            contents = try POSIX.readFile(path, maxBytes: maxBytes, regularFileOnly: true, followsSymbolicLinks: false)
        } catch  where error.call == "open" && (error.errno == ENOENT || error.errno == ENOTDIR) {
            return .missing
        } catch  where error.call == "open" && error.errno == ELOOP && home != nil {
            guard let target = try followedLink(at: path, home: home) else { throw reworded(error) }
            do {
                contents = try POSIX.readFile(
                    target, maxBytes: maxBytes, regularFileOnly: true, followsSymbolicLinks: false)
            } catch {
                throw reworded(error)
            }
            // The target may have been replaced since it was examined: what was opened must still be the user's.
            if contents.status.ownerID != POSIX.userID {
                throw refusedLink(path, "leads to \(target), which belongs to uid \(contents.status.ownerID)")
            }
        } catch {
            throw reworded(error)
        }
        let identity = FileIdentity(contents.status)
        guard let bytes = contents.bytes else { return .tooLarge(size: contents.size, identity) }
        return .contents(bytes, identity)
    }

    /// Why this process may not create files in `directory` (or, when it does not exist yet, in its nearest existing
    /// ancestor, where the store would create it): the text of `faccessat(W_OK | X_OK)`'s `errno` when it is
    /// `EROFS` or `EACCES` (`Read-only file system`, `Permission denied`), else `nil` (anything else, a file where a
    /// directory should be, is for the write itself to report).
    static func writeAccessProblem(_ directory: String) -> String? {
        var path = directory
        while true {
            guard let code = POSIX.writeAccessError(path) else { return nil }
            guard code == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
                return code == EROFS || code == EACCES ? POSIX.errorText(code) : nil
            }
            path = String(path[..<slash])
        }
    }

    /// The identity of the file at `path`, or `nil` when there is none. A final symbolic link that
    /// ``followedLink(at:home:)`` follows gives its target's identity; any other link its own.
    static func identity(of path: String, home: String? = nil) throws(SystemCallError) -> FileIdentity? {
        do {
            guard let status = try POSIX.fileStatus(atPath: path, followsSymbolicLinks: false) else { return nil }
            if status.kind == .symbolicLink, home != nil, let target = try? followedLink(at: path, home: home),
                let targetStatus = try POSIX.fileStatus(atPath: target, followsSymbolicLinks: false)
            {
                return FileIdentity(targetStatus)
            }
            return FileIdentity(status)
        } catch  where error.errno == ENOTDIR {
            return nil
        }
    }

    // MARK: Symbolic links

    /// The final target of the symbolic link at `path` when the store follows it; `nil` when `path` is not a link
    /// (or nothing is there).
    ///
    /// Dotfile managers (GNU stow, chezmoi, home-manager's out-of-store links) keep a domain file as a link into
    /// their own tree. The store follows such a link when the link and its final target belong to this process's
    /// user, the target is a regular file, and it lies inside `home`: reads read the target, writes replace it
    /// atomically in its own directory, and the link stays a link. Every other link is refused with the reason,
    /// so a link planted to another user's file, a device, a system file such as `/etc/shadow` (even for root,
    /// whose home does not hold it) or a loop is never read or replaced.
    /// - Parameters:
    ///   - path: The domain file's path.
    ///   - home: The directory the target must lie in; `nil` refuses every link.
    /// - Throws: ``SystemCallError`` naming `path` and why the link is refused.
    static func followedLink(at path: String, home: String?) throws(SystemCallError) -> String? {
        guard let link = try POSIX.fileStatus(atPath: path, followsSymbolicLinks: false),
            link.kind == .symbolicLink
        else { return nil }
        guard let home else { throw refusedLink(path, nil) }
        if link.ownerID != POSIX.userID { throw refusedLink(path, "belongs to uid \(link.ownerID)") }
        let target: String
        do {
            target = try POSIX.canonicalPath(path)
        } catch  where error.errno == ELOOP {
            throw refusedLink(path, "is part of a loop of links")
        } catch  where error.errno == ENOENT || error.errno == ENOTDIR {
            throw refusedLink(path, "leads to nothing (its target does not exist)")
        }
        let root = (try? POSIX.canonicalPath(home)) ?? home
        guard target.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw refusedLink(path, "leads to \(target), outside the home directory \(root)")
        }
        guard let status = try POSIX.fileStatus(atPath: target, followsSymbolicLinks: false) else {
            throw refusedLink(path, "leads to nothing (its target does not exist)")
        }
        if status.kind != .regular { throw refusedLink(path, "leads to \(target), which is not a regular file") }
        if status.ownerID != POSIX.userID {
            throw refusedLink(path, "leads to \(target), which belongs to uid \(status.ownerID)")
        }
        return target
    }

    /// Where a domain file's bytes are written: its target when it is a link the store follows, else the file
    /// itself (a refused link is left for the read to report).
    static func writtenLocation(of location: FileLocation, home: String?) -> FileLocation {
        guard home != nil, let target = try? followedLink(at: location.path, home: home),
            let slash = target.lastIndex(of: "/")
        else { return location }
        let directory = slash == target.startIndex ? "/" : String(target[..<slash])
        return FileLocation(directory: directory, fileName: String(target[target.index(after: slash)...]))
    }

    /// The error of a symbolic link the store does not follow.
    private static func refusedLink(_ path: String, _ why: String?) -> SystemCallError {
        let reason =
            why.map { "is a symbolic link that \($0), which the store does not follow" }
            ?? "is a symbolic link, which the store does not follow"
        return SystemCallError("open", path: path, errno: ELOOP, reason: reason)
    }

    /// Writes a file so that no reader ever sees it torn (`PrefsPOSIX`'s atomic write: temp file, write, `fsync`,
    /// `rename`, `fsync` the directory), with mode 0600.
    /// - Parameters:
    ///   - bytes: The new contents.
    ///   - location: The file to replace.
    /// - Returns: The identity of the new file.
    static func writeAtomically(_ bytes: [UInt8], to location: FileLocation) throws(SystemCallError) -> FileIdentity {
        do {
            return FileIdentity(
                try POSIX.writeFileAtomically(
                    bytes, to: location.path, newFileMode: 0o600, keepsExistingMode: false,
                    directorySyncIsRequired: true))
        } catch {
            throw reworded(error)
        }
    }

    /// Removes a file (a missing file is fine) and makes the removal durable.
    static func removeFile(_ location: FileLocation) throws(SystemCallError) {
        let (result, code) = POSIX.retrying { unlink(location.path) }
        if result == -1 {
            if code == ENOENT { return }
            throw failure("unlink", location.path, code)
        }
        try POSIX.syncDirectory(location.directory)
    }

    /// Moves a file to a new name in the same directory unless that name exists; never replaces a file.
    /// - Returns: `false` when `newName` already exists.
    static func moveAside(_ location: FileLocation, to newName: String) throws(SystemCallError) -> Bool {
        let newPath = location.directory + "/" + newName
        // link() fails with EEXIST instead of replacing, which rename() would do.
        let (linkResult, linkError) = POSIX.retrying { link(location.path, newPath) }
        if linkResult == -1 {
            if linkError == EEXIST { return false }
            throw failure("link", newPath, linkError)
        }
        let (unlinkResult, unlinkError) = POSIX.retrying { unlink(location.path) }
        if unlinkResult == -1, unlinkError != ENOENT { throw failure("unlink", location.path, unlinkError) }
        try POSIX.syncDirectory(location.directory)
        return true
    }

    /// Creates a directory and any missing parents with mode 0700; an existing directory is fine.
    static func makeDirectories(_ path: String) throws(SystemCallError) {
        try POSIX.makeDirectories(path, mode: 0o700)
    }

    /// The names in a directory, without `.` and `..`; empty when the directory does not exist.
    static func directoryEntries(_ path: String) throws(SystemCallError) -> [String] {
        try POSIX.directoryEntries(path)
    }

    // MARK: Locks

    /// Opens (creating with mode 0600) and exclusively `flock`s a lock file, waiting for other holders.
    /// - Returns: The descriptor; closing it releases the lock, as does the holder's death.
    static func lockExclusively(_ path: String) throws(SystemCallError) -> Int32 {
        let (descriptor, openError) = POSIX.retrying { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        if descriptor == -1 { throw failure("open", path, openError) }
        let (result, code) = POSIX.retrying { flock(descriptor, LOCK_EX) }
        if result == -1 {
            POSIX.closeDescriptor(descriptor)
            throw failure("flock", path, code)
        }
        return descriptor
    }

    /// Releases a lock taken with ``lockExclusively(_:)``.
    static func unlock(_ descriptor: Int32) {
        POSIX.closeDescriptor(descriptor)
    }

    // MARK: Watching

    /// A non-blocking inotify descriptor.
    static func makeWatcher() throws(SystemCallError) -> Int32 {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if descriptor == -1 { throw failure("inotify_init1", nil, errno) }
        return descriptor
    }

    /// Watches a directory; returns the watch descriptor, or `nil` when the directory is gone.
    static func addWatch(_ watcher: Int32, directory: String, mask: UInt32) throws(SystemCallError) -> Int32? {
        let (result, code) = POSIX.retrying { inotify_add_watch(watcher, directory, mask | WatchMask.onlyDirectory) }
        if result == -1 {
            if code == ENOENT || code == ENOTDIR { return nil }
            throw failure("inotify_add_watch", directory, code)
        }
        return result
    }

    /// Reads every queued inotify event without blocking.
    static func readWatchEvents(_ watcher: Int32) -> [WatchEvent] {
        var events: [WatchEvent] = []
        let headerSize = MemoryLayout<inotify_event>.size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let (count, _) = buffer.withUnsafeMutableBytes { raw in
                POSIX.retrying { read(watcher, raw.baseAddress!, raw.count) }
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
        _ = POSIX.retrying { send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Empties the receiving end of a wake channel.
    static func drainWakes(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let (count, _) = buffer.withUnsafeMutableBytes { raw in
                POSIX.retrying { recv(descriptor, raw.baseAddress!, raw.count, Int32(MSG_DONTWAIT)) }
            }
            if count <= 0 { return }
        }
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
            POSIX.retrying { poll(buffer.baseAddress, nfds_t(count), timeoutMilliseconds) }
        }
        if result <= 0 { return Array(repeating: false, count: count) }
        return entries.map { $0.revents != 0 }
    }

    // MARK: Processes

    /// Whether a process with this id exists (a process of another user counts as existing).
    static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) == 0 { return true }
        return errno != ESRCH
    }

    /// Registers a function to run at normal process exit.
    static func runAtExit(_ handler: @convention(c) () -> Void) {
        atexit(handler)
    }

    // MARK: Clock

    /// Seconds since 1970-01-01 UTC.
    static func currentTimeSince1970() -> Double {
        POSIX.currentTimeSince1970()
    }

    /// Sleeps the calling thread (`PrefsPOSIX`'s sleep, under the name the store's files call).
    static func sleep(milliseconds: Int) {
        POSIX.sleep(milliseconds: milliseconds)
    }
}

extension FileIdentity {
    fileprivate init(_ status: FileStatus) {
        self.init(
            device: status.device, inode: status.inode, size: status.size,
            modificationSeconds: status.modificationSeconds, modificationNanoseconds: status.modificationNanoseconds)
    }
}
