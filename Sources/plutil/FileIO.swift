import PrefsPOSIX

/// The file and stream operations `plutil` needs, on `PrefsPOSIX`, with failures worded as `plutil` prints them
/// (`cannot open /x: No such file or directory`).
enum FileIO {
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ error: SystemCallError) {
            description = error.message
        }
    }

    /// Reads a whole file, or standard input for `-`.
    static func read(path: String) throws(Failure) -> [UInt8] {
        do {
            return path == "-" ? try POSIX.readAll(from: POSIX.standardInput, name: "-") : try POSIX.readFile(path)
        } catch {
            throw Failure(error)
        }
    }

    /// Replaces `path` atomically: a temp file in the same directory, fsync, rename, fsync of the directory.
    /// A new file gets mode 0644 (less the umask); an existing one keeps its mode.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        do {
            try POSIX.writeFileAtomically(
                bytes, to: path, newFileMode: 0o644, keepsExistingMode: true, directorySyncIsRequired: false)
        } catch {
            throw Failure(error)
        }
    }

    /// Writes to standard output.
    static func writeStandardOutput(_ bytes: [UInt8]) throws(Failure) {
        do {
            try POSIX.writeAll(bytes, to: POSIX.standardOutput, name: "standard output")
        } catch {
            throw Failure(error)
        }
    }

    /// Writes a line to standard output.
    static func printLine(_ text: String) {
        try? POSIX.writeAll(Array((text + "\n").utf8), to: POSIX.standardOutput, name: "standard output")
    }

    /// Writes a line to standard error.
    static func printError(_ text: String) {
        POSIX.writeToStandardError(text + "\n")
    }
}
