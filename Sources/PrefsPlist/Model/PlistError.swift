// SPDX-License-Identifier: Apache-2.0
@_exported public import PrefsErrors

/// The error every reader, writer and coder in `PrefsPlist` throws.
///
/// It says what went wrong (``code``), in words that name the problem (``message``), where in the
/// input (``position``), and what lower-level error caused it, if any (``cause``).
public struct PlistError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case malformed, unknownFormat, invalidEncoding, limitExceeded, unrepresentable, typeMismatch
        }
        private let base: Base

        /// The input is not a well-formed property list of its format.
        public static let malformed = Code(base: .malformed)
        /// The input is not in any format this library reads.
        public static let unknownFormat = Code(base: .unknownFormat)
        /// The input's text is not valid in its character encoding.
        public static let invalidEncoding = Code(base: .invalidEncoding)
        /// The input exceeds a size, depth or object-count limit.
        public static let limitExceeded = Code(base: .limitExceeded)
        /// The value cannot be written in the requested format (a date in JSON, say).
        public static let unrepresentable = Code(base: .unrepresentable)
        /// A decoded value does not have the type the Codable model expects.
        public static let typeMismatch = Code(base: .typeMismatch)

        public var description: String { "\(base)" }
    }

    /// Where in the input a problem was found.
    public enum Position: Sendable, Hashable, CustomStringConvertible {
        /// A 1-based line and column in a text format.
        case text(line: Int, column: Int)
        /// A 0-based byte offset in a binary format.
        case byteOffset(Int)
        /// A coding path into a value, for `PlistEncoder` and `PlistDecoder`.
        case codingPath(String)

        public var description: String {
            switch self {
            case .text(let line, let column): "line \(line), column \(column)"
            case .byteOffset(let offset): "byte offset \(offset)"
            case .codingPath(let path): path.isEmpty ? "top level" : "coding path \(path)"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem.
    public var message: String
    /// Where in the input, when known.
    public var position: Position?
    /// The underlying error, when another layer failed first.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    ///   - position: Where in the input, when known.
    ///   - cause: The underlying error, if any.
    public init(_ code: Code, _ message: String, at position: Position? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.position = position
        self.cause = cause
    }

    /// The message with its position, as a user should see it.
    public var description: String {
        var text = message
        if let position { text += " (at \(position))" }
        if let cause { text += ": \(cause)" }
        return text
    }
}
