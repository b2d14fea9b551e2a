import PrefsPlist
import PrefsStore

/// The backend whose engine is also its storage: embedded mode (domain files, shared with other processes by
/// `flock` and inotify) or in-memory mode.
final class StoreBackend: PreferencesBackend {
    let engine: PreferencesStore

    init(engine: PreferencesStore) {
        self.engine = engine
    }

    var description: String {
        engine.isInMemory ? "in memory" : "files in \(engine.paths.preferencesDirectory)"
    }

    func set(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsStoreError) {
        try engine.set(value, forKey: key, in: domain)
    }

    func persistentDomain(_ domain: DomainID) throws(PrefsStoreError) -> [String: PlistValue]? {
        try engine.persistentDomain(domain)
    }

    func setPersistentDomain(_ values: [String: PlistValue], for domain: DomainID) throws(PrefsStoreError) {
        try engine.setPersistentDomain(values, for: domain)
    }

    func resolve(_ key: String, in searchList: SearchList) -> Resolution {
        engine.resolve(key, in: searchList)
    }

    func synchronize() throws(PrefsStoreError) {
        try engine.synchronize()
    }
}
