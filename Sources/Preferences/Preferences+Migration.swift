// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore

extension Preferences {
    /// Creates the preferences of a domain, first adopting, once, the settings another program wrote for it.
    ///
    /// For an application moving from Foundation's `UserDefaults` (or from GNUstep) to `Preferences`: the first
    /// time, the domain's file there is read and its keys are added to the domain here, in one atomic change. Keys
    /// already set here are kept, nothing is removed, and the other program's file is left untouched. The adoption is
    /// recorded in the domain `preferences.migrations`, so it happens once: settings deleted afterwards stay deleted.
    /// The diagnostics handler of `storage` receives a ``PreferencesError/Code/migrated`` notice saying what was
    /// taken, or the error when the file cannot be read (nothing is recorded then, and the next instance tries again).
    /// `defaults migrate` does the same from the command line. In-memory storage adopts nothing.
    /// - Parameters:
    ///   - domain: The domain to read first and write to; the executable's (``applicationDomain``) by default, which
    ///     is also the name Foundation gives an application's standard domain.
    ///   - suites: Domains searched after it, in this order.
    ///   - source: Where the other program kept its settings.
    ///   - storage: Where the domains live.
    /// - Throws: ``PreferencesError`` with code `invalidName` for a name that is not a valid domain name.
    public convenience init(
        domain: String = Preferences.applicationDomain, suites: [String] = [],
        migratingFrom source: PreferencesMigrationSource, storage: PreferencesStorage = .default
    ) throws(PreferencesError) {
        try self.init(domain: domain, suites: suites, storage: storage)
        adoptOnce(from: source)
    }

    /// Creates the preferences of a suite, as ``init(suiteName:storage:)`` does, first adopting, once, the settings
    /// another program wrote for it (see ``init(domain:suites:migratingFrom:storage:)``).
    /// - Parameters:
    ///   - suiteName: The suite's domain; `nil` gives the application's domain.
    ///   - source: Where the other program kept its settings.
    ///   - storage: Where the domains live.
    /// - Returns: `nil` when the name is not a valid suite name, as ``init(suiteName:storage:)``.
    public convenience init?(
        suiteName: String?, migratingFrom source: PreferencesMigrationSource, storage: PreferencesStorage = .default
    ) {
        self.init(suiteName: suiteName, storage: storage)
        adoptOnce(from: source)
    }

    /// Adopts the source's file for this instance's domain unless it was adopted before.
    private func adoptOnce(from source: PreferencesMigrationSource) {
        guard !storage.isInMemory, let located = source.located else { return }
        let report = storage.handle.diagnostics
        do throws(PrefsAccessError) {
            // The file is looked for first: an application without one costs a failed open, not a read of the record.
            guard let values = try located.values(of: domainName) else { return }
            if try access.hasMigrated(domainName, from: located.kind) { return }
            let plan = try access.migrate(values, into: writeDomain, overwrite: false, dryRun: false)
            try access.recordMigrations([(domainName, located.kind)])
            report(
                PreferencesError(
                    .migrated, Self.describe(plan, of: domainName, from: located), path: located.path(of: domainName)))
        } catch {
            report(PreferencesError(error))
        }
    }

    /// `adopted the settings of com.example.App from foundation (/home/ada/.config/com.example.App.plist): took
    /// Count, Theme; kept Mode (set here)`.
    static func describe(_ plan: MigrationPlan, of domain: DomainName, from source: MigrationSource) -> String {
        "adopted the settings of \(domain.rawValue) from \(source.kind.rawValue) (\(source.path(of: domain))): "
            + plan.summary()
    }
}
