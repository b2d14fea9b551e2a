// SPDX-License-Identifier: Apache-2.0
@_exported public import PrefsErrors
import PrefsPlist

/// The error the framing layer throws: a byte stream that is not a valid sequence of frames, or a message that
/// cannot be put into a frame.
///
/// A framing error ends the connection it happened on (and only that one): after it the stream has no
/// trustworthy frame boundary. ``wireError`` is what a server sends in its final `closing` event.
public struct PrefsWireError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case malformedFrame, limitExceeded, unencodable, timedOut
        }
        private let base: Base

        /// The bytes are not a frame: a zero length, a payload that is not a binary property list dictionary, or
        /// a stream that ended inside a frame.
        public static let malformedFrame = Code(base: .malformedFrame)
        /// A frame is larger, deeper or has more objects than the limits allow.
        public static let limitExceeded = Code(base: .limitExceeded)
        /// A message cannot be written as a binary property list.
        public static let unencodable = Code(base: .unencodable)
        /// A frame began to arrive but did not arrive whole in time.
        public static let timedOut = Code(base: .timedOut)

        /// The code's name, e.g. `malformedFrame`.
        public var description: String { "\(base)" }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem (and the limit, for ``Code/limitExceeded``).
    public var message: String
    /// The limit that was exceeded, when exactly one is to blame.
    public var limit: WireLimit?
    /// The underlying error, when another layer failed first (usually a `PlistError`).
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    ///   - limit: The limit that was exceeded, if one is to blame.
    ///   - cause: The underlying error, if any.
    public init(_ code: Code, _ message: String, limit: WireLimit? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.limit = limit
        self.cause = cause
    }

    /// The error as a peer should receive it, in a `closing` event before the connection is closed.
    public var wireError: WireError {
        if code == .limitExceeded {
            return WireError(.limitExceeded, description, limit: limit)
        }
        if code == .malformedFrame {
            return WireError(.malformedFrame, description)
        }
        if code == .timedOut {
            return WireError(.timedOut, description)
        }
        return WireError(.internal, description)
    }
}
