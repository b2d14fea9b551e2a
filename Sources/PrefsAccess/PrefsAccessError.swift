// SPDX-License-Identifier: Apache-2.0
package import PrefsClient
import PrefsErrors
package import PrefsStore
import PrefsWire

/// The error every operation of the client-side access layer throws, whether it went to `prefsd` or to the files.
///
/// The store's errors and the daemon's answers are mapped to it here, once, so that `defaults` and the
/// `Preferences` library report the same failure the same way whichever route they took.
package struct PrefsAccessError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidName, readOnly, limitExceeded, corrupt, ioFailure, unavailable, invalidValue
            case versionConflict, outcomeUnknown
        }
        private let base: Base

        /// A domain name is not acceptable.
        package static let invalidName = Code(base: .invalidName)
        /// A write was aimed at a layer only its owner changes (forced, system, shipped).
        package static let readOnly = Code(base: .readOnly)
        /// A key, value or domain exceeds a limit; the message names it.
        package static let limitExceeded = Code(base: .limitExceeded)
        /// A domain's file is not a property-list dictionary.
        package static let corrupt = Code(base: .corrupt)
        /// A preferences file or directory could not be read or written.
        package static let ioFailure = Code(base: .ioFailure)
        /// The storage cannot be reached: `prefsd` does not answer, or something the operation needs is missing.
        package static let unavailable = Code(base: .unavailable)
        /// A value cannot be stored in a property list.
        package static let invalidValue = Code(base: .invalidValue)
        /// A compare-and-set write found the domain changed; for an update, after every allowed attempt.
        package static let versionConflict = Code(base: .versionConflict)
        /// A write reached `prefsd`, but its answer did not come back: it may or may not have been applied. It is
        /// never retried by this layer, so that an increment cannot count twice.
        package static let outcomeUnknown = Code(base: .outcomeUnknown)

        package var description: String { base.rawValue }
    }

    /// The kind of failure.
    package var code: Code
    /// A sentence naming the problem and the domain, key or file involved.
    package var message: String
    /// The domain file involved, when there is one.
    package var path: String?
    /// The lower-level failure: a `PrefsStoreError` or a `PrefsClientError`.
    package var cause: (any Error & Sendable)?

    /// Creates an error.
    package init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    /// The message, as a user should see it.
    package var description: String { message }

    /// A store error, with its message; one that wraps this layer's own error (an engine on prefsd, which
    /// ``DaemonDomains`` feeds) is that error again.
    package init(_ error: PrefsStoreError) {
        if let access = error.cause as? PrefsAccessError {
            self = access
            return
        }
        let code: Code =
            switch error.code {
            case .invalidDomainName: .invalidName
            case .readOnlyDomain: .readOnly
            case .limitExceeded: .limitExceeded
            case .corruptFile: .corrupt
            case .ioFailure: .ioFailure
            case .encodingFailed, .invalidValue: .invalidValue
            case .versionConflict: .versionConflict
            default: .unavailable
            }
        self.init(code, error.description, path: error.path, cause: error)
    }

    /// Whether `prefsd` was there but did not accept the connection or answer `hello` in time: nothing but the
    /// greeting was sent to it, so nothing was applied.
    package var isHandshakeTimeout: Bool {
        guard let client = cause as? PrefsClientError, client.code == .daemonUnavailable else { return false }
        return (client.cause as? PrefsClientError)?.code == .timedOut
    }

    /// A client error: the daemon's refusal with its own message, or what happened to the connection.
    package init(_ error: PrefsClientError) {
        if error.code == .outcomeUnknown {
            self.init(.outcomeUnknown, error.message, cause: error)
            return
        }
        guard let server = error.serverError, error.code == .refused else {
            self.init(.unavailable, error.description, cause: error)
            return
        }
        let code: Code =
            switch server.code {
            case .invalidName: .invalidName
            case .readOnly: .readOnly
            case .limitExceeded: .limitExceeded
            case .versionConflict: .versionConflict
            case .badRequest: .invalidValue
            // The daemon could not write its files (disk full, read-only): as on the files, an I/O failure.
            case .storeUnavailable: .ioFailure
            case .corruptDomain: .corrupt
            default: .unavailable
            }
        self.init(code, server.message, path: server.path, cause: error)
    }
}
