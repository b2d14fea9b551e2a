// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
package import PrefsPlist
package import PrefsStore

extension DomainAccess {
    /// Adopts another program's values for a domain as one atomic change (``update(_:maxAttempts:_:)``): keys the
    /// domain lacks are taken, keys set here stay as they are unless `overwrite` is true, nothing is removed.
    /// - Parameters:
    ///   - values: The other program's values (``MigrationSource/values(of:)``).
    ///   - domain: The domain here.
    ///   - overwrite: Whether a key set here to another value is replaced.
    ///   - dryRun: Whether to only compare, changing nothing.
    /// - Returns: What was (or, in a dry run, would be) taken, replaced, kept and unchanged.
    /// - Throws: ``PrefsAccessError`` from reading or writing the domain; nothing changes then.
    package func migrate(
        _ values: PlistDictionary, into domain: DomainID, overwrite: Bool, dryRun: Bool
    ) throws(PrefsAccessError) -> MigrationPlan {
        if dryRun {
            return MigrationPlan(source: values, current: try self.values(of: domain) ?? [:], overwrite: overwrite)
        }
        return try update(domain) { current in
            let plan = MigrationPlan(source: values, current: current, overwrite: overwrite)
            plan.apply(values, to: &current)
            return plan
        }.outcome
    }

    /// Whether a domain was adopted from a source before (``MigrationRecord``).
    /// - Throws: ``PrefsAccessError`` when the record cannot be read.
    package func hasMigrated(_ domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError) -> Bool {
        try values(of: MigrationRecord.domain)?[MigrationRecord.key(for: domain, from: kind)] != nil
    }

    /// Records that domains were adopted from sources, with the time (``MigrationRecord``).
    /// - Throws: ``PrefsAccessError`` when the record cannot be written.
    package func recordMigrations(
        _ adopted: [(domain: DomainName, kind: MigrationSource.Kind)]
    ) throws(PrefsAccessError) {
        guard !adopted.isEmpty else { return }
        let now = PlistValue.date(PlistDate(secondsSince1970: POSIX.currentTimeSince1970().rounded(.down)))
        var changes: [PlistKey: PlistValue?] = [:]
        for (domain, kind) in adopted { changes[PlistKey(MigrationRecord.key(for: domain, from: kind))] = .some(now) }
        try setValues(changes, in: MigrationRecord.domain)
    }
}

/// Where adoptions are recorded: the domain `preferences.migrations`, one key per adopted domain and source
/// (`foundation:com.example.Editor`), holding the date. `Preferences(…migratingFrom:)` adopts a domain only when it
/// has no record, so settings deleted after an adoption are not adopted again; `defaults delete
/// preferences.migrations` (or one key of it) lets it adopt again.
package enum MigrationRecord {
    /// `preferences.migrations`.
    package static let domain = DomainID(try! DomainName("preferences.migrations"))

    /// `foundation:com.example.Editor`.
    package static func key(for domain: DomainName, from kind: MigrationSource.Kind) -> String {
        kind.rawValue + ":" + domain.rawValue
    }
}
