#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every C call of the `defaults` command: standard streams, whole-file reads and atomic writes, the working
/// directory, the host name and the environment. Each call is retried on `EINTR`, and `errno` is read at once.
enum SystemCalls {
    /// A failed system call: what was attempted and the `errno` text.
    struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was attempted and why it failed, such as `cannot open /x: No such file or directory`.
        let description: String
        /// The `errno` value.
        let code: Int32

        /// The `errno` text alone, such as `No such file or directory`.
        var reason: String { SystemCalls.errorText(code) }
    }

    /// Writes every byte to a descriptor.
    /// - Throws: ``Failure`` when the descriptor refuses them (a closed pipe, a full disk).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let (written, code) = bytes.withUnsafeBytes { raw in
                retrying { write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            }
            guard written > 0 else { throw Failure(description: "cannot write: \(errorText(code))", code: code) }
            offset += written
        }
    }

    /// Writes every byte to standard output.
    static func writeStandardOutput(_ bytes: [UInt8]) throws(Failure) {
        try writeAll(bytes, to: STDOUT_FILENO)
    }

    /// Writes every byte to standard error.
    static func writeStandardError(_ bytes: [UInt8]) throws(Failure) {
        try writeAll(bytes, to: STDERR_FILENO)
    }

    /// Reads a descriptor to its end.
    static func readAll(from descriptor: Int32, what: String) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (count, code) = buffer.withUnsafeMutableBytes { raw in
                retrying { read(descriptor, raw.baseAddress, raw.count) }
            }
            if count < 0 { throw Failure(description: "cannot read \(what): \(errorText(code))", code: code) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// Reads standard input to its end.
    static func readStandardInput() throws(Failure) -> [UInt8] {
        try readAll(from: STDIN_FILENO, what: "standard input")
    }

    /// Reads a whole file.
    /// - Throws: ``Failure`` naming the path when it cannot be opened or read, or is a directory.
    static func readFile(_ path: String) throws(Failure) -> [UInt8] {
        let (descriptor, openCode) = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path): \(errorText(openCode))", code: openCode)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw Failure(description: "\(path) is a directory", code: EISDIR)
        }
        return try readAll(from: descriptor, what: path)
    }

    /// Replaces a file atomically: a temp file in the same directory, `fsync`, `rename`, `fsync` of the directory.
    ///
    /// A new file gets mode 0666 less the umask (0644 with the usual umask), as `defaults export` does on macOS; an
    /// existing file keeps its mode.
    /// - Throws: ``Failure`` naming the path; the original file is then unchanged.
    static func writeFileAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let directoryPath = directory.isEmpty ? "/" : directory
        var existing = stat()
        let isNew = stat(path, &existing) != 0
        // open(2) applies the umask to a new file's 0666; an existing file's mode is set explicitly below.
        var descriptor: Int32 = -1
        var temporaryPath = ""
        var attempt = 0
        while descriptor < 0 {
            temporaryPath = "\(directoryPath)/.defaults-export-\(getpid())-\(attempt)"
            let (opened, code) = retrying { open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
            if opened >= 0 {
                descriptor = opened
            } else if code != EEXIST || attempt > 100 {
                throw Failure(
                    description: "cannot create a temporary file in \(directoryPath): \(errorText(code))", code: code)
            }
            attempt += 1
        }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporaryPath) }
        }
        if !isNew {
            let (changed, code) = retrying { fchmod(descriptor, existing.st_mode & 0o7777) }
            guard changed == 0 else {
                throw Failure(description: "cannot set the mode of \(temporaryPath): \(errorText(code))", code: code)
            }
        }
        do {
            try writeAll(bytes, to: descriptor)
        } catch {
            throw Failure(description: "cannot write \(temporaryPath): \(errorText(error.code))", code: error.code)
        }
        let (synced, syncCode) = retrying { fsync(descriptor) }
        guard synced == 0 else {
            throw Failure(description: "cannot sync \(temporaryPath): \(errorText(syncCode))", code: syncCode)
        }
        let (moved, renameCode) = retrying { rename(temporaryPath, path) }
        guard moved == 0 else {
            let code = renameCode
            throw Failure(description: "cannot replace \(path): \(errorText(code))", code: code)
        }
        renamed = true
        let (directoryDescriptor, _) = retrying { open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if directoryDescriptor >= 0 {
            _ = retrying { fsync(directoryDescriptor) }
            close(directoryDescriptor)
        }
    }

    /// Whether a path names an existing directory.
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The absolute path of the working directory, or `nil` when it cannot be determined (it was removed).
    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This machine's host name, as `hostname` prints it.
    static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An environment variable of this process.
    static func environmentVariable(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// A POSIX semaphore, so that the synchronous `main` can wait for the one command that runs asynchronously
    /// (`watch`) without starting Swift concurrency for every other command.
    final class Semaphore: @unchecked Sendable {
        // sem_t is safe to use from any thread; the pointer is created once and freed in deinit.
        private let semaphore: UnsafeMutablePointer<sem_t>

        init() {
            semaphore = .allocate(capacity: 1)
            sem_init(semaphore, 0, 0)
        }

        deinit {
            sem_destroy(semaphore)
            semaphore.deallocate()
        }

        /// Wakes one waiter.
        func signal() {
            sem_post(semaphore)
        }

        /// Waits until ``signal()`` is called, retrying when a signal handler interrupts the wait.
        func wait() {
            while sem_wait(semaphore) != 0 && errno == EINTR {}
        }
    }

    /// Ends the process with a status, running `atexit` handlers.
    static func exitProcess(_ status: Int32) -> Never {
        exit(status)
    }

    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> (result: T, errno: Int32) {
        while true {
            let result = call()
            if result != -1 { return (result, 0) }
            let code = errno
            if code != EINTR { return (result, code) }
        }
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
