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
    /// values. `synchronize()` counts the changes as written. Apps use it for their own tests.
    ///
    /// - Parameter configuration: Limits and diagnostics; the flush delay, file watching and flush at exit do not
    ///   apply.
    /// - Returns: A new, empty store.
    public static func inMemory(configuration: StoreConfiguration = StoreConfiguration()) -> PreferencesStore {
        // `/dev/null/…` can never be a directory: a path that reached the file system by mistake would fail there.
        let paths = StorePaths(
            preferencesDirectory: "/dev/null/in-memory", systemDirectory: "/dev/null/in-memory/system",
            shippedDirectory: "/dev/null/in-memory/domains", machineID: inMemoryMachineID)
        return PreferencesStore(paths: paths, configuration: configuration, source: .scheduled(MemoryDomains()))
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
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` when the store keeps its domains
    ///   elsewhere (files, prefsd), whose contents only their storage defines.
    public func setStoredContents(
        _ values: PlistDictionary, of domain: DomainID, origin: ChangeOrigin = .external
    ) throws(PrefsStoreError) {
        guard case .scheduled(let scheduled) = source, scheduled is MemoryDomains else {
            throw PrefsStoreError(
                .unavailable,
                "the contents of domain \(domain) come from the \(domainSource); only an in-memory store takes them")
        }
        let slot = loadDomain(domain)
        let deliver = state.withLock { state in
            state.applyStoredValues(values, slot: slot, origin: origin)
            return state.endBatch()
        }
        if deliver { deliverQueued() }
    }
}
