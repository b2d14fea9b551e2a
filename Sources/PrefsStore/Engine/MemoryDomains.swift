// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist

/// Domains kept in memory only: the source of ``PreferencesStore/inMemory(configuration:)``.
///
/// Nothing is read, locked or watched. A domain starts empty (``PreferencesStore/setStoredContents(_:of:origin:)``
/// fills it), and a write counts the engine's changes as written: memory is the storage.
final class MemoryDomains: ScheduledDomainSource {
    var description: String { "memory" }

    var watchedPaths: StorePaths? { nil }

    func mayHold(_ domain: DomainID) -> Bool { false }

    func domainNames(in scope: DomainScope) throws(PrefsStoreError) -> Set<DomainName> { [] }

    func load(_ domain: DomainID) -> SourceLoad {
        SourceLoad(location: nil, contents: .missing)
    }

    func reload(_ location: FileLocation, domain: DomainID) -> DomainFile.Contents { .missing }

    func identity(at location: FileLocation, of domain: DomainID) throws(PrefsStoreError) -> FileIdentity? { nil }

    func checkWritable(_ domain: DomainID) throws(PrefsStoreError) {}

    func withDomainLock<Result>(
        _ domain: DomainID, _ body: () throws(PrefsStoreError) -> Result
    ) throws(PrefsStoreError) -> Result {
        // The engine's own locks order every change of a domain kept in memory.
        try body()
    }

    func write(_ plan: StoreState.FlushPlan, lockHeld: Bool) throws(PrefsStoreError) -> SourceWrite {
        var written = plan.replacement?.values ?? plan.knownDisk
        for (key, change) in plan.pending { written[key] = change.resolved(on: written[key]) }
        return SourceWrite(written: written, identity: nil, readOtherWriters: false)
    }
}
