// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Synchronization

extension PreferencesStore {
    /// Calls `handler` with each batch of changes that match `filter`, until the token is cancelled or released.
    ///
    /// Changes made in this process arrive in the calling thread's `set`, after the store's locks are released;
    /// changes found on disk arrive on the store's worker thread. One thread delivers at a time, so batches arrive
    /// in order. A handler may call the store; it should not block for long.
    /// - Parameters:
    ///   - filter: Which domain, key, or search list to observe.
    ///   - handler: Receives each batch (a `setMany` is one batch).
    /// - Returns: The token that keeps the observation alive.
    public func observe(
        _ filter: ChangeFilter, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) -> ObservationToken {
        subscribe(filter, handler: handler).token
    }

    /// Like ``observe(_:handler:)``, and returns the observed values and sequence number at the moment observation
    /// began, so that a client can start from the snapshot and apply events without missing or repeating one.
    public func subscribe(
        _ filter: ChangeFilter, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) -> Subscription {
        var view: EffectiveView?
        var slot: Int?
        switch filter.target {
        case .domain(let domain): slot = loadDomain(domain)
        case .effective(let searchList): view = effectiveView(for: searchList)
        }
        let flag = ObservationFlag()
        let (id, snapshot) = state.withLock { state -> (UInt64, StoreSnapshot) in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[id] = StoreState.Observer(filter: filter, handler: handler, flag: flag, view: view)
            state.observersByTarget[filter.target, default: StoreState.Watchers()].append(
                StoreState.Watcher(id: id, key: filter.key))
            var values: PlistDictionary
            let sequence: UInt64
            var layerSequences: [DomainID: UInt64] = [:]
            if let view {
                (values, sequence) = view.snapshot()
                for case .domain(let index) in view.slots {
                    layerSequences[state.domains[index].id] = state.domains[index].sequence
                }
            } else if let slot {
                values = state.domains[slot].values
                sequence = state.domains[slot].sequence
            } else {
                values = [:]
                sequence = 0
            }
            if let key = filter.key { values = values[key].map { [key: $0] } ?? [:] }
            var snapshot = StoreSnapshot(values: values, sequence: sequence)
            snapshot.layerSequences = layerSequences
            return (id, snapshot)
        }
        return Subscription(token: ObservationToken(store: self, id: id, flag: flag), snapshot: snapshot)
    }

    /// The changes that match `filter`, as an asynchronous sequence; ``ChangeStream/snapshot`` holds the values it
    /// starts from.
    ///
    /// The stream ends when the consuming task is cancelled or ``ChangeStream/cancel()`` is called. When the
    /// consumer falls more than `bufferLimit` events behind, queued events for the same key are merged into one
    /// (first old value, last new value), so memory is bounded by the number of distinct keys.
    public func changes(_ filter: ChangeFilter, bufferLimit: Int = 1024) -> ChangeStream {
        let buffer = ChangeBuffer(limit: max(1, bufferLimit))
        let subscription = subscribe(filter) { [weak buffer] events in buffer?.append(events) }
        buffer.attach(subscription)
        return ChangeStream(buffer: buffer)
    }

    /// Removes an observer (its token was cancelled or released).
    func removeObserver(_ id: UInt64) {
        // The observer may hold the last reference to a view, whose deinit takes the lock: release it outside.
        let removed = state.withLock { state -> StoreState.Observer? in
            guard let observer = state.observers.removeValue(forKey: id) else { return nil }
            state.observersByTarget[observer.filter.target]?.remove(id: id)
            if state.observersByTarget[observer.filter.target]?.isEmpty == true {
                state.observersByTarget[observer.filter.target] = nil
            }
            return observer
        }
        _ = removed
    }
}
