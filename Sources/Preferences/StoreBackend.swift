// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore

/// The backend whose engine is also its storage: embedded mode (domain files, shared with other processes by
/// `flock` and inotify) or in-memory mode. Its access layer is a `FileAccess` on the engine.
final class StoreBackend: PreferencesBackend {
    let engine: PreferencesStore
    private let access: FileAccess

    init(engine: PreferencesStore) {
        self.engine = engine
        self.access = FileAccess(store: engine)
    }

    var description: String {
        engine.isInMemory ? "in memory" : "files in \(engine.paths.preferencesDirectory)"
    }

    func set(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsAccessError) {
        try access.setValue(value, forKey: key, in: domain)
    }

    func update(
        key: String, in domain: DomainID, _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> PlistValue? {
        try access.update(key: key, in: domain, transform).value
    }

    func persistentDomain(_ domain: DomainID) throws(PrefsAccessError) -> PlistDictionary? {
        do {
            return try engine.persistentDomain(domain)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    func setPersistentDomain(_ values: PlistDictionary, for domain: DomainID) throws(PrefsAccessError) {
        try access.replaceValues(of: domain, with: values)
    }

    func resolve(_ key: String, in searchList: SearchList) -> Resolution {
        engine.resolve(key, in: searchList)
    }

    func adopt(_ values: PlistDictionary, into domain: DomainID) throws(PrefsAccessError) -> MigrationPlan {
        try access.migrate(values, into: domain, overwrite: false, dryRun: false)
    }

    func hasMigrated(_ domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError) -> Bool {
        try access.hasMigrated(domain, from: kind)
    }

    func recordMigration(of domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError) {
        try access.recordMigrations([(domain, kind)])
    }

    func synchronize() throws(PrefsAccessError) {
        try access.synchronize()
    }
}
