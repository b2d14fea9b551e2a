// SPDX-License-Identifier: Apache-2.0
extension BinaryPlistWriter {
    /// An open-addressing hash set of scalar objects, keyed by the hash of each object's encoding.
    ///
    /// A slot packs 32 bits of the hash with the object index plus one (0 marks a free slot), so
    /// objects from index ``maximumObjects`` on are not shared; a file that large is valid either
    /// way. The caller compares the encodings of candidates whose hash bits match. The hash is
    /// keyed with per-process random secrets, so input cannot be crafted in advance to collide.
    struct UniquingTable: ~Copyable {
        /// Objects at or past this index are not entered in the table.
        static let maximumObjects = Int(UInt32.max) - 1
        /// Per-process secrets mixed into every hash.
        private static let secrets: (UInt64, UInt64) = (.random(in: .min ... .max), .random(in: .min ... .max))

        private var slots: UnsafeMutableBufferPointer<UInt64>
        private var count = 0
        private var mask: Int

        /// Creates a table that holds `expectedCount` objects without growing.
        ///
        /// A small value (a wire message, a reply) starts with 16 slots, not a few kilobytes of zeroed slots for
        /// the two tables of every write; a table that fills up grows like any other.
        init(expectedCount: Int) {
            var capacity = 16
            while capacity < 2 * expectedCount, capacity < 1 << 32 { capacity *= 2 }
            slots = Self.allocate(capacity)
            mask = capacity - 1
        }

        deinit { slots.deallocate() }

        private static func allocate(_ capacity: Int) -> UnsafeMutableBufferPointer<UInt64> {
            let slots = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: capacity)
            slots.initialize(repeating: 0)
            return slots
        }

        /// The hash of an encoded object, from 64×64→128-bit multiplies whose halves are folded
        /// together (the mixing step of wyhash), reading eight bytes at a time.
        static func hash(_ encoded: UnsafeRawBufferPointer) -> UInt32 {
            let (first, second) = secrets
            let count = encoded.count
            guard let base = encoded.baseAddress, count > 0 else {
                return UInt32(truncatingIfNeeded: mix(first, second))
            }
            var state = first ^ UInt64(count)
            var low: UInt64
            var high: UInt64
            if count >= 8 {
                var index = 0
                while index + 8 < count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    state = mix(word ^ second, state ^ 0x9E37_79B9_7F4A_7C15)
                    index += 8
                }
                // The last eight bytes, overlapping the previous word when the count is not a multiple of 8.
                low = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                high = 0
            } else if count >= 4 {
                low = UInt64(base.loadUnaligned(as: UInt32.self))
                high = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            } else {
                low =
                    UInt64(base.load(as: UInt8.self)) << 16
                    | UInt64(base.load(fromByteOffset: count >> 1, as: UInt8.self)) << 8
                    | UInt64(base.load(fromByteOffset: count - 1, as: UInt8.self))
                high = 0
            }
            state = mix(low ^ second, state ^ high ^ 0xE703_7ED1_A0B4_28DB)
            return UInt32(truncatingIfNeeded: mix(state ^ first, 0x8EBC_6AF0_9C88_C6E3))
        }

        /// The hash of a container's object references and kind: one multiply per reference (a
        /// container's references are small numbers, already spread by the scalars' table), keyed with
        /// the same secrets.
        static func hash(references: UnsafeBufferPointer<Int>, isDictionary: Bool) -> UInt32 {
            var state = secrets.0 ^ UInt64(references.count) ^ (isDictionary ? 0x9E37_79B9_7F4A_7C15 : 0)
            for reference in references {
                state = (state ^ UInt64(UInt(bitPattern: reference))) &* 0xBF58_476D_1CE4_E5B9
                state ^= state >> 29
            }
            return UInt32(truncatingIfNeeded: mix(state ^ secrets.1, 0x94D0_49BB_1331_11EB))
        }

        @inline(__always)
        private static func mix(_ left: UInt64, _ right: UInt64) -> UInt64 {
            let product = left.multipliedFullWidth(by: right)
            return product.high ^ product.low
        }

        /// The slot where probing for `hash` starts.
        @inline(__always)
        func firstSlot(for hash: UInt32) -> Int { Int(hash) & mask }

        /// The slot probed after `slot`.
        @inline(__always)
        func slot(after slot: Int) -> Int { (slot + 1) & mask }

        /// The object in `slot` when its hash bits equal `hash`, else `nil`; `isFree` says whether
        /// the slot is empty, which ends a probe.
        @inline(__always)
        func object(inSlot slot: Int, matching hash: UInt32) -> (object: Int?, isFree: Bool) {
            let entry = slots[slot]
            if entry == 0 { return (nil, true) }
            return (UInt32(truncatingIfNeeded: entry >> 32) == hash ? Int(entry & 0xFFFF_FFFF) - 1 : nil, false)
        }

        /// Stores `object` in the free `slot` where its probe ended.
        mutating func insert(_ object: Int, hash: UInt32, inSlot slot: Int) {
            slots[slot] = UInt64(hash) << 32 | UInt64(object + 1)
            count += 1
            if count * 2 > slots.count { grow() }
        }

        /// Doubles the table, keeping the load factor at or below one half.
        private mutating func grow() {
            let old = slots
            slots = Self.allocate(old.count * 2)
            mask = slots.count - 1
            for entry in old where entry != 0 {
                var slot = Int(entry >> 32) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = entry
            }
            old.deallocate()
        }
    }
}
