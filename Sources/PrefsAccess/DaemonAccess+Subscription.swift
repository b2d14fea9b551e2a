// SPDX-License-Identifier: Apache-2.0
import PrefsClient
package import PrefsPlist
package import PrefsStore
import PrefsWire

/// What a subscription to a domain delivers: changes in order, or the whole domain again when the daemon's queue
/// for the subscriber overflowed.
package enum DomainEvent: Sendable {
    /// Changes, each with the domain's sequence number after it.
    case changes([ChangeEvent])
    /// The domain's values and sequence number now; the changes in between were coalesced away.
    case resync(values: PlistDictionary, sequence: UInt64)
}

/// Subscriptions to several domains on one connection of their own, read by one thread.
package final class DomainSubscription: Sendable {
    /// Each domain's values and sequence number when the subscription began, in the order of the domains.
    package let snapshots: [(values: PlistDictionary, sequence: UInt64)]
    private let subscription: PrefsBlockingClient.Subscription

    init(snapshots: [(values: PlistDictionary, sequence: UInt64)], subscription: PrefsBlockingClient.Subscription) {
        self.snapshots = snapshots
        self.subscription = subscription
    }

    /// Starts delivering events (those that arrived since the snapshots first); calling it again does nothing.
    package func start() {
        subscription.start()
    }
}

extension DaemonAccess {
    /// Subscribes to domains on a connection of their own; no event is delivered before ``DomainSubscription/start()``,
    /// so the caller can install the snapshots first. `handler` receives each event with the index of its domain, in
    /// order, and `(0, nil)` once when the connection ends (the daemon stopped, or the subscription was released).
    /// - Parameters:
    ///   - domains: Persistent domains the daemon serves (not shipped ones).
    ///   - handler: Receives the events on the subscription's thread.
    /// - Returns: The subscription, with a snapshot of each domain.
    /// - Throws: ``PrefsAccessError`` when the daemon does not answer or refuses a domain (then none is subscribed).
    package func subscribe(
        _ domains: [DomainID], handler: @escaping @Sendable (Int, DomainEvent?) -> Void
    ) throws(PrefsAccessError) -> DomainSubscription {
        var mapped: [WireDomain] = []
        for domain in domains { mapped.append(try Self.wireDomain(domain)) }
        let wires = mapped
        let filters = wires.map { WireSubscriptionFilter(.domain($0)) }
        let subscription = try subscribeOnce(filters) { index, event in
            guard let event else { return handler(index, nil) }
            switch event {
            case .changes(let changes, let origin):
                handler(index, .changes(changes.map { Self.changeEvent($0, origin: origin, domain: domains[index]) }))
            case .resync(let snapshot):
                handler(
                    index,
                    .resync(values: snapshot.values, sequence: snapshot.sequence(of: wires[index]) ?? 0))
            }
        }
        let snapshots = subscription.snapshots.enumerated().map { index, snapshot in
            (values: snapshot.values, sequence: snapshot.sequence(of: wires[index]) ?? 0)
        }
        return DomainSubscription(snapshots: snapshots, subscription: subscription)
    }

    /// Subscribes on a connection of its own (made by the connected client).
    private func subscribeOnce(
        _ filters: [WireSubscriptionFilter], handler: @escaping @Sendable (Int, PrefsSubscription.Event?) -> Void
    ) throws(PrefsAccessError) -> PrefsBlockingClient.Subscription {
        try client().subscribeOrThrow(filters, startsReading: false, handler: handler)
    }
}
