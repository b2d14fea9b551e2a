// SPDX-License-Identifier: Apache-2.0
@_exported public import PrefsErrors

/// The error every operation of `PrefsStore` throws, and the domain vocabulary beneath it (an invalid name).
///
/// It says what went wrong (``code``), in a sentence naming the domain, key or file involved
/// (``message``), and the lower-level failure, if any (``cause``: a system call error naming the call, the path and
/// the errno text, or a `PlistError` with the line and column of a broken file).
public struct PrefsStoreError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidDomainName, readOnlyDomain, limitExceeded, corruptFile, ioFailure, unavailable
            case encodingFailed, versionConflict, invalidValue, invalidSchema
        }
        private let base: Base

        /// A domain name is empty, too long, or holds characters a domain name may not have.
        public static let invalidDomainName = Code(base: .invalidDomainName)
        /// A write was aimed at a layer only an administrator changes (forced, system, shipped).
        public static let readOnlyDomain = Code(base: .readOnlyDomain)
        /// A key, value or domain exceeds one of the store's limits (`StoreLimits`); the message names the limit.
        public static let limitExceeded = Code(base: .limitExceeded)
        /// A domain file exists but is not a property list holding a dictionary.
        public static let corruptFile = Code(base: .corruptFile)
        /// A system call on a preferences file or directory failed; ``cause`` has the errno text.
        public static let ioFailure = Code(base: .ioFailure)
        /// Something the operation needs is missing (the machine id for by-host domains, a directory).
        public static let unavailable = Code(base: .unavailable)
        /// A value could not be written in any property-list format.
        public static let encodingFailed = Code(base: .encodingFailed)
        /// A compare-and-set write found the domain at another sequence number than expected; nothing changed.
        public static let versionConflict = Code(base: .versionConflict)
        /// A value breaks a rule of its domain (a setting out of its range); the message names the key, the value
        /// and the rule, and nothing changed.
        public static let invalidValue = Code(base: .invalidValue)
        /// A domain's schema file (docs/SCHEMAS.md) is not a property list, or breaks the schema format (an unknown
        /// type, a minimum above its maximum, a default its own rule refuses); the message names the file and the
        /// problem.
        public static let invalidSchema = Code(base: .invalidSchema)

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
    ///   - message: A sentence naming the problem.
    ///   - path: The file involved, if any.
    ///   - cause: The underlying failure, if any.
    public init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }
}
