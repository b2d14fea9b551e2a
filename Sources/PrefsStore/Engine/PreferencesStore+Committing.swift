// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Synchronization

// An engine on a committing source (prefsd) is a cache of the source's domains. The source gives each domain a
// version (the sequence number of its latest change there): commits return the version they produced, and reports
// carry the version they reach. Acknowledgements and reports reach the engine from different threads in any order;
// the versions let the newer one win, so a thread never reads an older value after its own newer write.

extension PreferencesStore {
    /// Commits a change at the source, then applies it here at the version the source acknowledged.
    /// - Returns: The domain's version at the source.
    func commit(
        _ change: DomainChange, to domain: DomainID, via source: any CommittingDomainSource, origin: ChangeOrigin,
        expectedVersion: UInt64?
    ) throws(PrefsStoreError) -> UInt64 {
        let slot = loadDomain(domain)
        let version = try source.commit(change, to: domain, expectedVersion: expectedVersion)
        applyCommitted(change, slot: slot, version: version, origin: origin)
        return version
    }

    /// Applies a change the source acknowledged at `version`, unless the engine already has it or something newer.
    func applyCommitted(_ change: DomainChange, slot: Int, version: UInt64, origin: ChangeOrigin) {
        let deliver = state.withLock { state in
            switch change {
            case .value(let value, let key):
                state.applyAcknowledged(value, forKey: key, slot: slot, version: version, origin: origin)
            case .values(let changes):
                for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
                    state.applyAcknowledged(value, forKey: key.string, slot: slot, version: version, origin: origin)
                }
            case .replacement(let values):
                state.applyAcknowledgedReplacement(values, slot: slot, version: version, origin: origin)
            }
            return state.endBatch()
        }
        if deliver { deliverQueued() }
    }

    /// ``update(_:origin:maxAttempts:_:)`` at a committing source: its compare-and-set loop, then the result here.
    func updateCommitting<Outcome>(
        _ domain: DomainID, via source: any CommittingDomainSource, origin: ChangeOrigin, maxAttempts: Int,
        _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsStoreError) -> (outcome: Outcome, sequence: UInt64) {
        let slot = loadDomain(domain)
        // The source checks the edit against its limits, as it does every write.
        let (outcome, values, version) = try source.update(domain, maxAttempts: maxAttempts, body)
        if let values { applyCommitted(.replacement(values), slot: slot, version: version, origin: origin) }
        return (outcome, version)
    }

    /// ``update(forKey:in:origin:_:)`` at a committing source: its compare-and-set loop on the key, then the result
    /// here.
    func updateCommitting(
        key: String, in domain: DomainID, via source: any CommittingDomainSource, origin: ChangeOrigin,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsStoreError) -> (value: PlistValue?, sequence: UInt64) {
        let slot = loadDomain(domain)
        let (value, version) = try source.update(
            key: key, in: domain, maxAttempts: Self.defaultUpdateAttempts, transform)
        applyCommitted(.value(value, forKey: key), slot: slot, version: version, origin: origin)
        return (value, version)
    }

    /// Takes a committing source's report of a domain's contents at `version` (``DomainSourceEvents``).
    ///
    /// File work is held while it applies, as while a domain loads: a report that comes while the domain's first
    /// snapshot is being installed waits for it, so that it is not lost between the snapshot and the install.
    func applySourceContents(_ values: PlistDictionary, of domain: DomainID, version: UInt64, startsOver: Bool) {
        let deliver = fileWork.withLock { _ in
            state.withLock { state -> Bool in
                // A domain not loaded takes the source's snapshot when it is.
                guard let slot = state.slots[domain] else { return false }
                state.applyStoredValues(
                    values, slot: slot, origin: .external, version: version, startsOver: startsOver)
                return state.endBatch()
            }
        }
        if deliver { deliverQueued() }
    }
}
