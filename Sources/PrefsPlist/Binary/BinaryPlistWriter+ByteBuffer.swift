// SPDX-License-Identifier: Apache-2.0
extension BinaryPlistWriter {
    /// A growable run of bytes that the writer fills through raw pointers: one capacity check per
    /// object instead of one per byte, and no copy-on-write checks.
    struct ByteBuffer: ~Copyable {
        private(set) var base: UnsafeMutableRawPointer
        private(set) var count = 0
        private var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
        }

        deinit { base.deallocate() }

        /// Makes room for `length` more bytes and returns where they start; ``commit(_:)`` then
        /// says how many were written.
        @inline(__always)
        mutating func reserve(_ length: Int) -> UnsafeMutableRawPointer {
            if length > capacity - count { grow(toHold: length) }
            return base + count
        }

        /// Counts `length` bytes written after ``reserve(_:)``.
        @inline(__always)
        mutating func commit(_ length: Int) { count += length }

        /// Drops the last `length` bytes.
        mutating func removeLast(_ length: Int) { count -= length }

        /// The bytes in `range`, valid until the buffer next changes.
        func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
        }

        private mutating func grow(toHold length: Int) {
            let newCapacity = max(capacity * 2, count + length)
            let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
            newBase.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
    }
}
