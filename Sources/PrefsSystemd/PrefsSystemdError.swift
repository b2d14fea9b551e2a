// SPDX-License-Identifier: Apache-2.0
@_exported public import PrefsErrors
import PrefsPOSIX

/// The error every API in `PrefsSystemd` throws.
///
/// It says what went wrong (``code``), in words that name the problem (``message``), and which system call failed
/// underneath, if one did (``cause``: the call, its `errno` and the reason).
public struct PrefsSystemdError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case activationFailed, unsupportedSocket, unexpectedSocketCount, notifyFailed
        }
        private let base: Base

        /// The descriptors systemd passed could not be read (`LISTEN_FDS` is malformed, say).
        public static let activationFailed = Code(base: .activationFailed)
        /// A passed descriptor is not a listening `AF_UNIX` stream socket.
        public static let unsupportedSocket = Code(base: .unsupportedSocket)
        /// systemd passed more sockets than the caller can serve.
        public static let unexpectedSocketCount = Code(base: .unexpectedSocketCount)
        /// A message could not be sent to the service manager's `NOTIFY_SOCKET`.
        public static let notifyFailed = Code(base: .notifyFailed)

        /// The code's name, such as `notifyFailed`.
        public var description: String { "\(base)" }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem.
    public var message: String
    /// The underlying error, when a lower layer failed first.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    ///   - cause: The underlying error, if any.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
