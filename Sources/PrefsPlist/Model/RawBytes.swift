// SPDX-License-Identifier: Apache-2.0
/// Comparison of bytes in memory, a word at a time (the generic `elementsEqual` goes byte by byte through the
/// collection protocols: about ten times the instructions for a short key).
package enum RawBytes {
    /// Whether two ranges hold the same bytes.
    @inlinable @inline(__always)
    package static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        let count = lhs.count
        guard count == rhs.count else { return false }
        guard count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress, left != right else { return true }
        var index = 0
        if count < 8 {
            while index < count {
                guard byte(left, index) == byte(right, index) else { return false }
                index += 1
            }
            return true
        }
        while index + 8 <= count {
            guard word(left, index) == word(right, index) else { return false }
            index += 8
        }
        // The last eight bytes, overlapping some already compared, instead of a loop over a few.
        return index == count || word(left, count - 8) == word(right, count - 8)
    }

    /// Whether the bytes are `text`'s UTF-8.
    @inlinable @inline(__always)
    package static func equal(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        equal(bytes, UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable
    static func byte(_ base: UnsafeRawPointer, _ offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inlinable
    static func word(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }
}
