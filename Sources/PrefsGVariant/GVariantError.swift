// SPDX-License-Identifier: Apache-2.0
/// The error reading GVariant text throws: what is wrong (``code``), in words (``message``), and where, as a byte
/// offset into the text (``offset``).
package struct GVariantError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, stable across releases; compare with the static members.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case syntax, unknownKeyword, typeMismatch, outOfRange, tooDeep
        }
        private let base: Base

        /// The text is not a value: an unexpected or missing token, an unterminated string, a bad escape or
        /// character in a number, invalid UTF-8, text after the value.
        package static let syntax = Code(base: .syntax)
        /// A word that is no keyword of the format (`int65 3`, `null`).
        package static let unknownKeyword = Code(base: .unknownKeyword)
        /// A type that cannot be inferred (`[]`), a declared type the value does not fit, elements with no common
        /// type, a dictionary key that is not of a basic type, a malformed `@type`.
        package static let typeMismatch = Code(base: .typeMismatch)
        /// A number outside the range of its type, or of every type.
        package static let outOfRange = Code(base: .outOfRange)
        /// Values or types nested deeper than ``GVariantType/maxDepth``.
        package static let tooDeep = Code(base: .tooDeep)

        package var description: String { base.rawValue }
    }

    /// The kind of failure.
    package var code: Code
    /// A sentence naming the problem.
    package var message: String
    /// The byte offset in the text where the problem is.
    package var offset: Int

    /// Creates an error.
    package init(_ code: Code, _ message: String, at offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// `unterminated string constant (at byte 4)`.
    package var description: String { "\(message) (at byte \(offset))" }
}
