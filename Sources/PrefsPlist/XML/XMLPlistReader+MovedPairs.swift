// SPDX-License-Identifier: Apache-2.0
extension XMLPlistReader {
    /// A dictionary's keys and values, moved out of the reader's stacks one pair at a time.
    ///
    /// `Dictionary(_:uniquingKeysWith:)` takes each pair it is handed as its own, so a key and its
    /// value reach the dictionary's storage without the retain and release that the subscript
    /// setter (which borrows its key) costs; it sizes the storage from ``underestimatedCount`` once,
    /// so nothing is rehashed.
    ///
    /// Single pass only: iterating consumes the pairs, so a copy must never be iterated as well.
    struct MovedPairs: Sequence, IteratorProtocol {
        private var keys: UnsafeMutablePointer<String>
        private var values: UnsafeMutablePointer<PlistValue>
        private var remaining: Int

        /// - Parameters:
        ///   - keys: `count` initialized keys, which the iteration moves out.
        ///   - values: `count` initialized values, which the iteration moves out.
        ///   - count: The number of pairs.
        init(keys: UnsafeMutablePointer<String>, values: UnsafeMutablePointer<PlistValue>, count: Int) {
            self.keys = keys
            self.values = values
            remaining = count
        }

        var underestimatedCount: Int { remaining }

        mutating func next() -> (String, PlistValue)? {
            guard remaining > 0 else { return nil }
            let pair = (keys.move(), values.move())
            keys += 1
            values += 1
            remaining -= 1
            return pair
        }
    }
}
