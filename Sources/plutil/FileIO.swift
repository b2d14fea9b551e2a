#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file and stream operations `plutil` needs. Every C call of this module lives here; each retries
/// on EINTR and reads `errno` at once.
enum FileIO {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads a whole file, or standard input for `-`.
    static func read(path: String) throws(Failure) -> [UInt8] {
        let descriptor: Int32
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC) }
            guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var bytes: [UInt8] = []
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(description: "\(path) is a directory")
        }
        if status.st_size > 0 { bytes.reserveCapacity(Int(status.st_size)) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                retrying { Glibc.read(descriptor, raw.baseAddress, raw.count) }
            }
            if count < 0 { throw failure("cannot read \(path)") }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    /// Replaces `path` atomically: a temp file in the same directory, fsync, rename, fsync of the directory.
    /// A new file gets mode 0644 (less the umask); an existing one keeps its mode.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let directoryPath = directory.isEmpty ? "/" : directory
        var existing = stat()
        let mode: mode_t = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : 0o644
        var template = Array("\(directoryPath)/.plutil-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("cannot create a temporary file in \(directoryPath)") }
        let temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer {
            if !succeeded { unlink(temporaryPath) }
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, mode) == 0 else { throw failure("cannot set the mode of \(temporaryPath)") }
        try writeAll(bytes, to: descriptor, what: temporaryPath)
        guard retrying({ fsync(descriptor) }) == 0 else { throw failure("cannot sync \(temporaryPath)") }
        guard rename(temporaryPath, path) == 0 else { throw failure("cannot replace \(path)") }
        succeeded = true
        let directoryDescriptor = retrying { open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if directoryDescriptor >= 0 {
            _ = retrying { fsync(directoryDescriptor) }
            close(directoryDescriptor)
        }
    }

    /// Writes to standard output.
    static func writeStandardOutput(_ bytes: [UInt8]) throws(Failure) {
        try writeAll(bytes, to: STDOUT_FILENO, what: "standard output")
    }

    /// Writes a line to standard output.
    static func printLine(_ text: String) {
        try? writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO, what: "standard output")
    }

    /// Writes a line to standard error.
    static func printError(_ text: String) {
        try? writeAll(Array((text + "\n").utf8), to: STDERR_FILENO, what: "standard error")
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, what: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                retrying { write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            }
            guard written > 0 else { throw failure("cannot write \(what)") }
            offset += written
        }
    }

    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    private static func failure(_ what: String) -> Failure {
        let code = errno
        return Failure(description: "\(what): \(String(cString: strerror(code)))")
    }
}
