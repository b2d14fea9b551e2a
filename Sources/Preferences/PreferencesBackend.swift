// SPDX-License-Identifier: Apache-2.0
package import PrefsAccess
import PrefsPlist
package import PrefsStore

/// Where a ``Preferences`` instance's persistent domains live: the seam between the facade and the access layer.
///
/// Every backend keeps a local ``PreferencesStore``, its ``engine``, which holds the domains this process sees and
/// gives the facade its semantics in one code path: search lists and their cached effective views (the hot read
/// path is one lock and one hash lookup in an `EffectiveView`), the registration and argument layers (which are
/// process-local in every backend), limits, and change events. Writes, updates, explanations and durability go
/// through the access layer (`PrefsAccess`), which `defaults` uses too:
///
/// - ``StoreBackend``: the engine is the storage, on files (embedded mode) or in memory; its access is a
///   `FileAccess` on the engine.
/// - ``DaemonBackend``: the engine is an in-memory cache of `prefsd`'s domains, kept coherent by subscriptions; its
///   access is a `DaemonAccess`.
package protocol PreferencesBackend: AnyObject, Sendable, CustomStringConvertible {
    /// The local store that holds the domains this process sees.
    var engine: PreferencesStore { get }

    /// Sets or removes one key of a writable domain.
    /// - Throws: ``PrefsAccessError`` when the write is refused (read-only layer, limit, daemon unavailable).
    func set(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsAccessError)

    /// Changes one key atomically across threads and processes (``DomainAccess/update(key:in:maxAttempts:_:)``),
    /// and makes the result visible in ``engine`` at once.
    /// - Returns: The key's new value as this process sees it.
    /// - Throws: ``PrefsAccessError``, `.outcomeUnknown` included.
    func update(
        key: String, in domain: DomainID, _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> PlistValue?

    /// A domain's stored keys and values, or `nil` when it does not exist.
    /// - Throws: ``PrefsAccessError`` when the domain's storage cannot be read.
    func persistentDomain(_ domain: DomainID) throws(PrefsAccessError) -> PlistDictionary?

    /// Replaces a writable domain's contents; an empty dictionary removes the domain.
    /// - Throws: ``PrefsAccessError`` when the write is refused.
    func setPersistentDomain(_ values: PlistDictionary, for domain: DomainID) throws(PrefsAccessError)

    /// Explains a key's effective value in a search list: the winning layer and file, the shadowed values, and the
    /// layers that could not be read.
    func resolve(_ key: String, in searchList: SearchList) -> Resolution

    /// Makes every change durable and reads in changes made elsewhere.
    /// - Throws: ``PrefsAccessError`` for the first domain that could not be written.
    func synchronize() throws(PrefsAccessError)

    /// Adopts another program's values for a writable domain as one atomic change (keys set here are kept), and
    /// makes the result visible in ``engine`` at once.
    /// - Returns: What was taken and kept.
    /// - Throws: ``PrefsAccessError`` when the domain cannot be read or written; nothing changes then.
    func adopt(_ values: PlistDictionary, into domain: DomainID) throws(PrefsAccessError) -> MigrationPlan

    /// Whether a domain was adopted from a source before (`preferences.migrations`).
    /// - Throws: ``PrefsAccessError`` when the record cannot be read.
    func hasMigrated(_ domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError) -> Bool

    /// Records that a domain was adopted from a source.
    /// - Throws: ``PrefsAccessError`` when the record cannot be written.
    func recordMigration(of domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError)

    /// Makes the domains of a search list available in ``engine`` before a view of it is made (the daemon backend
    /// fills its cache from the daemon); the engine on files needs nothing.
    func prepare(_ searchList: SearchList)
}

extension PreferencesBackend {
    package func prepare(_ searchList: SearchList) {}
}
