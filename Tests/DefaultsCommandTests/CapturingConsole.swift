// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
import Synchronization

@testable import DefaultsArguments
@testable import DefaultsCommand

/// Standard streams in memory.
final class CapturingConsole: Console {
    private let state = Mutex<(output: [UInt8], error: String)>(([], ""))
    private let input: [UInt8]

    init(input: String = "") {
        self.input = Array(input.utf8)
    }

    var output: String { state.withLock { String(decoding: $0.output, as: UTF8.self) } }
    var error: String { state.withLock { $0.error } }

    func writeOutput(_ bytes: [UInt8]) throws(DefaultsError) {
        state.withLock { $0.output += bytes }
    }

    func writeError(_ text: String) {
        state.withLock { $0.error += text }
    }

    func readInput(maxBytes: Int) throws(SystemCallError) -> [UInt8] {
        guard input.count <= maxBytes else { throw POSIX.tooLarge("standard input", maxBytes: maxBytes) }
        return input
    }
}
