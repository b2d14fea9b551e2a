// SPDX-License-Identifier: Apache-2.0
extension BinaryPlistReader.ObjectDecoder {
    /// The entries of a dictionary being decoded, moved into a ``PlistDictionary`` once all are read.
    ///
    /// Building the dictionary at the end sizes it through `Dictionary`'s inlinable initialiser,
    /// which is specialised here; the presized empty one, `init(minimumCapacity:)`, is not inlinable
    /// and looked up the storage's generic metadata at every dictionary. Keys and values are moved
    /// in and out, not copied. Entries left when decoding fails are released with the buffer.
    final class PendingEntries: ManagedBuffer<PendingEntries.Header, (PlistKey, PlistValue)> {
        struct Header {
            /// Entries appended so far.
            var count = 0
            /// Entries there is room for.
            let capacity: Int
        }

        /// A buffer with room for `capacity` entries.
        static func make(capacity: Int) -> PendingEntries {
            let buffer = create(minimumCapacity: capacity) { _ in Header(capacity: capacity) }
            return unsafeDowncast(buffer, to: PendingEntries.self)
        }

        /// Appends an entry; the caller made room for it (reserving as many entries as the
        /// object-count limit allows).
        @inline(__always)
        func append(_ key: consuming PlistKey, _ value: PlistValue) {
            withUnsafeMutablePointers { header, entries in
                precondition(header.pointee.count < header.pointee.capacity, "more dictionary entries than reserved")
                (entries + header.pointee.count).initialize(to: (key, value))
                header.pointee.count += 1
            }
        }

        /// Moves the entries into a dictionary, leaving the buffer empty; of entries with equal
        /// keys, the last one's value stays, under the first one's key.
        func makeDictionary() -> PlistDictionary {
            let count = header.count
            header.count = 0
            return withUnsafeMutablePointerToElements { entries in
                PlistDictionary(Dictionary(Draining(entries: entries, count: count), uniquingKeysWith: { $1 }))
            }
        }

        deinit {
            _ = withUnsafeMutablePointers { header, entries in entries.deinitialize(count: header.pointee.count) }
        }
    }

    /// The entries of a ``PendingEntries`` buffer, moved out as they are taken (a single pass).
    struct Draining: Sequence, IteratorProtocol {
        let entries: UnsafeMutablePointer<(PlistKey, PlistValue)>
        let count: Int
        private var taken = 0

        init(entries: UnsafeMutablePointer<(PlistKey, PlistValue)>, count: Int) {
            self.entries = entries
            self.count = count
        }

        var underestimatedCount: Int { count - taken }

        mutating func next() -> (PlistKey, PlistValue)? {
            guard taken < count else { return nil }
            defer { taken += 1 }
            return (entries + taken).move()
        }
    }
}
