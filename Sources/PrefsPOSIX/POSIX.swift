// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The POSIX calls several modules make, once: each retries `EINTR` and reads `errno` right after the call that
/// set it, turning a failure into a ``SystemCallError`` that names the call and the path.
///
/// Calls only one module makes (inotify, `flock`, `sd_notify`, connecting a socket) stay in that module's own system
/// file, which uses ``retrying(_:)`` and ``errorText(_:)`` from here.
package enum POSIX {
    // MARK: Calls and errors

    /// Runs a call until it does not fail with `EINTR`.
    /// - Parameter call: A C call that returns -1 and sets `errno` on failure.
    /// - Returns: The call's result and, when it is -1, the `errno` it set (0 otherwise).
    ///
    /// Inlinable, so that each caller gets it specialised for its result type: every module calls it, and the
    /// unspecialised form costs a few hundred instructions a call in generic metadata.
    @inlinable
    package static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> (result: Result, errno: Int32) {
        while true {
            let result = call()
            if result != -1 { return (result, 0) }
            let code = Glibc.errno
            if code != EINTR { return (result, code) }
        }
    }

    /// The C library's text for an `errno` value (`strerror`), such as `No such file or directory`.
    /// - Parameter code: An `errno` value.
    package static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    // MARK: Process

    /// An environment variable of this process, or `nil` when it is unset.
    /// - Parameter name: The variable's name.
    package static func environmentVariable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// This process's id.
    package static var processID: Int32 { getpid() }

    /// This process's real user id.
    package static var userID: UInt32 { UInt32(getuid()) }

    /// The home directory of this process's user in the password database (not `HOME`).
    /// - Returns: The directory, or `nil` when the user has no entry.
    package static func homeDirectoryOfCurrentUser() -> String? {
        passwordEntryOfCurrentUser { $0.pw_dir.map { String(cString: $0) } }
    }

    /// The login name of this process's user in the password database.
    /// - Returns: The name, or `nil` when the user has no entry.
    package static func userNameOfCurrentUser() -> String? {
        passwordEntryOfCurrentUser { $0.pw_name.map { String(cString: $0) } }
    }

    /// Reads this process's user's password-database entry and hands it to `field` while its strings are valid.
    private static func passwordEntryOfCurrentUser(_ field: (passwd) -> String?) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        var status: Int32
        repeat {
            status = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        } while status == EINTR
        guard status == 0, result != nil else { return nil }
        return withExtendedLifetime(buffer) { field(entry) }
    }

    /// Starts a detached thread running `body`.
    /// - Parameter body: What the thread runs.
    /// - Throws: ``SystemCallError`` for `pthread_create` when no thread can be started.
    package static func startThread(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
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
            throw SystemCallError("pthread_create", errno: result)
        }
        pthread_detach(thread)
    }

    /// Lowers the scheduling priority of the calling thread alone, for background work that must not delay the
    /// threads serving clients on a busy machine. (Linux keeps a nice value per thread, and `setpriority` for
    /// process 0 changes the calling thread's only.)
    /// - Parameter niceness: The nice value added, 1 to 19.
    /// - Throws: ``SystemCallError`` for `getpriority` or `setpriority`.
    package static func lowerPriorityOfCurrentThread(by niceness: Int32) throws(SystemCallError) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        Glibc.errno = 0
        let current = getpriority(which, 0)
        if current == -1, Glibc.errno != 0 { throw SystemCallError("getpriority", errno: Glibc.errno) }
        let (result, code) = retrying { setpriority(which, 0, min(19, current + niceness)) }
        if result == -1 { throw SystemCallError("setpriority", errno: code) }
    }

    /// Sleeps the calling thread, resuming after signals until the whole time has passed.
    /// - Parameter milliseconds: How long.
    package static func sleep(milliseconds: Int) {
        sleep(microseconds: milliseconds * 1000)
    }

    /// Sleeps the calling thread for a number of microseconds, resuming after signals.
    package static func sleep(microseconds: Int) {
        var request = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: (microseconds % 1_000_000) * 1000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && Glibc.errno == EINTR { request = remaining }
    }

    // MARK: Descriptors

    /// Standard input's descriptor.
    package static let standardInput = STDIN_FILENO
    /// Standard output's descriptor.
    package static let standardOutput = STDOUT_FILENO
    /// Standard error's descriptor.
    package static let standardError = STDERR_FILENO

    /// Closes a descriptor, ignoring errors: Linux releases it even when `close` fails, and retrying after `EINTR`
    /// could close another file.
    /// - Parameter descriptor: The descriptor.
    package static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Writes every byte to a descriptor, resuming after partial writes; when the descriptor is non-blocking and
    /// full, waits for room rather than failing.
    /// - Parameters:
    ///   - bytes: What to write.
    ///   - descriptor: Where.
    ///   - name: What the descriptor is, for the error (`standard output`, a path), or `nil`.
    /// - Throws: ``SystemCallError`` for `write`.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, name: String?) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let (written, code) = bytes.withUnsafeBytes { raw in
                retrying { write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            }
            if written > 0 {
                offset += written
                continue
            }
            if written < 0, code == EAGAIN || code == EWOULDBLOCK {
                var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, 1_000) > 0 { continue }
            }
            throw SystemCallError("write", path: name, errno: written < 0 ? code : EIO)
        }
    }

    /// Writes text to standard error in full, ignoring failures (there is nowhere left to report them).
    /// - Parameter text: The text.
    package static func writeToStandardError(_ text: String) {
        try? writeAll(Array(text.utf8), to: standardError, name: "standard error")
    }

    /// Reads a descriptor to its end, up to a size.
    /// - Parameters:
    ///   - descriptor: An open descriptor, such as standard input.
    ///   - name: What it is, for errors (`standard input`, `-`).
    ///   - maxBytes: The most bytes accepted; one byte more is not read further and is an error.
    /// - Returns: Every byte up to end of file.
    /// - Throws: ``SystemCallError``: `open` with `EISDIR` for a directory, `fstat` or `read` failures, and `read`
    ///   with `EFBIG` (``tooLarge(_:maxBytes:)``) for more than `maxBytes`.
    package static func readAll(
        from descriptor: Int32, name: String, maxBytes: Int
    ) throws(SystemCallError) -> [UInt8] {
        let contents = try read(descriptor, name: name, maxBytes: maxBytes, regularFileOnly: false)
        guard let bytes = contents.bytes else { throw tooLarge(name, maxBytes: maxBytes) }
        return bytes
    }

    /// The error for an input larger than a reader accepts: `read` with `EFBIG`, reason `more than N bytes`.
    /// - Parameters:
    ///   - name: The path (or the name of the stream).
    ///   - maxBytes: The limit.
    package static func tooLarge(_ name: String, maxBytes: Int) -> SystemCallError {
        SystemCallError("read", path: name, errno: EFBIG, reason: "more than \(maxBytes) bytes")
    }

    // MARK: Files

    /// Reads a whole file, up to a size (a pipe or device is read to its end, or to one byte past the size; a
    /// directory is refused). A device that never ends, such as `/dev/zero`, thus costs `maxBytes` of memory, not
    /// all there is.
    /// - Parameters:
    ///   - path: The file.
    ///   - maxBytes: The most bytes accepted.
    /// - Returns: Its bytes.
    /// - Throws: ``SystemCallError``: `open` naming the path (with `EISDIR` for a directory), `fstat`, `read`, and
    ///   `read` with `EFBIG` (``tooLarge(_:maxBytes:)``) for a file larger than `maxBytes`.
    package static func readFile(_ path: String, maxBytes: Int) throws(SystemCallError) -> [UInt8] {
        let contents = try readFile(path, maxBytes: maxBytes, regularFileOnly: false, followsSymbolicLinks: true)
        guard let bytes = contents.bytes else { throw tooLarge(path, maxBytes: maxBytes) }
        return bytes
    }

    /// Reads a whole file, up to a size.
    /// - Parameters:
    ///   - path: The file.
    ///   - maxBytes: The largest size read; a larger file is not read (``FileContents/bytes`` is `nil`).
    ///   - regularFileOnly: Whether anything but a regular file is refused (`EINVAL`, "not a regular file"), and
    ///     opened without blocking (a FIFO); otherwise only a directory is refused (`EISDIR`).
    ///   - followsSymbolicLinks: Whether a symbolic link as the last component is followed (else `ELOOP`).
    /// - Returns: The bytes, or the size of a file too large, with the file's status.
    /// - Throws: ``SystemCallError`` for `open` (also `ENOENT` for a missing file), `fstat` or `read`.
    package static func readFile(
        _ path: String, maxBytes: Int, regularFileOnly: Bool, followsSymbolicLinks: Bool
    ) throws(SystemCallError) -> FileContents {
        var flags = O_RDONLY | O_CLOEXEC
        if !followsSymbolicLinks { flags |= O_NOFOLLOW }
        if regularFileOnly { flags |= O_NONBLOCK }
        let (descriptor, code) = retrying { open(path, flags) }
        if descriptor == -1 { throw SystemCallError("open", path: path, errno: code) }
        defer { closeDescriptor(descriptor) }
        return try read(descriptor, name: path, maxBytes: maxBytes, regularFileOnly: regularFileOnly)
    }

    private static func read(
        _ descriptor: Int32, name: String, maxBytes: Int, regularFileOnly: Bool
    ) throws(SystemCallError) -> FileContents {
        var info = stat()
        let (statResult, statError) = retrying { fstat(descriptor, &info) }
        if statResult == -1 { throw SystemCallError("fstat", path: name, errno: statError) }
        let status = FileStatus(info)
        if regularFileOnly, status.kind != .regular {
            throw SystemCallError("open", path: name, errno: EINVAL, reason: "not a regular file")
        }
        if status.kind == .directory { throw SystemCallError("open", path: name, errno: EISDIR) }
        let size = status.kind == .regular ? Int(info.st_size) : 0
        if size > maxBytes { return FileContents(bytes: nil, size: size, status: status) }
        // Never more than one byte past the limit is read, which tells a stream at the limit from a longer one.
        let limit = maxBytes < Int.max ? maxBytes + 1 : Int.max
        // Read one byte more than the size so that a file that grew meanwhile is caught rather than truncated. The
        // buffer is raw memory, grown by doubling: a stream is read at memory speed even in a debug build.
        var capacity = max(1, min(size + 1, limit))
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let (count, readError) = retrying { [buffer, capacity] in
                Glibc.read(descriptor, buffer + total, capacity - total)
            }
            if count == -1 { throw SystemCallError("read", path: name, errno: readError) }
            if count == 0 { break }
            total += count
            if total > maxBytes { return FileContents(bytes: nil, size: total, status: status) }
            if total == capacity {
                capacity = min(max(65_536, total * 2), limit)
                let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
                grown.copyMemory(from: buffer, byteCount: total)
                buffer.deallocate()
                buffer = grown
            }
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { [buffer] destination, initialized in
            if total > 0 {
                UnsafeMutableRawPointer(destination.baseAddress!).copyMemory(from: buffer, byteCount: total)
            }
            initialized = total
        }
        return FileContents(bytes: bytes, size: total, status: status)
    }

    /// Replaces a file so that no reader ever sees it torn: a temp file in the same directory (named by
    /// ``TemporaryFileName``), write, `fsync`, `rename` over the file, `fsync` of the directory. The temp file is
    /// removed again if anything before the rename fails, and the original file is then unchanged.
    /// - Parameters:
    ///   - bytes: The new contents.
    ///   - path: The file to replace or create.
    ///   - newFileMode: The mode a new file is created with; the umask applies.
    ///   - keepsExistingMode: Whether a file that exists keeps its mode (else it gets `newFileMode` too).
    ///   - directorySyncIsRequired: Whether a failure to `fsync` the directory (after the rename) is an error; a
    ///     file system that cannot sync a directory (`EINVAL`, `EROFS`) never is.
    ///   - synchronizes: Whether to `fsync` at all; `false` keeps the replacement atomic for readers but not durable
    ///     across a crash, for files that are rebuilt from a durable one after a crash (the fleet cache's merged
    ///     files).
    /// - Returns: The status of the new file.
    /// - Throws: ``SystemCallError``: `open` of the temp file, `fchmod`, `write`, `fsync`, `fstat`, `close`,
    ///   `rename` (naming `path`), and the directory's `open` or `fsync` when required.
    @discardableResult
    package static func writeFileAtomically(
        _ bytes: [UInt8], to path: String, newFileMode: UInt32, keepsExistingMode: Bool,
        directorySyncIsRequired: Bool, synchronizes: Bool = true
    ) throws(SystemCallError) -> FileStatus {
        let directory = TemporaryFileName.directory(ofPath: path)
        let fileName = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        var existing = stat()
        let existingMode: mode_t? =
            keepsExistingMode && retrying({ stat(path, &existing) }).result == 0 ? existing.st_mode & 0o7777 : nil
        var temporaryPath = ""
        var descriptor: Int32 = -1
        var attempt = 0
        while descriptor == -1 {
            let name = TemporaryFileName.make(for: fileName, processID: processID)
            temporaryPath = directory == "/" ? "/" + name : directory + "/" + name
            let (opened, code) = retrying {
                open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(newFileMode))
            }
            attempt += 1
            if opened == -1, code != EEXIST || attempt > 100 {
                throw SystemCallError("open", path: temporaryPath, errno: code)
            }
            descriptor = opened
        }
        var isOpen = true
        do throws(SystemCallError) {
            if let existingMode {
                let (result, code) = retrying { fchmod(descriptor, existingMode) }
                if result == -1 { throw SystemCallError("fchmod", path: temporaryPath, errno: code) }
            }
            try writeAll(bytes, to: descriptor, name: temporaryPath)
            if synchronizes {
                let (syncResult, syncError) = retrying { fsync(descriptor) }
                if syncResult == -1 { throw SystemCallError("fsync", path: temporaryPath, errno: syncError) }
            }
            var info = stat()
            let (statResult, statError) = retrying { fstat(descriptor, &info) }
            if statResult == -1 { throw SystemCallError("fstat", path: temporaryPath, errno: statError) }
            isOpen = false
            if close(descriptor) == -1 {
                let code = Glibc.errno
                if code != EINTR { throw SystemCallError("close", path: temporaryPath, errno: code) }
            }
            let (renameResult, renameError) = retrying { rename(temporaryPath, path) }
            if renameResult == -1 { throw SystemCallError("rename", path: path, errno: renameError) }
            do {
                if synchronizes { try syncDirectory(directory) }
            } catch  where directorySyncIsRequired {
                throw error
            } catch {}
            return FileStatus(info)
        } catch {
            if isOpen { closeDescriptor(descriptor) }
            _ = unlink(temporaryPath)
            throw error
        }
    }

    /// Writes a file a user named on a command line (`defaults export`, `plutil -o`), never replacing what is not a
    /// regular file, as `cp` writes to an existing destination:
    ///
    /// - nothing there, or a regular file: replaced atomically (``writeFileAtomically(_:to:newFileMode:keepsExistingMode:directorySyncIsRequired:)``),
    ///   an existing file keeping its mode;
    /// - a symbolic link: followed to its final target (at most 40 links), which is written by these same rules (a
    ///   regular or missing target atomically, with its temp file in the target's directory); the link stays a link;
    /// - a character or block device, a FIFO or a socket: opened for writing and written in place, so `/dev/null`
    ///   stays `/dev/null` and `/dev/stdout` writes to standard output (a FIFO waits for its reader, as with `cp`);
    /// - a directory: refused.
    /// - Parameters:
    ///   - bytes: The contents.
    ///   - path: The path as the user gave it.
    ///   - newFileMode: The mode of a new file (less the umask).
    /// - Throws: ``SystemCallError``: those of the atomic write; `open` or `write` of a special file; `readlink`;
    ///   `open` with `EISDIR` for a directory, `ELOOP` for too many links.
    package static func writeUserFile(_ bytes: [UInt8], to path: String, newFileMode: UInt32) throws(SystemCallError) {
        // What the path finally names, links followed (the kernel's own magic links of /proc and /dev/fd included).
        if let followed = try fileStatus(atPath: path, followsSymbolicLinks: true), followed.kind != .regular {
            if followed.kind == .directory { throw SystemCallError("open", path: path, errno: EISDIR) }
            try writeInPlace(bytes, to: path)
            return
        }
        // A regular file, or nothing yet: replace the final target of the links atomically, beside it.
        var target = path
        for _ in 0..<40 {
            guard try fileStatus(atPath: target, followsSymbolicLinks: false)?.kind == .symbolicLink else {
                try writeFileAtomically(
                    bytes, to: target, newFileMode: newFileMode, keepsExistingMode: true,
                    directorySyncIsRequired: false)
                return
            }
            let link = try symbolicLinkContents(target)
            target = link.hasPrefix("/") ? link : TemporaryFileName.directory(ofPath: target) + "/" + link
        }
        throw SystemCallError("open", path: path, errno: ELOOP)
    }

    /// What a symbolic link points to.
    private static func symbolicLinkContents(_ path: String) throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let (count, code) = retrying { readlink(path, &buffer, buffer.count - 1) }
        if count == -1 { throw SystemCallError("readlink", path: path, errno: code) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens an existing special file for writing and writes to it, as `cp` does; it is never created or replaced.
    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws(SystemCallError) {
        let (descriptor, code) = retrying { open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC) }
        if descriptor == -1 { throw SystemCallError("open", path: path, errno: code) }
        defer { closeDescriptor(descriptor) }
        try writeAll(bytes, to: descriptor, name: path)
    }

    /// Appends bytes to a file, creating it when missing, and makes them durable (`fdatasync`), for append-only
    /// logs: no new inode per write, unlike ``writeFileAtomically(_:to:newFileMode:keepsExistingMode:directorySyncIsRequired:synchronizes:)``.
    /// A crash may leave a torn last write; the log's reader must recognize it.
    /// - Parameters:
    ///   - bytes: What to append.
    ///   - path: The file (a symbolic link is refused).
    ///   - newFileMode: The mode a new file is created with; the umask applies.
    /// - Returns: The file's size after the append.
    /// - Throws: ``SystemCallError`` for `open`, `write`, `fdatasync` or `fstat`, naming `path`; the directory's
    ///   `fsync` when the file was created.
    @discardableResult
    package static func appendDurably(
        _ bytes: [UInt8], to path: String, newFileMode: UInt32
    ) throws(SystemCallError)
        -> Int
    {
        var (descriptor, code) = retrying { open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC) }
        var created = false
        if descriptor == -1, code == ENOENT {
            (descriptor, code) = retrying {
                open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(newFileMode))
            }
            created = true
        }
        if descriptor == -1 { throw SystemCallError("open", path: path, errno: code) }
        defer { closeDescriptor(descriptor) }
        try writeAll(bytes, to: descriptor, name: path)
        let (syncResult, syncError) = retrying { fdatasync(descriptor) }
        if syncResult == -1 { throw SystemCallError("fdatasync", path: path, errno: syncError) }
        var info = stat()
        let (statResult, statError) = retrying { fstat(descriptor, &info) }
        if statResult == -1 { throw SystemCallError("fstat", path: path, errno: statError) }
        if created { try syncDirectory(TemporaryFileName.directory(ofPath: path)) }
        return Int(info.st_size)
    }

    /// Cuts a file to `length` bytes and makes that durable (`fsync`): a log's torn tail, or a log folded into a
    /// snapshot. A missing file is fine.
    /// - Throws: ``SystemCallError`` for `open`, `ftruncate` or `fsync`, naming `path`.
    package static func truncateDurably(_ path: String, to length: Int) throws(SystemCallError) {
        let (descriptor, code) = retrying { open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC) }
        if descriptor == -1 {
            if code == ENOENT { return }
            throw SystemCallError("open", path: path, errno: code)
        }
        defer { closeDescriptor(descriptor) }
        let (result, truncateError) = retrying { ftruncate(descriptor, off_t(length)) }
        if result == -1 { throw SystemCallError("ftruncate", path: path, errno: truncateError) }
        let (syncResult, syncError) = retrying { fsync(descriptor) }
        if syncResult == -1 { throw SystemCallError("fsync", path: path, errno: syncError) }
    }

    /// `fsync`s a directory so that renames and removals in it survive a crash. A file system that cannot sync a
    /// directory (`EINVAL`, `EROFS`) is not an error: the data itself is synced.
    /// - Parameter path: The directory.
    /// - Throws: ``SystemCallError`` for `open` or `fsync`.
    package static func syncDirectory(_ path: String) throws(SystemCallError) {
        let (descriptor, openError) = retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor == -1 { throw SystemCallError("open", path: path, errno: openError) }
        defer { closeDescriptor(descriptor) }
        let (result, code) = retrying { fsync(descriptor) }
        if result == -1, code != EINVAL, code != EROFS { throw SystemCallError("fsync", path: path, errno: code) }
    }

    /// Renames a file or directory (`rename(2)`): atomic, replacing a file at `destination`.
    /// - Throws: ``SystemCallError`` for `rename`, naming `destination`.
    package static func renameFile(_ source: String, to destination: String) throws(SystemCallError) {
        let (result, code) = retrying { Glibc.rename(source, destination) }
        if result == -1 { throw SystemCallError("rename", path: destination, errno: code) }
    }

    /// Removes a file; a missing one is fine.
    /// - Parameter path: The file.
    /// - Throws: ``SystemCallError`` for `unlink`.
    package static func removeFile(_ path: String) throws(SystemCallError) {
        let (result, code) = retrying { unlink(path) }
        if result == -1, code != ENOENT { throw SystemCallError("unlink", path: path, errno: code) }
    }

    /// Creates one directory; an existing entry of that name is left alone.
    /// - Parameters:
    ///   - path: The directory.
    ///   - mode: Its mode; the umask applies.
    /// - Returns: Whether this call created it.
    /// - Throws: ``SystemCallError`` for `mkdir`.
    @discardableResult
    package static func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) -> Bool {
        let (result, code) = retrying { mkdir(path, mode_t(mode)) }
        if result == 0 { return true }
        if code == EEXIST { return false }
        throw SystemCallError("mkdir", path: path, errno: code)
    }

    /// Creates a directory and any missing parents with `mode` (the umask applies); an existing directory is fine.
    /// - Throws: ``SystemCallError`` for the `mkdir` or `stat` that failed, naming the component at fault; `ENOTDIR`
    ///   when `path` exists and is not a directory.
    package static func makeDirectories(_ path: String, mode: UInt32) throws(SystemCallError) {
        // Nearly always there already (every write makes sure of its directories): one `stat` then, not a `mkdir` per
        // component. Anything else takes the walk below, which names the component at fault.
        if let status = try? fileStatus(atPath: path, followsSymbolicLinks: true), status.kind == .directory {
            return
        }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            // String + String: `String + Substring` is the generic `+`, whose first call looks up the metadata of
            // its sequence types at run time (some 150 k instructions).
            prefix += "/" + String(component)
            try makeDirectory(prefix, mode: mode)
        }
        guard let status = try fileStatus(atPath: path, followsSymbolicLinks: true) else {
            throw SystemCallError("stat", path: path, errno: ENOENT)
        }
        guard status.kind == .directory else {
            throw SystemCallError("mkdir", path: path, errno: ENOTDIR, reason: "exists and is not a directory")
        }
    }

    /// The status of the file at a path.
    /// - Parameters:
    ///   - path: The path.
    ///   - followsSymbolicLinks: `stat` (follow a final symbolic link) or `lstat` (describe the link).
    /// - Returns: The status, or `nil` when nothing is there (`ENOENT`).
    /// - Throws: ``SystemCallError`` for `stat` or `lstat`.
    package static func fileStatus(
        atPath path: String, followsSymbolicLinks: Bool
    ) throws(SystemCallError) -> FileStatus? {
        var info = stat()
        let (result, code) = retrying { followsSymbolicLinks ? stat(path, &info) : lstat(path, &info) }
        if result == 0 { return FileStatus(info) }
        if code == ENOENT { return nil }
        throw SystemCallError(followsSymbolicLinks ? "stat" : "lstat", path: path, errno: code)
    }

    /// A path with every symbolic link, `.` and `..` resolved (`realpath`).
    /// - Throws: ``SystemCallError`` for `realpath` naming the path (`ENOENT` when a component or a link's target is
    ///   missing, `ELOOP` for a loop of links).
    package static func canonicalPath(_ path: String) throws(SystemCallError) -> String {
        guard let resolved = realpath(path, nil) else { throw SystemCallError("realpath", path: path, errno: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The names in a directory, without `.` and `..`; empty when the directory does not exist.
    /// - Parameter path: The directory.
    /// - Throws: ``SystemCallError`` for `opendir` naming the path (`EACCES`, `ELOOP`, …).
    package static func directoryEntries(_ path: String) throws(SystemCallError) -> [String] {
        guard let directory = opendir(path) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return [] }
            throw SystemCallError("opendir", path: path, errno: code)
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

    /// This machine's host name (`gethostname`), or `nil` when it has none.
    package static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// Seconds since 1970-01-01 UTC, from the real-time clock.
    package static func currentTimeSince1970() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Why this process may not create files in the directory `path`: the `errno` of `faccessat(W_OK | X_OK)`
    /// with the effective ids (`EROFS`, `EACCES`, `ENOENT`), or `nil` when it may.
    package static func writeAccessError(_ path: String) -> Int32? {
        let (result, code) = retrying { faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS) }
        return result == 0 ? nil : code
    }

    /// Whether a path names an existing directory (following symbolic links, as a path lookup does).
    /// - Parameter path: The path.
    package static func isDirectory(_ path: String) -> Bool {
        (try? fileStatus(atPath: path, followsSymbolicLinks: true))??.kind == .directory
    }
}

extension FileStatus {
    fileprivate init(_ info: stat) {
        let kind: Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFSOCK: kind = .socket
        default: kind = .other
        }
        self.init(
            kind: kind, ownerID: UInt32(info.st_uid), permissions: UInt32(info.st_mode & 0o7777),
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modificationSeconds: Int64(info.st_mtim.tv_sec), modificationNanoseconds: Int64(info.st_mtim.tv_nsec))
    }
}
