// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
@_exported public import PrefsErrors
import PrefsStore

/// The error every throwing operation of `Preferences` throws.
///
/// ``code`` says what kind of failure it is, ``message`` names the domain, key or file involved, and ``cause``
/// holds the lower-level failure (a system call's errno text, a parser's line and column). Two codes tell the
/// questions "is the store there?" and "is the key there?" apart: a key that is absent is not an error at all (the
/// throwing getters return `nil`), while ``Code/storeUnavailable`` and ``Code/corrupt`` mean the answer could not be
/// known.
public struct PreferencesError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case storeUnavailable, corrupt, readOnly, limitExceeded, invalidName, invalidValue, typeMismatch
            case invalidArgument, conflict, outcomeUnknown, migrated
        }
        private let base: Base

        /// The preferences could not be read or written: a file or directory is unreadable, is a symbolic link,
        /// cannot be created, or the machine id that names by-host files is missing.
        public static let storeUnavailable = Code(base: .storeUnavailable)
        /// A domain's file exists but is not a property-list dictionary; it was skipped (and is set aside, never
        /// overwritten, before the next write to that domain).
        public static let corrupt = Code(base: .corrupt)
        /// The write was refused: the key is forced by the administrator, or the domain is read-only.
        public static let readOnly = Code(base: .readOnly)
        /// A key, value or domain exceeds a limit; the message names the limit.
        public static let limitExceeded = Code(base: .limitExceeded)
        /// A domain or suite name is empty, too long, or not made of `A–Z a–z 0–9 . _ -`.
        public static let invalidName = Code(base: .invalidName)
        /// A value is not a property-list value (or a `Codable` value failed to encode as one).
        public static let invalidValue = Code(base: .invalidValue)
        /// A stored value cannot be read as the type asked for.
        public static let typeMismatch = Code(base: .typeMismatch)
        /// A command-line argument is not part of a well-formed `-key value` pair.
        public static let invalidArgument = Code(base: .invalidArgument)

        /// An atomic update (``Preferences/update(forKey:_:)``) lost the race to other writers on every attempt;
        /// nothing was changed.
        public static let conflict = Code(base: .conflict)
        /// A write reached `prefsd`, but its answer was lost (the daemon stopped, or did not answer in time): it may
        /// or may not have been applied. It is never retried on its own, so that an increment cannot count twice;
        /// read the key again to learn what happened.
        public static let outcomeUnknown = Code(base: .outcomeUnknown)

        /// Not a failure: the settings another program wrote for the domain were adopted, once
        /// (``Preferences/init(domain:suites:migratingFrom:storage:)``); the message says what was taken and kept.
        /// Only the diagnostics handler receives it.
        public static let migrated = Code(base: .migrated)

        /// The code's name, such as `storeUnavailable`.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem and the domain, key or file involved.
    public var message: String
    /// The file involved, when there is one.
    public var path: String?
    /// The underlying failure, when another layer failed first.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem and the domain, key or file involved.
    ///   - path: The file involved, if any.
    ///   - cause: The underlying failure, if any.
    public init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }
}

extension PreferencesError {
    /// The facade's view of a store failure: the same message, file and cause under the matching code.
    init(_ error: PrefsStoreError) {
        // An engine on prefsd wraps the access layer's error, which has its own mapping.
        if let access = error.cause as? PrefsAccessError {
            self.init(access)
            return
        }
        let code: Code =
            switch error.code {
            case .invalidDomainName: .invalidName
            case .readOnlyDomain: .readOnly
            case .limitExceeded: .limitExceeded
            case .corruptFile, .invalidSchema: .corrupt
            case .encodingFailed: .invalidValue
            default: .storeUnavailable
            }
        self.init(code, error.message, path: error.path, cause: error.cause)
    }
}

extension PreferencesError {
    init(_ error: PrefsAccessError) {
        let code: Code =
            switch error.code {
            case .invalidName: .invalidName
            case .readOnly: .readOnly
            case .limitExceeded: .limitExceeded
            case .corrupt: .corrupt
            case .invalidValue: .invalidValue
            case .versionConflict: .conflict
            case .outcomeUnknown: .outcomeUnknown
            default: .storeUnavailable
            }
        // The store's own error keeps its message and cause apart, as its other conversions do.
        if let store = error.cause as? PrefsStoreError {
            self.init(store)
            self.code = code
            return
        }
        self.init(code, error.message, path: error.path, cause: error.cause)
    }
}
