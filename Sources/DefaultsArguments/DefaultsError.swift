// SPDX-License-Identifier: Apache-2.0
package import PrefsAccess
import PrefsErrors
package import PrefsStore

/// The error every part of the `defaults` command throws: what went wrong, the exact text for standard error, and
/// the exit status.
///
/// Messages that macOS `defaults` prints are reproduced byte for byte (without the `NSLog` time stamp), such as
/// `"\nDomain com.example.App does not exist\n"`; problems macOS has no message for start with `defaults: `.
package struct DefaultsError: CodedError {
    /// The kind of failure, stable across releases; compare with the static members.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case usage, notFound, invalidArgument, invalidValue, unsupported, corruptDomain, storage, io
        }
        private let base: Base

        /// The command line does not follow the syntax: the usage text goes to standard output, exit status 255.
        package static let usage = Code(base: .usage)
        /// The domain, key or key path does not exist.
        package static let notFound = Code(base: .notFound)
        /// An argument is well placed but not acceptable (a domain name with a space, an unknown host).
        package static let invalidArgument = Code(base: .invalidArgument)
        /// A value cannot be parsed or does not have the type the operation needs.
        package static let invalidValue = Code(base: .invalidValue)
        /// The operation exists on macOS but not here (`-app`).
        package static let unsupported = Code(base: .unsupported)
        /// A domain's file is not a property-list dictionary; it is left as it is until a write sets it aside.
        package static let corruptDomain = Code(base: .corruptDomain)
        /// The preferences could not be read or written; ``DefaultsError/cause`` holds the store's error.
        package static let storage = Code(base: .storage)
        /// A file or stream other than a domain could not be read or written (`import`, `export`).
        package static let io = Code(base: .io)

        package var description: String { base.rawValue }
    }

    /// The kind of failure.
    package var code: Code
    /// The exact text written to standard error, newlines included; empty for a usage error without a reason.
    package var message: String
    /// The domain file involved, when there is one.
    package var path: String?
    /// The lower-level failure, when there is one.
    package var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: The exact text for standard error; a final newline is added when it has none.
    ///   - path: The domain file involved, if any.
    ///   - cause: The lower-level failure, if any.
    package init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message.isEmpty || message.hasSuffix("\n") ? message : message + "\n"
        self.path = path
        self.cause = cause
    }

    /// A usage error: the usage text goes to standard output and, when there is one, the reason to standard error.
    /// - Parameter reason: What is wrong with the command line, or `nil` (as for `defaults` alone).
    package static func usage(_ reason: String?) -> DefaultsError {
        DefaultsError(.usage, reason.map { "defaults: \($0)" } ?? "")
    }

    /// The exit status: 255 for a usage error (as macOS `defaults` exits with -1), 1 for every other failure.
    package var exitStatus: Int32 { code == .usage ? 255 : 1 }

    /// The message without its final newline.
    package var description: String {
        message.hasSuffix("\n") ? String(message.dropLast()) : message
    }
}

extension DefaultsError {
    /// An access-layer error as the command reports it: `defaults: ` and the message naming the domain or file.
    package init(_ error: PrefsAccessError) {
        let code: Code =
            switch error.code {
            case .corrupt: .corruptDomain
            case .invalidName: .invalidArgument
            default: .storage
            }
        self.init(code, "defaults: \(error.message)", path: error.path, cause: error)
    }

    /// A problem the storage handled on its own, as a warning line: `defaults: warning: …`.
    package init(_ diagnostic: StoreDiagnostic) {
        self.init(
            .storage, "defaults: \(diagnostic.severity.rawValue): \(diagnostic.error)", path: diagnostic.error.path,
            cause: diagnostic.error)
    }
}
