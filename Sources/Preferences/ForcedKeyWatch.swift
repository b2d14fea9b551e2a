// SPDX-License-Identifier: Apache-2.0
import PrefsStore
import Synchronization

/// How many keys the administrator forces for one domain (in its forced file and the global one, locally and from the
/// fleet), kept current by
/// observing both, so that a write need not look a key up in them while they are empty, as they nearly always are.
final class ForcedKeyWatch: Sendable {
    private let counter: Counter
    /// Keep the observations alive as long as the watch.
    private let subscriptions: [Subscription]

    init(domain: DomainName, engine: PreferencesStore) {
        let counter = Counter()
        var subscriptions: [Subscription] = []
        let forcedDomains = [DomainScope.forced, .fleetForced].flatMap {
            [DomainID(domain, scope: $0), DomainID(.global, scope: $0)]
        }
        for forced in Set(forcedDomains) {
            let subscription = engine.subscribe(.domain(forced)) { [counter] events in
                for event in events {
                    switch (event.oldValue, event.newValue) {
                    case (nil, _?): counter.count.add(1, ordering: .relaxed)
                    case (_?, nil): counter.count.subtract(1, ordering: .relaxed)
                    default: break
                    }
                }
            }
            counter.count.add(subscription.snapshot.values.count, ordering: .relaxed)
            subscriptions.append(subscription)
        }
        self.counter = counter
        self.subscriptions = subscriptions
    }

    /// Whether some key may be forced; `false` means no forced layer of the domain holds any key.
    var mayForceKeys: Bool { counter.count.load(ordering: .relaxed) > 0 }

    /// The count, shared with the observers' handlers (which must not hold the watch itself).
    private final class Counter: Sendable {
        let count = Atomic<Int>(0)
    }
}
