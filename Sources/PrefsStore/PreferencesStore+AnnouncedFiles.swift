import PrefsPlist

extension PreferencesStore {
    // prefsd writes the fleet cache's files itself (docs/FLEET.md, "Cache"). Left to inotify, a change would reach
    // observers only after the file is written, the worker woken, the file read and decoded again. Instead prefsd
    // announces the contents, so that observers hear of them at once, and writes the files later, at a lower
    // priority. Once announced, a domain's file is never read again: prefsd is its only writer, and the file may lag
    // the announced values (reading it would step back).

    /// Takes `values` as the contents of a domain's file that this process alone writes and is going to replace: a
    /// loaded domain gets them now, observers receive an event for every key that differs, and the store no longer
    /// reads the file. A domain not loaded is left alone (its file, once written, holds them).
    /// - Parameters:
    ///   - values: What the file will hold.
    ///   - fleetSources: For a fleet domain, the etcd key and revision of each key's value, which `explain` reports
    ///     (``resolve(_:in:)``) in place of the sources file until it is written.
    ///   - domain: The domain whose file is replaced.
    ///   - origin: Who the change is attributed to in events.
    package func announceFileContents(
        _ values: PlistDictionary, fleetSources: [String: FleetSource]? = nil, of domain: DomainID,
        origin: ChangeOrigin
    ) {
        // Under the file work lock, so that a re-read of the older file in progress cannot land after the values.
        let deliver = fileWork.withLock { _ in
            state.withLock { state in
                guard let slot = state.slots[domain] else { return false }
                state.domains[slot].isAnnounced = true
                state.domains[slot].issue = nil
                state.domains[slot].announcedFleetSources = fleetSources
                state.applyStoredValues(values, slot: slot, origin: origin)
                return state.endBatch()
            }
        }
        if deliver { deliverQueued() }
    }
}
