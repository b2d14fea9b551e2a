// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX

/// Something the store noticed and could not report through a return value: a corrupt file it skipped or set
/// aside, a background write that failed.
///
/// ``StoreConfiguration/diagnostics`` receives these; by default they are written to standard error. The daemon
/// sends them to the journal.
public struct StoreDiagnostic: Sendable, CustomStringConvertible {
    /// How serious the problem is.
    public enum Severity: String, Sendable, Hashable {
        /// Data is safe; something was skipped or set aside.
        case warning
        /// A write failed; the change is still pending in memory and will be retried.
        case error
    }

    /// How serious the problem is.
    public var severity: Severity
    /// The domain involved, when there is one.
    public var domain: DomainID?
    /// What happened, naming the file and, for a parse failure, the line and reason.
    public var error: PrefsStoreError

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - severity: How serious the problem is.
    ///   - domain: The domain involved, if any.
    ///   - error: What happened.
    public init(severity: Severity, domain: DomainID?, error: PrefsStoreError) {
        self.severity = severity
        self.domain = domain
        self.error = error
    }

    /// `preferences: warning: …`.
    public var description: String { "preferences: \(severity.rawValue): \(error)" }

    /// Writes the diagnostic as one line to standard error (the default handler).
    public static let writeToStandardError: @Sendable (StoreDiagnostic) -> Void = { diagnostic in
        POSIX.writeToStandardError(diagnostic.description + "\n")
    }
}
