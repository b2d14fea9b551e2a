// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
package import PrefsPlist
import Synchronization

/// What this process announced a domain's file will hold.
struct AnnouncedContents: Sendable {
    var values: PlistDictionary
    /// For a fleet domain, the etcd key and revision of each key's value.
    var fleetSources: [String: FleetSource]?
}

extension PreferencesStore {
    // prefsd writes the fleet cache's files itself (docs/FLEET.md, "Cache"). Left to inotify, a change would reach
    // observers only after the file is written, the worker woken, the file read and decoded again. Instead prefsd
    // announces the contents, so that observers hear of them at once, and writes the files later, at a lower
    // priority. From then on the announced contents stand for the file, loaded or not: prefsd is its only writer,
    // and the file may lag them (reading it would step back).

    /// Takes `values` as the contents of a domain's file that this process alone writes and is going to replace:
    /// from now on they stand for the file, which the store no longer reads. A loaded domain gets them at once and
    /// observers receive an event for every key that differs; a domain loaded later starts from them.
    ///
    /// Only the state lock is taken (no file work waits): a caller may be an event loop.
    /// - Parameters:
    ///   - values: What the file will hold.
    ///   - fleetSources: For a fleet domain, the etcd key and revision of each key's value, which ``resolve(_:in:)``
    ///     reports in place of the sources file.
    ///   - domain: The domain whose file is replaced.
    ///   - origin: Who the change is attributed to in events.
    package func announceFileContents(
        _ values: PlistDictionary, fleetSources: [String: FleetSource]? = nil, of domain: DomainID,
        origin: ChangeOrigin
    ) {
        let deliver = state.withLock { state in
            state.announced[domain] = AnnouncedContents(values: values, fleetSources: fleetSources)
            guard let slot = state.slots[domain] else { return false }
            state.domains[slot].issue = nil
            state.applyStoredValues(values, slot: slot, origin: origin)
            return state.endBatch()
        }
        if deliver { deliverQueued() }
    }
}
