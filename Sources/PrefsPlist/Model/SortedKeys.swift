// SPDX-License-Identifier: Apache-2.0
/// A dictionary's entries in the Unicode scalar order of their keys, as Python sorts `str` and CoreFoundation orders
/// the keys it writes: the order of the binary and XML writers.
///
/// UTF-8 byte order is scalar order, so keys are compared as bytes: first as two big-endian
/// words of their first 16 bytes (zero-padded), which settles almost every comparison, then
/// byte by byte. Swift's own `String` ordering differs for text that is not in NFC.
struct SortedKeys {
    /// A key's first 16 UTF-8 bytes as two big-endian words, and where its entry is.
    private struct Key {
        var head: UInt64
        var tail: UInt64
        var index: [PlistKey: PlistValue].Index
    }

    private let entries: [PlistKey: PlistValue]
    /// The entries in sorted order.
    private let keys: [Key]

    /// Sorts the keys of `entries`.
    /// - Parameters:
    ///   - entries: The dictionary.
    ///   - partitionLimit: How many rounds of partitioning before heapsort takes over; the
    ///     default, twice the logarithm of the count, is only exceeded by adversarial orders.
    init(_ dictionary: PlistDictionary, partitionLimit: Int? = nil) {
        let entries = dictionary.storage
        var keys: [Key] = []
        keys.reserveCapacity(entries.count)
        var index = entries.startIndex
        while index != entries.endIndex {
            var key = entries[index].key.string
            key.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                keys.append(Key(head: Self.word(raw, from: 0), tail: Self.word(raw, from: 8), index: index))
            }
            entries.formIndex(after: &index)
        }
        let budget = partitionLimit ?? 2 * (Int.bitWidth - keys.count.leadingZeroBitCount)
        keys.withUnsafeMutableBufferPointer { Self.quicksort($0, from: 0, to: $0.count, budget: budget, entries) }
        self.entries = entries
        self.keys = keys
    }

    /// The number of entries.
    var count: Int { keys.count }

    /// The key at sorted `position`.
    func key(at position: Int) -> String { entries[keys[position].index].key.string }

    /// The value of the entry at sorted `position`.
    func value(at position: Int) -> PlistValue { entries[keys[position].index].value }

    // MARK: - Sorting

    /// Whether `left` sorts before `right`; keys are distinct, so this is a strict total order.
    @inline(__always)
    private static func less(_ left: Key, _ right: Key, _ entries: [PlistKey: PlistValue]) -> Bool {
        if left.head != right.head { return left.head < right.head }
        if left.tail != right.tail { return left.tail < right.tail }
        // Quicksort compares the pivot with itself; only distinct keys need their bytes.
        if left.index == right.index { return false }
        return precedes(entries[left.index].key.string, entries[right.index].key.string)
    }

    /// Sorts keys in place: quicksort with a median-of-three pivot, insertion sort for
    /// short runs, and heapsort when partitioning goes badly (so the worst case stays
    /// O(n log n)). It is not stable, which does not matter as keys are distinct; it beats
    /// the standard library's stable merge sort by about a factor of two here.
    private static func quicksort(
        _ keys: UnsafeMutableBufferPointer<Key>, from low: Int, to high: Int, budget: Int,
        _ entries: [PlistKey: PlistValue]
    ) {
        var low = low
        var high = high
        var budget = budget
        while high - low > 16 {
            guard budget > 0 else {
                heapsort(keys, from: low, to: high, entries)
                return
            }
            budget -= 1
            // Median of three at low, middle and last, so the partition loops stay in bounds.
            let middle = low + (high - low) / 2
            if less(keys[middle], keys[low], entries) { keys.swapAt(middle, low) }
            if less(keys[high - 1], keys[middle], entries) {
                keys.swapAt(high - 1, middle)
                if less(keys[middle], keys[low], entries) { keys.swapAt(middle, low) }
            }
            let pivot = keys[middle]
            var left = low
            var right = high - 1
            while true {
                repeat { left += 1 } while less(keys[left], pivot, entries)
                repeat { right -= 1 } while less(pivot, keys[right], entries)
                if left >= right { break }
                keys.swapAt(left, right)
            }
            // keys[low...right] <= pivot <= keys[right + 1 ..< high]; recurse into the smaller side.
            if right + 1 - low < high - right - 1 {
                quicksort(keys, from: low, to: right + 1, budget: budget, entries)
                low = right + 1
            } else {
                quicksort(keys, from: right + 1, to: high, budget: budget, entries)
                high = right + 1
            }
        }
        insertionSort(keys, from: low, to: high, entries)
    }

    private static func insertionSort(
        _ keys: UnsafeMutableBufferPointer<Key>, from low: Int, to high: Int, _ entries: [PlistKey: PlistValue]
    ) {
        guard high - low > 1 else { return }
        for index in low + 1..<high {
            let key = keys[index]
            var position = index
            while position > low, less(key, keys[position - 1], entries) {
                keys[position] = keys[position - 1]
                position -= 1
            }
            keys[position] = key
        }
    }

    private static func heapsort(
        _ keys: UnsafeMutableBufferPointer<Key>, from low: Int, to high: Int, _ entries: [PlistKey: PlistValue]
    ) {
        let count = high - low
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while 2 * root + 1 < end {
                var child = 2 * root + 1
                if child + 1 < end, less(keys[low + child], keys[low + child + 1], entries) { child += 1 }
                guard less(keys[low + root], keys[low + child], entries) else { return }
                keys.swapAt(low + root, low + child)
                root = child
            }
        }
        var start = count / 2
        while start > 0 {
            start -= 1
            siftDown(start, count)
        }
        var end = count
        while end > 1 {
            end -= 1
            keys.swapAt(low, low + end)
            siftDown(0, end)
        }
    }

    // MARK: - Bytes

    /// Eight bytes from `offset` as a big-endian word, zero-padded past the end.
    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0 }
        if offset + 8 <= bytes.count {
            return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        var word: UInt64 = 0
        var index = offset
        while index < offset + 8 {
            word = word << 8 | (index < bytes.count ? UInt64(base.load(fromByteOffset: index, as: UInt8.self)) : 0)
            index += 1
        }
        return word
    }

    /// Orders two keys by their UTF-8 bytes, a shorter prefix first (the rare case of keys
    /// whose first 16 bytes match).
    @inline(never)
    private static func precedes(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }
}
