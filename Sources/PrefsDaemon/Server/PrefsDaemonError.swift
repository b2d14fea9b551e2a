// SPDX-License-Identifier: Apache-2.0
@_exported public import PrefsErrors
import PrefsPOSIX

/// The error the daemon's start-up and socket handling throw.
///
/// Errors about requests travel to clients as `WireError`s; this type covers what stops the daemon itself: a
/// socket path it may not use, another daemon already serving it, activation that went wrong, bad settings.
public struct PrefsDaemonError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unsafeSocketDirectory, socketInUse, directoryInUse, bindFailed, activationFailed, invalidSetting
            case systemCallFailed
        }
        private let base: Base

        /// The socket's directory is not the user's own with mode 0700 (or is not a directory at all).
        public static let unsafeSocketDirectory = Code(base: .unsafeSocketDirectory)
        /// Another daemon holds the socket's lock or answers on the socket.
        public static let socketInUse = Code(base: .socketInUse)
        /// Another daemon serves the same Preferences directory (on another socket); one directory has one writer.
        public static let directoryInUse = Code(base: .directoryInUse)
        /// The socket could not be created or bound.
        public static let bindFailed = Code(base: .bindFailed)
        /// The socket systemd passed cannot be used.
        public static let activationFailed = Code(base: .activationFailed)
        /// A setting in the daemon's domain has the wrong type or an out-of-range value.
        public static let invalidSetting = Code(base: .invalidSetting)
        /// A system call failed; ``PrefsDaemonError/cause`` names it and its errno.
        public static let systemCallFailed = Code(base: .systemCallFailed)

        /// The code's name, such as `socketInUse`.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem and the path or setting involved.
    public var message: String
    /// The file or socket involved, when there is one.
    public var path: String?
    /// The underlying failure, when another layer failed first.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    ///   - path: The file or socket involved, if any.
    ///   - cause: The underlying failure, if any.
    public init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }
}
