// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Writes every live store's pending changes when the process exits normally (`exit`, or return from `main`).
enum ExitFlusher {
    private static let stores = Mutex<[ObjectIdentifier: WeakStoreReference]>([:])
    private static let isInstalled = Atomic<Bool>(false)

    /// Includes a store in the flush at exit.
    static func register(_ store: PreferencesStore) {
        if !isInstalled.exchange(true, ordering: .acquiringAndReleasing) {
            FileSystem.runAtExit { ExitFlusher.flushAll() }
        }
        stores.withLock { $0[ObjectIdentifier(store)] = WeakStoreReference(store) }
    }

    /// Leaves a store out (it flushes itself as it goes away).
    static func unregister(_ store: PreferencesStore) {
        _ = stores.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }
    }

    private static func flushAll() {
        let live = stores.withLock { $0.values.compactMap(\.store) }
        for store in live { store.flushAllReportingErrors() }
    }
}
