// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import PrefsWire

/// The per-connection event queue: coalescing by key, honest origins, and the fall back to resync.
@Suite struct WireEventQueueTests {
    static let domain = WireDomain("com.example.app")
    static let alice = WireOrigin(.client, pid: 100, uid: 1000)
    static let bob = WireOrigin(.client, pid: 200, uid: 1000)

    static func change(_ key: String, _ old: PlistValue?, _ new: PlistValue?, _ sequence: UInt64) -> WireChange {
        WireChange(domain: domain, key: key, old: old, new: new, sequence: sequence)
    }

    static func drain(_ queue: inout WireEventQueue) -> [WireEventQueue.Item] {
        var items: [WireEventQueue.Item] = []
        while let item = queue.dequeue() { items.append(item) }
        return items
    }

    @Test func deliversInOrderWithoutPressure() {
        var queue = WireEventQueue(capacity: 10)
        queue.enqueue(subscription: 1, changes: [Self.change("a", nil, 1, 1)], origin: Self.alice)
        queue.enqueue(
            subscription: 1, changes: [Self.change("b", nil, 2, 2), Self.change("c", nil, 3, 3)], origin: Self.alice)
        queue.enqueue(subscription: 2, changes: [Self.change("a", nil, 1, 1)], origin: Self.alice)
        #expect(queue.pendingChangeCount == 4)
        #expect(
            Self.drain(&queue) == [
                .event(.change(subscription: 1, Self.change("a", nil, 1, 1), origin: Self.alice)),
                .event(
                    .batch(
                        subscription: 1, [Self.change("b", nil, 2, 2), Self.change("c", nil, 3, 3)],
                        origin: Self.alice)),
                .event(.change(subscription: 2, Self.change("a", nil, 1, 1), origin: Self.alice)),
            ])
        #expect(queue.isEmpty)
        #expect(queue.pendingChangeCount == 0)
    }

    @Test func coalescesRepeatedChangesOfOneKey() {
        var queue = WireEventQueue(capacity: 10)
        for sequence in UInt64(1)...50 {
            queue.enqueue(
                subscription: 1,
                changes: [
                    Self.change(
                        "k", .integer(PlistInteger(Int64(sequence) - 1)), .integer(PlistInteger(Int64(sequence))),
                        sequence)
                ],
                origin: Self.alice)
        }
        queue.enqueue(subscription: 1, changes: [Self.change("other", nil, "x", 51)], origin: Self.alice)
        #expect(queue.pendingChangeCount == 2)
        #expect(
            Self.drain(&queue) == [
                .event(.change(subscription: 1, Self.change("k", 0, 50, 50), origin: Self.alice)),
                .event(.change(subscription: 1, Self.change("other", nil, "x", 51), origin: Self.alice)),
            ])
    }

    @Test func coalescesIntoAPendingBatch() {
        var queue = WireEventQueue(capacity: 10)
        queue.enqueue(
            subscription: 1, changes: [Self.change("a", nil, 1, 1), Self.change("b", nil, 1, 2)], origin: Self.alice)
        queue.enqueue(subscription: 1, changes: [Self.change("b", 1, 2, 3)], origin: Self.alice)
        #expect(
            Self.drain(&queue) == [
                .event(
                    .batch(
                        subscription: 1, [Self.change("a", nil, 1, 1), Self.change("b", nil, 2, 3)],
                        origin: Self.alice))
            ])
    }

    @Test func changesThatCancelOutAreDropped() {
        var queue = WireEventQueue(capacity: 10)
        queue.enqueue(subscription: 1, changes: [Self.change("k", "a", "b", 1)], origin: Self.alice)
        queue.enqueue(subscription: 1, changes: [Self.change("k", "b", "a", 2)], origin: Self.alice)
        queue.enqueue(subscription: 1, changes: [Self.change("added", nil, 1, 3)], origin: Self.alice)
        queue.enqueue(subscription: 1, changes: [Self.change("added", 1, nil, 4)], origin: Self.alice)
        #expect(!queue.isEmpty)
        #expect(Self.drain(&queue) == [])
        #expect(queue.isEmpty)
    }

    @Test func changesFromDifferentOriginsAreNotMerged() {
        var queue = WireEventQueue(capacity: 10)
        queue.enqueue(subscription: 1, changes: [Self.change("k", 0, 1, 1)], origin: Self.alice)
        queue.enqueue(subscription: 1, changes: [Self.change("k", 1, 2, 2)], origin: Self.bob)
        queue.enqueue(subscription: 1, changes: [Self.change("k", 2, 3, 3)], origin: Self.bob)
        #expect(
            Self.drain(&queue) == [
                .event(.change(subscription: 1, Self.change("k", 0, 1, 1), origin: Self.alice)),
                .event(.change(subscription: 1, Self.change("k", 1, 3, 3), origin: Self.bob)),
            ])
    }

    @Test func subscriptionsAndDomainsAreCoalescedSeparately() {
        var queue = WireEventQueue(capacity: 10)
        let byHost = WireDomain("com.example.app", byHost: true)
        queue.enqueue(subscription: 1, changes: [Self.change("k", nil, 1, 1)], origin: Self.alice)
        queue.enqueue(subscription: 2, changes: [Self.change("k", nil, 1, 1)], origin: Self.alice)
        queue.enqueue(
            subscription: 1, changes: [WireChange(domain: byHost, key: "k", old: nil, new: 1, sequence: 1)],
            origin: Self.alice)
        #expect(queue.pendingChangeCount == 3)
        #expect(Self.drain(&queue).count == 3)
    }

    @Test func overflowTurnsPendingChangesIntoOneResyncPerSubscription() {
        var queue = WireEventQueue(capacity: 3)
        queue.enqueue(subscription: 1, changes: [Self.change("a", nil, 1, 1)], origin: Self.alice)
        queue.enqueue(subscription: 2, changes: [Self.change("b", nil, 1, 1)], origin: Self.alice)
        queue.enqueue(subscription: 1, changes: [Self.change("c", nil, 1, 2)], origin: Self.alice)
        // A merge does not need room.
        queue.enqueue(subscription: 1, changes: [Self.change("c", 1, 2, 3)], origin: Self.alice)
        #expect(queue.pendingChangeCount == 3)
        // The fourth distinct key overflows; subscription 3 had nothing queued but is resynced too.
        queue.enqueue(subscription: 3, changes: [Self.change("d", nil, 1, 1)], origin: Self.alice)
        #expect(queue.pendingChangeCount == 0)
        #expect(queue.isResyncPending(1) && queue.isResyncPending(2) && queue.isResyncPending(3))
        // Changes for a subscription awaiting resync are dropped: its snapshot will hold them.
        queue.enqueue(subscription: 2, changes: [Self.change("e", nil, 1, 2)], origin: Self.alice)
        #expect(queue.pendingChangeCount == 0)
        #expect(Self.drain(&queue) == [.resync(subscription: 1), .resync(subscription: 2), .resync(subscription: 3)])
        #expect(!queue.isResyncPending(1))
        // After the resync request is taken, changes queue normally again.
        queue.enqueue(subscription: 1, changes: [Self.change("a", 1, 2, 9)], origin: Self.alice)
        #expect(Self.drain(&queue) == [.event(.change(subscription: 1, Self.change("a", 1, 2, 9), origin: Self.alice))])
    }

    @Test func aBatchLargerThanTheQueueFallsBackToResync() {
        var queue = WireEventQueue(capacity: 4)
        let changes = (0..<5).map { Self.change("k\($0)", nil, 1, UInt64($0)) }
        queue.enqueue(subscription: 7, changes: changes, origin: Self.alice)
        #expect(Self.drain(&queue) == [.resync(subscription: 7)])
    }

    @Test func removingASubscriptionDropsItsChangesAndResync() {
        var queue = WireEventQueue(capacity: 2)
        queue.enqueue(subscription: 1, changes: [Self.change("a", nil, 1, 1)], origin: Self.alice)
        queue.enqueue(subscription: 2, changes: [Self.change("b", nil, 1, 1)], origin: Self.alice)
        queue.removeSubscription(1)
        #expect(queue.pendingChangeCount == 1)
        queue.enqueue(subscription: 2, changes: [Self.change("c", nil, 1, 2)], origin: Self.alice)
        queue.enqueue(subscription: 3, changes: [Self.change("d", nil, 1, 1)], origin: Self.alice)
        #expect(queue.isResyncPending(2) && queue.isResyncPending(3))
        queue.removeSubscription(2)
        #expect(Self.drain(&queue) == [.resync(subscription: 3)])
        #expect(queue.isEmpty)
    }

    /// A slow reader under a long run of changes: memory stays bounded, and applying every item (a resync
    /// being a snapshot of the values at the moment it is taken) ends with the writer's values.
    @Test func slowReaderEndsWithTheWritersValues() {
        var queue = WireEventQueue(capacity: 64)
        var current: [String: Int64] = [:]
        var delivered: [String: Int64] = [:]
        var resyncs = 0
        func apply(_ item: WireEventQueue.Item) {
            switch item {
            case .resync:
                resyncs += 1
                delivered = current
            case .event(.change(_, let change, _)):
                delivered[change.key] = change.new.flatMap {
                    if case .integer(let v) = $0 { v.int64Value } else { nil }
                }
            case .event(let other):
                Issue.record("unexpected event \(other)")
            }
        }
        var sequence: UInt64 = 0
        for round in 0..<5000 {
            let key = "k\(round % 40)"
            sequence += 1
            let old = current[key].map { PlistValue.integer(PlistInteger($0)) }
            current[key] = Int64(round)
            queue.enqueue(
                subscription: 1, changes: [Self.change(key, old, .integer(PlistInteger(Int64(round))), sequence)],
                origin: round % 3 == 0 ? Self.bob : Self.alice)
            #expect(queue.pendingChangeCount <= 64)
            if round % 7 == 0, let item = queue.dequeue() { apply(item) }
        }
        for item in Self.drain(&queue) { apply(item) }
        #expect(delivered == current)
        #expect(resyncs > 0)
    }
}
