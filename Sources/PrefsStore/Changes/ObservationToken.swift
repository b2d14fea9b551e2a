// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Keeps an observation alive: the handler is called until ``cancel()`` or until the token is released.
public final class ObservationToken: Sendable {
    private let store: PreferencesStore
    private let id: UInt64
    let flag: ObservationFlag

    init(store: PreferencesStore, id: UInt64, flag: ObservationFlag) {
        self.store = store
        self.id = id
        self.flag = flag
    }

    deinit {
        cancel()
    }

    /// Stops the observation: later batches are not delivered (one another thread is delivering may still finish).
    /// Cancelling twice is harmless.
    public func cancel() {
        if flag.cancel() { store.removeObserver(id) }
    }

    /// Whether the observation has been cancelled.
    public var isCancelled: Bool { flag.isCancelled }
}

/// The cancelled flag shared by a token and the store's record of the observer.
final class ObservationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// Sets the flag; returns whether this call set it.
    func cancel() -> Bool {
        !cancelled.exchange(true, ordering: .acquiringAndReleasing)
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}
