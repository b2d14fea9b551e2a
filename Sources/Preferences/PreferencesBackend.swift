import PrefsPlist
import PrefsStore

/// Where a ``Preferences`` instance's persistent domains live: the seam between the facade and its storage.
///
/// Every backend keeps a local ``PreferencesStore``, its ``engine``, which holds the domains this process sees and
/// gives the facade its semantics in one code path: search lists and their cached effective views (the hot read
/// path is one lock and one hash lookup in an `EffectiveView`), the registration and argument layers (which are
/// process-local in every backend), limits, and change events. Writes, explanations and durability go through the
/// backend, which decides where they land:
///
/// - ``StoreBackend`` on an engine with files (embedded mode): the engine itself reads, writes, locks and watches
///   the domain files.
/// - ``StoreBackend`` on an in-memory engine: nothing touches the disk.
/// - A daemon backend (to come, in `PrefsClient`) keeps an in-memory engine as its cache: it fills each domain
///   from `prefsd`'s subscription snapshot (`PreferencesStore.setStoredContents`) and applies the subscription's
///   events the same way, so the views stay coherent with other processes; it applies each write to the engine
///   first (read-your-writes, and local observers fire at once) and forwards it to the daemon; its
///   ``synchronize()`` waits for the daemon's durable `synchronize` reply; its ``resolve(_:in:)`` asks the daemon's
///   `getEffective` for the file paths. The facade picks it when the daemon's socket answers.
package protocol PreferencesBackend: AnyObject, Sendable, CustomStringConvertible {
    /// The local store that holds the domains this process sees.
    var engine: PreferencesStore { get }

    /// Sets or removes one key of a writable domain.
    /// - Throws: ``PrefsStoreError`` when the store refuses the write (read-only layer, limit, unavailable).
    func set(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsStoreError)

    /// A domain's stored keys and values, or `nil` when it does not exist.
    /// - Throws: ``PrefsStoreError`` when the domain's storage cannot be read.
    func persistentDomain(_ domain: DomainID) throws(PrefsStoreError) -> [String: PlistValue]?

    /// Replaces a writable domain's contents; an empty dictionary removes the domain.
    /// - Throws: ``PrefsStoreError`` when the store refuses the write.
    func setPersistentDomain(_ values: [String: PlistValue], for domain: DomainID) throws(PrefsStoreError)

    /// Explains a key's effective value in a search list: the winning layer and file, the shadowed values, and the
    /// layers that could not be read.
    func resolve(_ key: String, in searchList: SearchList) -> Resolution

    /// Makes every change durable and reads in changes made elsewhere.
    /// - Throws: ``PrefsStoreError`` for the first domain that could not be written.
    func synchronize() throws(PrefsStoreError)

    /// Makes the domains of a search list available in ``engine`` before a view of it is made (the daemon backend
    /// fills its cache from the daemon); the engine on files needs nothing.
    func prepare(_ searchList: SearchList)
}

extension PreferencesBackend {
    func prepare(_ searchList: SearchList) {}
}
