import PrefsStore
import Synchronization

/// The store's diagnostics, kept until the command prints them.
final class WarningLog: Sendable {
    private let entries = Mutex<[StoreDiagnostic]>([])

    /// Keeps a diagnostic.
    func append(_ diagnostic: StoreDiagnostic) {
        entries.withLock { $0.append(diagnostic) }
    }

    /// Returns the diagnostics kept so far and forgets them.
    func take() -> [StoreDiagnostic] {
        entries.withLock { entries in
            defer { entries = [] }
            return entries
        }
    }
}
