// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsPOSIX

/// Where a command's output goes and its standard input comes from: the process's streams, or a buffer in tests.
protocol Console: Sendable {
    /// Writes bytes to standard output.
    /// - Throws: ``DefaultsError`` with code `.io` when standard output refuses them.
    func writeOutput(_ bytes: [UInt8]) throws(DefaultsError)
    /// Writes text to standard error; failures are ignored, as there is nowhere left to report them.
    func writeError(_ text: String)
    /// Reads standard input to its end, up to a size.
    /// - Throws: `SystemCallError` when it cannot be read, and with `EFBIG` when it holds more than `maxBytes`.
    func readInput(maxBytes: Int) throws(SystemCallError) -> [UInt8]
}

extension Console {
    /// Writes text to standard output.
    func writeOutput(_ text: String) throws(DefaultsError) {
        try writeOutput(Array(text.utf8))
    }
}

/// The process's own standard streams, written without buffering so that `watch` lines appear at once.
struct ProcessConsole: Console {
    func writeOutput(_ bytes: [UInt8]) throws(DefaultsError) {
        do {
            try POSIX.writeAll(bytes, to: POSIX.standardOutput, name: nil)
        } catch {
            throw DefaultsError(.io, "defaults: cannot write to standard output: \(error.message)", cause: error)
        }
    }

    func writeError(_ text: String) {
        POSIX.writeToStandardError(text)
    }

    func readInput(maxBytes: Int) throws(SystemCallError) -> [UInt8] {
        try POSIX.readAll(from: POSIX.standardInput, name: "standard input", maxBytes: maxBytes)
    }
}
