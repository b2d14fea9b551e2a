// SPDX-License-Identifier: Apache-2.0
/// The bounded queue of subscription changes waiting to be written to one connection.
///
/// A server enqueues every change its store reports for a connection's subscriptions and writes what
/// ``dequeue()`` returns whenever the connection can take more. The queue keeps a slow reader from costing
/// unbounded memory:
///
/// - **Coalescing by key.** A change to a key that already has an undelivered change from the same origin, in
///   the same subscription and domain, is merged into it: the pending change keeps its `old` value and takes
///   the new `new` value and sequence number. A merged change whose `old` equals its `new` is dropped when it
///   is dequeued, since nothing changed. Changes from different origins are not merged, so `origin` stays true.
/// - **Resync.** When a change that cannot be merged would take the queue past ``capacity`` pending changes,
///   every subscription with pending changes (and the one receiving the change) drops them and is marked for
///   resync; later changes to a marked subscription are dropped too. ``dequeue()`` returns
///   ``Item/resync(subscription:)`` for it once; the server then takes a fresh snapshot and sends a `resync`
///   event, which supersedes everything dropped.
///
/// After the queue drains, a client that applied every event holds the same values as the server. Coalescing
/// can show a later value of one key before an earlier change of another; it never loses the final value.
public struct WireEventQueue: Sendable {
    /// What to send next.
    public enum Item: Sendable, Hashable {
        /// A `change` or `batch` event, ready to encode.
        case event(WireEvent)
        /// The subscription's changes were dropped: take a snapshot now and send a `resync` event.
        case resync(subscription: UInt64)
    }

    /// The most pending changes the queue holds.
    public let capacity: Int
    /// The number of changes waiting, merged ones counted once.
    public private(set) var pendingChangeCount = 0

    private struct Entry: Sendable {
        var subscription: UInt64
        /// Who made the changes; `nil` marks the subscription's resync request.
        var origin: WireOrigin?
        var changes: [WireChange]
        var isLive = true

        var isResync: Bool { origin == nil }
    }

    private struct CoalescingKey: Hashable, Sendable {
        var subscription: UInt64
        var domain: WireDomain
        var key: String
    }

    private struct Location: Hashable, Sendable {
        var entry: Int
        var change: Int
    }

    /// Undelivered entries are `entries[head...]`.
    private var entries: [Entry] = []
    private var head = 0
    /// Where the newest undelivered change of each key is.
    private var latest: [CoalescingKey: Location] = [:]
    /// Subscriptions with a resync marker in the queue.
    private var resyncing: Set<UInt64> = []

    /// Creates an empty queue.
    /// - Parameter capacity: The most pending changes it holds (``WireLimits/subscriptionQueueLength``); at
    ///   least 1.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Whether nothing is waiting. Merged changes that cancel out count as waiting until they are dequeued.
    public var isEmpty: Bool { pendingChangeCount == 0 && resyncing.isEmpty }

    /// Whether the subscription is marked for resync and its changes are being dropped.
    /// - Parameter subscription: The subscription's identifier.
    public func isResyncPending(_ subscription: UInt64) -> Bool { resyncing.contains(subscription) }

    /// Adds the changes of one atomic operation for one subscription.
    /// - Parameters:
    ///   - subscription: The subscription the changes matched.
    ///   - changes: The changes that match its filter, in order.
    ///   - origin: Who made them.
    public mutating func enqueue(subscription: UInt64, changes: [WireChange], origin: WireOrigin) {
        guard !changes.isEmpty, !resyncing.contains(subscription) else { return }
        compact()
        var unmerged: [WireChange] = []
        for change in changes {
            let key = CoalescingKey(subscription: subscription, domain: change.domain, key: change.key)
            if let location = latest[key], entries[location.entry].isLive, entries[location.entry].origin == origin {
                entries[location.entry].changes[location.change].new = change.new
                entries[location.entry].changes[location.change].sequence = change.sequence
            } else {
                unmerged.append(change)
            }
        }
        guard !unmerged.isEmpty else { return }
        guard pendingChangeCount + unmerged.count <= capacity else {
            overflow(receiving: subscription)
            return
        }
        let entryIndex = entries.count
        for (index, change) in unmerged.enumerated() {
            let key = CoalescingKey(subscription: subscription, domain: change.domain, key: change.key)
            latest[key] = Location(entry: entryIndex, change: index)
        }
        entries.append(Entry(subscription: subscription, origin: origin, changes: unmerged))
        pendingChangeCount += unmerged.count
    }

    /// Removes and returns what to send next.
    /// - Returns: An event or a resync request, or `nil` when nothing is waiting.
    public mutating func dequeue() -> Item? {
        while head < entries.count {
            let entryIndex = head
            let entry = entries[entryIndex]
            head += 1
            guard entry.isLive else { continue }
            guard let origin = entry.origin else {
                resyncing.remove(entry.subscription)
                return .resync(subscription: entry.subscription)
            }
            forget(entry, at: entryIndex)
            let changed = entry.changes.filter { $0.old != $0.new }
            switch changed.count {
            case 0: continue
            case 1: return .event(.change(subscription: entry.subscription, changed[0], origin: origin))
            default: return .event(.batch(subscription: entry.subscription, changed, origin: origin))
            }
        }
        return nil
    }

    /// Drops everything waiting for a subscription, including a pending resync; call it on `unsubscribe`.
    /// - Parameter subscription: The subscription's identifier.
    public mutating func removeSubscription(_ subscription: UInt64) {
        for index in head..<entries.count where entries[index].isLive && entries[index].subscription == subscription {
            if !entries[index].isResync { forget(entries[index], at: index) }
            entries[index].isLive = false
        }
        resyncing.remove(subscription)
    }

    /// Drops every change and marks the subscriptions that had some, and `subscription`, for resync.
    private mutating func overflow(receiving subscription: UInt64) {
        var marked: [UInt64] = []
        var seen: Set<UInt64> = []
        for index in head..<entries.count where entries[index].isLive && !entries[index].isResync {
            if seen.insert(entries[index].subscription).inserted { marked.append(entries[index].subscription) }
            entries[index].isLive = false
        }
        if seen.insert(subscription).inserted { marked.append(subscription) }
        latest.removeAll()
        pendingChangeCount = 0
        for marked in marked where resyncing.insert(marked).inserted {
            entries.append(Entry(subscription: marked, origin: nil, changes: []))
        }
    }

    /// Removes a change entry's keys from the coalescing index and its changes from the count.
    private mutating func forget(_ entry: Entry, at entryIndex: Int) {
        for (index, change) in entry.changes.enumerated() {
            let key = CoalescingKey(subscription: entry.subscription, domain: change.domain, key: change.key)
            if latest[key] == Location(entry: entryIndex, change: index) { latest[key] = nil }
        }
        pendingChangeCount -= entry.changes.count
    }

    /// Drops delivered entries when that is cheap: all of them, or a large prefix.
    private mutating func compact() {
        guard head > 0 else { return }
        if head == entries.count {
            entries.removeAll(keepingCapacity: entries.capacity <= 4 * capacity)
            head = 0
        } else if head >= 256 && head * 2 >= entries.count {
            entries.removeSubrange(0..<head)
            let shift = head
            latest = latest.mapValues { Location(entry: $0.entry - shift, change: $0.change) }
            head = 0
        }
    }
}
