// SPDX-License-Identifier: Apache-2.0
import PrefsErrors

/// The error the terminal browser throws: what went wrong (``code``), in a sentence naming the domain, key or
/// terminal involved (``message``), and the lower-level failure, if any (``cause``).
package struct BrowserError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case terminal, usage, storage, invalidValue
        }
        private let base: Base

        /// The terminal cannot show the browser (`TERM=dumb`, not a terminal, ncurses refused it).
        package static let terminal = Code(base: .terminal)
        /// The command line is wrong.
        package static let usage = Code(base: .usage)
        /// The preferences could not be read or written.
        package static let storage = Code(base: .storage)
        /// Typed input is not a value of the key's type.
        package static let invalidValue = Code(base: .invalidValue)

        package var description: String { base.rawValue }
    }

    /// The kind of failure.
    package var code: Code
    /// A sentence naming the problem.
    package var message: String
    /// The underlying failure, when another layer failed first.
    package var cause: (any Error & Sendable)?

    /// Creates an error.
    package init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The message, as the user sees it (the cause's own words are in it already).
    package var description: String { message }
}
