// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@Suite("comparing bytes in place")
struct RawBytesTests {
    /// Every length up to five words, equal and with one byte changed at each position (below and above 0x80),
    /// against the generic comparison.
    @Test(arguments: 0...40)
    func agreesWithElementwiseComparison(length: Int) {
        let original = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        original.withUnsafeBytes { left in
            let copy = original
            copy.withUnsafeBytes { right in #expect(RawBytes.equal(left, right)) }
            #expect(RawBytes.equal(left, left), "the same memory")
            for position in 0..<length {
                for flip: UInt8 in [0x01, 0x80] {
                    var changed = original
                    changed[position] ^= flip
                    changed.withUnsafeBytes { right in
                        #expect(!RawBytes.equal(left, right), "byte \(position) of \(length) differs")
                    }
                }
            }
            if length > 0 {
                let shorter = Array(original.dropLast())
                shorter.withUnsafeBytes { right in #expect(!RawBytes.equal(left, right), "a prefix") }
            }
        }
    }

    @Test func comparesWithStaticText() {
        let bytes = Array("expectedVersion".utf8)
        bytes.withUnsafeBytes { raw in
            #expect(RawBytes.equal(raw, "expectedVersion"))
            #expect(!RawBytes.equal(raw, "expectedVersioN"))
            #expect(!RawBytes.equal(raw, "expected"))
        }
        #expect(RawBytes.equal(UnsafeRawBufferPointer(start: nil, count: 0), ""))
    }

    @Test func keysOfEqualLengthCompareByEveryByte() {
        let keys = [
            "", "a", "b", "abcdefg", "abcdefh", "abcdefgh", "abcdefgi", "bbcdefgh", "a-long-key-of-many-words!",
        ]
        for left in keys {
            for right in keys {
                #expect((PlistKey(left) == PlistKey(right)) == (left == right), "\(left) and \(right)")
            }
        }
    }
}
