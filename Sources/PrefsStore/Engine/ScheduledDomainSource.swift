// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist

/// A ``DomainSource`` the engine writes on its own schedule: within the flush delay, at `synchronize`, and at exit
/// (``FileDomains``, ``MemoryDomains``). Changes are the engine's until written; a write merges them, under the
/// domain's lock, with what the storage holds then.
protocol ScheduledDomainSource: DomainSource {
    /// The directories the engine's worker watches and writes in the background; `nil` when there is nothing to
    /// watch (memory), so that the engine starts no thread.
    var watchedPaths: StorePaths? { get }

    /// Reads a domain on its first use.
    func load(_ domain: DomainID) -> SourceLoad

    /// Reads a loaded domain's file again.
    func reload(_ location: FileLocation, domain: DomainID) -> DomainFile.Contents

    /// The identity of the file at a domain's location now, `nil` when there is none.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.ioFailure` when it cannot be examined.
    func identity(at location: FileLocation, of domain: DomainID) throws(PrefsStoreError) -> FileIdentity?

    /// Refuses, when the write is made rather than at the flush, a write that could not be made durable.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.ioFailure` naming the directory.
    func checkWritable(_ domain: DomainID) throws(PrefsStoreError)

    /// Runs `body` holding the domain's lock, which every writer of the domain holds.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` when the lock cannot be taken, or what `body` throws.
    func withDomainLock<Result>(
        _ domain: DomainID, _ body: () throws(PrefsStoreError) -> Result
    ) throws(PrefsStoreError) -> Result

    /// Writes a domain's unwritten changes, merged with what the storage holds now.
    /// - Parameter lockHeld: Whether the caller holds the domain's lock already (``withDomainLock(_:_:)``).
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` when the domain cannot be written; nothing changed.
    func write(_ plan: StoreState.FlushPlan, lockHeld: Bool) throws(PrefsStoreError) -> SourceWrite
}

/// A domain as a ``ScheduledDomainSource`` loads it.
struct SourceLoad {
    /// Its file; `nil` when it has none (memory; a by-host domain without a machine id).
    var location: FileLocation?
    /// Why ``location`` is `nil`, when it should have one.
    var locationError: PrefsStoreError?
    /// What the file holds.
    var contents: DomainFile.Contents
}

/// What a ``ScheduledDomainSource``'s write did.
struct SourceWrite {
    /// What the storage holds afterwards.
    var written: PlistDictionary
    /// The identity of the file written; `nil` when there is none.
    var identity: FileIdentity?
    /// Whether the storage had changed since the engine last knew it, so that other writers' changes are in.
    var readOtherWriters: Bool
    /// Whether a file was replaced or removed.
    var replacedFile = false
    /// What the write noticed on the way (a corrupt file it set aside), for the diagnostics handler.
    var notices: [StoreDiagnostic] = []
}
