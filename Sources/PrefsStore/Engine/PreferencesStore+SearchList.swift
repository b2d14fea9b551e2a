// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
public import PrefsPlist
import Synchronization

extension PreferencesStore {
    /// The merged values of a search list, kept current; equal search lists share one view.
    ///
    /// The view's domains are loaded (and from then on watched) when it is created.
    public func effectiveView(for searchList: SearchList) -> EffectiveView {
        // A committing source subscribes to the list's domains together, and takes up those it lost again.
        if case .committing(let committing) = source { committing.prepare(searchList.domains) }
        if let view = state.withLock({ $0.views[searchList]?.view }) { return view }
        var domainSlots: [DomainID: Int] = [:]
        for domain in searchList.domains { domainSlots[domain] = loadDomain(domain) }
        var slots: [StoreState.LayerSlot] = []
        for layer in searchList.layers {
            switch layer {
            case .domain(let id): if let slot = domainSlots[id] { slots.append(.domain(slot)) }
            case .arguments: slots.append(.arguments)
            case .registered: slots.append(.registered)
            }
        }
        let released = releasedViews.load(ordering: .relaxed)
        return state.withLock { state in
            if let view = state.views[searchList]?.view { return view }
            if released != state.releasedViewsForgotten {
                state.forgetReleasedViews()
                state.releasedViewsForgotten = released
            }
            let view = EffectiveView(
                searchList: searchList, store: self, slots: slots, merged: state.mergedValues(of: slots))
            state.link(view)
            return view
        }
    }

    /// The effective (first-hit) value of a key in a search list.
    public func effectiveValue(forKey key: String, in searchList: SearchList) -> PlistValue? {
        effectiveView(for: searchList).value(forKey: key)
    }

    /// Explains a key's effective value: which layer and file supply it, what it shadows, what was skipped.
    public func resolve(_ key: String, in searchList: SearchList) -> Resolution {
        var domainSlots: [DomainID: Int] = [:]
        for domain in searchList.domains { domainSlots[domain] = presentSlot(domain) }
        let layers = searchList.layers
        var fleetSources: [DomainID: [String: FleetSource]] = state.withLock { state in
            var announced: [DomainID: [String: FleetSource]] = [:]
            for domain in domainSlots.keys {
                if let sources = state.announced[domain]?.fleetSources { announced[domain] = sources }
            }
            return announced
        }
        for domain in searchList.domains
        where domain.scope.isFleet && domainSlots[domain] != nil && fleetSources[domain] == nil {
            if let path = paths.fleetSourcesPath(for: domain) { fleetSources[domain] = FleetSource.read(path: path) }
        }
        var committing: (any CommittingDomainSource)?
        if case .committing(let source) = source { committing = source }
        return state.withLock { state in
            var candidates: [Resolution.Candidate] = []
            var skipped: [Resolution.SkippedLayer] = []
            for layer in layers {
                let value: PlistValue?
                var path: String?
                switch layer {
                case .domain(let id):
                    guard let slot = domainSlots[id] else { continue }
                    let domain = state.domains[slot]
                    path = domain.location?.path ?? committing?.path(of: id)
                    if let issue = domain.issue { skipped.append(Resolution.SkippedLayer(layer: layer, error: issue)) }
                    value = domain.values[key]
                case .arguments:
                    value = state.arguments[key]
                case .registered:
                    value = state.registered[key]
                }
                var fleetSource: FleetSource?
                if case .domain(let id) = layer { fleetSource = fleetSources[id]?[key] }
                if let value {
                    candidates.append(
                        Resolution.Candidate(layer: layer, path: path, value: value, fleetSource: fleetSource))
                }
            }
            return Resolution(
                key: key, winner: candidates.first, shadowed: Array(candidates.dropFirst()), skipped: skipped)
        }
    }
}
