// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
import PrefsPlist

/// The file and stream operations `plutil` needs, on `PrefsPOSIX`, with failures worded as `plutil` prints them
/// (`cannot open /x: No such file or directory`).
enum FileIO {
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ error: SystemCallError) {
            description =
                error.isTooLarge
                ? "\(error.message), the most plutil reads (the property-list readers' limit, 256 MiB)"
                : error.message
        }
    }

    /// The most `plutil` reads from a file, a device, a pipe or standard input: the readers' own limit
    /// (`PlistLimits.default.maxInputBytes`, 256 MiB), so `/dev/zero` is refused after 256 MiB, not after all memory.
    static let maxInputBytes = PlistLimits.default.maxInputBytes

    /// Reads a whole file, or standard input for `-`, up to ``maxInputBytes``.
    static func read(path: String) throws(Failure) -> [UInt8] {
        do {
            return path == "-"
                ? try POSIX.readAll(from: POSIX.standardInput, name: "-", maxBytes: maxInputBytes)
                : try POSIX.readFile(path, maxBytes: maxInputBytes)
        } catch {
            throw Failure(error)
        }
    }

    /// Writes `path` as `cp` would: a regular (or new) file is replaced atomically (a temp file in the same
    /// directory, fsync, rename, fsync of the directory), a symbolic link is followed and its target replaced, and a
    /// device or FIFO is written in place, never replaced. A new file gets mode 0644 (less the umask); an existing one
    /// keeps its mode.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        do {
            try POSIX.writeUserFile(bytes, to: path, newFileMode: 0o644)
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
