// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
public import PrefsPlist
import Synchronization

extension PreferencesStore {
    /// A store that keeps every domain in memory only: it reads, writes, locks and watches no file.
    ///
    /// Everything else works as in a store on files: search lists, effective views, registration and argument
    /// layers, limits, change events and ``resolve(_:in:)`` (which names no file). Domains start empty;
    /// ``setStoredContents(_:of:origin:)`` fills any of them, read-only scopes included, as if its file held those
    /// values. `synchronize()` counts the changes as written. Apps use it for their own tests; a client of the
    /// daemon can use it as its local cache.
    ///
    /// - Parameter configuration: Limits and diagnostics; the flush delay, file watching and flush at exit do not
    ///   apply.
    /// - Returns: A new, empty store.
    public static func inMemory(configuration: StoreConfiguration = StoreConfiguration()) -> PreferencesStore {
        // `/dev/null/…` can never be a directory: a path that reached the file system by mistake would fail there.
        let paths = StorePaths(
            preferencesDirectory: "/dev/null/in-memory", systemDirectory: "/dev/null/in-memory/system",
            shippedDirectory: "/dev/null/in-memory/domains", machineID: inMemoryMachineID)
        return PreferencesStore(paths: paths, configuration: configuration, codec: .standard, isInMemory: true)
    }

    /// The machine id of an in-memory store, so that its by-host domains work.
    static let inMemoryMachineID = "00000000000000000000000000000000"

    /// Sets what an in-memory domain holds, as if its file had been read with these values: changes this process
    /// has not synchronized stay on top, and observers receive an event for every key that differs.
    ///
    /// Any scope can be filled, so that tests can give an in-memory store forced, system or shipped values.
    /// - Parameters:
    ///   - values: The domain's contents.
    ///   - domain: The domain, in any scope.
    ///   - origin: Who the change is attributed to in events.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` when the store keeps its domains in files, whose
    ///   contents only their files define.
    public func setStoredContents(
        _ values: PlistDictionary, of domain: DomainID, origin: ChangeOrigin = .external
    ) throws(PrefsStoreError) {
        try changeInMemory(domain) { state, slot in state.applyStoredValues(values, slot: slot, origin: origin) }
    }

    // MARK: A cache of another store

    // A client of prefsd keeps an in-memory store as its cache of the daemon's domains. The daemon gives each domain a
    // version (the sequence number of its latest change): writes are acknowledged with the version they produced,
    // and the subscription's snapshots and events carry the version they reach. Acknowledgements and events reach the
    // cache from different threads in any order; the versions let the newer one win, so a thread never reads an
    // older value after its own newer write.

    /// Sets what a cached domain holds as of `version` of its source: the local changes acknowledged at that version
    /// or earlier are in it and are dropped, newer ones stay on top.
    /// - Parameters:
    ///   - values: The domain's contents at `version`.
    ///   - domain: The domain.
    ///   - version: The source's version of the domain that `values` are.
    ///   - startsOver: Whether to forget every local change and version first (a new subscription, after the source
    ///     restarted and counts versions from its own start again).
    ///   - origin: Who the change is attributed to in events.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` for a store on files.
    package func setStoredContents(
        _ values: PlistDictionary, of domain: DomainID, version: UInt64, startsOver: Bool = false,
        origin: ChangeOrigin = .external
    ) throws(PrefsStoreError) {
        try changeInMemory(domain) { state, slot in
            state.applyStoredValues(values, slot: slot, origin: origin, version: version, startsOver: startsOver)
        }
    }

    /// Applies a key change the source acknowledged at `version`, unless the cache already has it or something newer
    /// (stored contents of that version or later, or a newer acknowledged change of the key or the domain).
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` for a store on files.
    package func applyAcknowledged(
        _ value: PlistValue?, forKey key: String, in domain: DomainID, version: UInt64,
        origin: ChangeOrigin = .thisProcess
    ) throws(PrefsStoreError) {
        try changeInMemory(domain) { state, slot in
            state.applyAcknowledged(value, forKey: key, slot: slot, version: version, origin: origin)
        }
    }

    /// Replaces a cached domain with contents the source acknowledged at `version`, unless the cache already has
    /// that version or a newer change.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` for a store on files.
    package func applyAcknowledgedReplacement(
        _ values: PlistDictionary, of domain: DomainID, version: UInt64, origin: ChangeOrigin = .thisProcess
    ) throws(PrefsStoreError) {
        try changeInMemory(domain) { state, slot in
            state.applyAcknowledgedReplacement(values, slot: slot, version: version, origin: origin)
        }
    }

    /// Runs a change of an in-memory domain under the store's lock and delivers its events.
    private func changeInMemory(
        _ domain: DomainID, _ change: (inout StoreState, Int) -> Void
    ) throws(PrefsStoreError) {
        guard isInMemory else {
            throw PrefsStoreError(
                .unavailable, "the contents of domain \(domain) come from its file; only an in-memory store takes them")
        }
        let slot = loadDomain(domain)
        let deliver = state.withLock { state in
            change(&state, slot)
            return state.endBatch()
        }
        if deliver { deliverQueued() }
    }
}
