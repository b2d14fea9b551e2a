// SPDX-License-Identifier: Apache-2.0
extension StoreState {
    /// An observer's identifier and the one key it watches (`nil`: every key).
    struct Watcher {
        let id: UInt64
        let key: String?
        /// Removed, and left in place until ``Watchers`` compacts its entries.
        var isRemoved = false

        func watches(_ changed: String) -> Bool { !isRemoved && (key.map { $0 == changed } ?? true) }
    }

    /// The observers of one target, in the order they subscribed.
    ///
    /// Observer identifiers only grow, so the entries stay sorted by identifier: a removal finds its entry by binary
    /// search and marks it, and the marked entries are dropped in one pass once they are half of the entries. A
    /// removal is so amortised constant time, where removing from the array at once moved every later entry: the
    /// thousands of subscriptions of connections closing together made the store's lock a quadratic wait.
    struct Watchers {
        /// Live and removed entries, identifiers ascending.
        private(set) var entries: [Watcher] = []
        private var removedCount = 0

        /// Whether no live observer is left.
        var isEmpty: Bool { entries.count == removedCount }

        /// Adds an observer whose identifier is greater than every one added before.
        mutating func append(_ watcher: Watcher) {
            precondition(entries.last.map { $0.id < watcher.id } ?? true, "observer identifiers must grow")
            entries.append(watcher)
        }

        /// Removes the observer `id`; an identifier not present (or already removed) changes nothing.
        mutating func remove(id: UInt64) {
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].id < id { low = middle + 1 } else { high = middle }
            }
            guard low < entries.count, entries[low].id == id, !entries[low].isRemoved else { return }
            entries[low].isRemoved = true
            removedCount += 1
            if removedCount * 2 > entries.count {
                entries.removeAll { $0.isRemoved }
                removedCount = 0
            }
        }
    }
}
