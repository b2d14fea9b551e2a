// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
package import PrefsPlist

/// Where a ``PreferencesStore``'s persistent domains are kept: the store is the engine (search lists, effective
/// views, the registration and argument layers, limits, change events, compare-and-set sequencing), and its source
/// loads domains, commits their changes and reports changes made elsewhere.
///
/// There are two kinds, by how a write reaches the storage:
/// - a source the engine writes on its own schedule, within the flush delay and at `synchronize` (the domain files,
///   `FileDomains`; memory only, `MemoryDomains`), which lives in this module;
/// - a source that commits each write before it returns (``CommittingDomainSource``: prefsd, through the access
///   layer's `DaemonDomains`).
package protocol DomainSource: AnyObject, Sendable, CustomStringConvertible {
    /// Whether a domain that is not loaded may hold anything, so that a read loads it; a read of a domain for which
    /// this is false answers "nothing" and keeps nothing in memory (a client asking for ever new names).
    func mayHold(_ domain: DomainID) -> Bool

    /// The names of the domains the source holds in a scope (the engine adds those with unwritten values).
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` when the storage cannot be listed.
    func domainNames(in scope: DomainScope) throws(PrefsStoreError) -> Set<DomainName>
}

/// A source that commits every write before it returns, and reports changes made elsewhere as they happen: the
/// engine is then a cache of the source's domains.
///
/// Each commit returns the domain's version at the source after it (the sequence number of its latest change
/// there); reports carry the version they reach. The engine applies a committed change at once, on top of what it
/// has, until a report of that version or later includes it: so a thread never reads an older value after its own
/// newer write, whichever of the acknowledgement and the report comes first.
package protocol CommittingDomainSource: DomainSource {
    /// Starts reporting changes to `events`; the engine calls this once, when it is made.
    func attach(_ events: DomainSourceEvents)

    /// Makes the domains ready to load (a daemon source subscribes to them, all on one connection); called before a
    /// domain is loaded, and again on later uses, so that a source that lost its storage can take it up again.
    func prepare(_ domains: [DomainID])

    /// A domain's values and version as the source has them now.
    func snapshot(of domain: DomainID) -> (values: PlistDictionary, version: UInt64)

    /// The file that holds a domain where the source keeps it, which explanations name.
    func path(of domain: DomainID) -> String?

    /// Commits a change to one domain.
    /// - Parameters:
    ///   - change: What to set, remove or replace.
    ///   - domain: A user or by-host domain.
    ///   - expectedVersion: Compare-and-set: change nothing unless the domain is at this version at the source.
    /// - Returns: The domain's version after the change.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` when the source refuses the change or cannot be reached; nothing
    ///   changed, unless its cause says the outcome is unknown.
    func commit(
        _ change: DomainChange, to domain: DomainID, expectedVersion: UInt64?
    ) throws(PrefsStoreError) -> UInt64

    /// Changes a domain atomically at the source: `body` edits the domain as it is there, and the edit is committed
    /// only if no other writer changed it in between; otherwise it runs again on the new contents.
    /// - Returns: What `body` returned on the attempt that committed, the domain's values after the commit (`nil`
    ///   when the edit changed nothing), and the domain's version.
    /// - Throws: ``/PrefsDomain/PrefsStoreError``: `.versionConflict` when every attempt lost a race.
    func update<Outcome>(
        _ domain: DomainID, maxAttempts: Int, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsStoreError) -> (outcome: Outcome, values: PlistDictionary?, version: UInt64)

    /// Changes one key atomically at the source.
    /// - Returns: The key's committed value and the domain's version.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` as ``update(_:maxAttempts:_:)``.
    func update(
        key: String, in domain: DomainID, maxAttempts: Int,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsStoreError) -> (value: PlistValue?, version: UInt64)

    /// Makes every committed change durable at the source.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` when the source could not.
    func synchronize() throws(PrefsStoreError)
}

/// A change a ``CommittingDomainSource`` commits.
package enum DomainChange: Sendable {
    /// Sets one key (`nil` removes it).
    case value(PlistValue?, forKey: String)
    /// Sets and removes several keys as one change.
    case values([PlistKey: PlistValue?])
    /// Replaces the domain's contents (empty removes the domain).
    case replacement(PlistDictionary)
}

/// How a ``CommittingDomainSource`` reports to its engine: changes made elsewhere, and problems met on the way.
///
/// It holds the engine weakly: a source outliving its engine reports to nobody.
package final class DomainSourceEvents: Sendable {
    private weak let engine: PreferencesStore?

    init(engine: PreferencesStore) {
        self.engine = engine
    }

    /// Reports a domain's values as of `version` at the source: the engine's changes committed at that version or
    /// earlier are in them and are dropped, newer ones stay on top, and observers receive an event for every key
    /// that differs. A domain the engine has not loaded is skipped: its first load takes the source's snapshot.
    /// - Parameters:
    ///   - values: The domain's contents at `version`.
    ///   - domain: The domain.
    ///   - version: The source's version of the domain.
    ///   - startsOver: Whether the engine forgets every committed change and version first (a new subscription, to a
    ///     source that restarted and counts versions from its own start again).
    package func changed(_ values: PlistDictionary, of domain: DomainID, version: UInt64, startsOver: Bool) {
        engine?.applySourceContents(values, of: domain, version: version, startsOver: startsOver)
    }

    /// Reports a problem to the engine's diagnostics handler.
    package func report(_ diagnostic: StoreDiagnostic) {
        engine?.configuration.diagnostics(diagnostic)
    }
}
