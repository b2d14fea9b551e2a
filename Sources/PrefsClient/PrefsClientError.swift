// SPDX-License-Identifier: Apache-2.0
@_exported public import PrefsErrors
public import PrefsWire

/// The error every operation of ``PrefsBlockingClient`` throws.
///
/// ``code`` says what kind of failure it is; ``serverError`` holds the daemon's answer when the daemon refused the
/// request (its stable `code`, its message, and the limit, field, path or version concerned).
public struct PrefsClientError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case daemonUnavailable, connectionLost, refused, protocolViolation, timedOut, outcomeUnknown
        }
        private let base: Base

        /// No daemon answers on the socket (it is not running, or the path is wrong); the message names the path.
        public static let daemonUnavailable = Code(base: .daemonUnavailable)
        /// The connection broke before the request was sent whole, or had broken before it: the daemon did not apply
        /// it. A broken connection stays broken; open a new client.
        public static let connectionLost = Code(base: .connectionLost)
        /// The daemon answered with an error; ``PrefsClientError/serverError`` holds it.
        public static let refused = Code(base: .refused)
        /// The daemon sent something this client cannot read.
        public static let protocolViolation = Code(base: .protocolViolation)
        /// No reply arrived within the configured timeout.
        public static let timedOut = Code(base: .timedOut)
        /// The request was sent whole, but the connection ended (or no reply came within the timeout) before its
        /// reply: the daemon may or may not have applied it. A write is never retried on this error, so that a retried
        /// increment cannot count twice; read the domain again to learn what happened.
        public static let outcomeUnknown = Code(base: .outcomeUnknown)

        /// The code's name, such as `refused`.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem and the socket, domain or key involved.
    public var message: String
    /// The daemon's error, for ``Code/refused`` (and for a `closing` event that ended the connection).
    public var serverError: WireError?
    /// The underlying failure, when another layer failed first.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    ///   - serverError: The daemon's error, if it sent one.
    ///   - cause: The underlying failure, if any.
    public init(
        _ code: Code, _ message: String, serverError: WireError? = nil, cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.serverError = serverError
        self.cause = cause
    }

    /// The error for a refusal by the daemon.
    static func refused(_ error: WireError) -> PrefsClientError {
        PrefsClientError(.refused, "prefsd refused the request: \(error.code): \(error.message)", serverError: error)
    }
}
