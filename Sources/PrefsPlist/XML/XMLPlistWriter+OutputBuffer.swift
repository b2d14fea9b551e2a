// SPDX-License-Identifier: Apache-2.0
extension XMLPlistWriter {
    /// A growable byte buffer written through a pointer, so appending a tag is a few stores rather
    /// than an `Array` call with its uniqueness and capacity checks. The owner calls ``deallocate()``.
    struct OutputBuffer {
        private var base: UnsafeMutablePointer<UInt8>
        private var capacity: Int
        private(set) var count = 0

        private static let base64Alphabet: [UInt8] = Array(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = .allocate(capacity: self.capacity)
        }

        /// The bytes written so far, as an array of exactly their size.
        func bytes() -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                buffer.baseAddress?.update(from: base, count: count)
                initialized = count
            }
        }

        func deallocate() {
            base.deallocate()
        }

        @inline(__always)
        private mutating func reserve(_ extra: Int) {
            if count + extra > capacity { grow(toHold: count + extra) }
        }

        private mutating func grow(toHold needed: Int) {
            let newCapacity = max(capacity * 2, needed)
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            reserve(1)
            base[count] = byte
            count += 1
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            reserve(bytes.count)
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }

        mutating func append(_ text: StaticString) {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func appendIndent(_ depth: Int) {
            reserve(depth)
            (base + count).initialize(repeating: UInt8(ascii: "\t"), count: depth)
            count += depth
        }

        mutating func appendDecimal(_ value: UInt64) {
            var digits = 1
            var bound: UInt64 = 10
            while digits < 20, value >= bound {
                digits += 1
                bound = bound &* 10
            }
            reserve(digits)
            var rest = value
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                base[count + offset] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            count += digits
        }

        mutating func appendTwoDigits(_ value: Int) {
            reserve(2)
            base[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
            base[count + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
            count += 2
        }

        /// Standard base64 with padding, as ``Base64`` writes it.
        mutating func appendBase64(_ bytes: UnsafeBufferPointer<UInt8>) {
            reserve((bytes.count + 2) / 3 * 4)
            Self.base64Alphabet.withUnsafeBufferPointer { alphabet in
                var index = 0
                while index + 3 <= bytes.count {
                    let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    base[count] = alphabet[Int(chunk >> 18)]
                    base[count + 1] = alphabet[Int(chunk >> 12 & 63)]
                    base[count + 2] = alphabet[Int(chunk >> 6 & 63)]
                    base[count + 3] = alphabet[Int(chunk & 63)]
                    count += 4
                    index += 3
                }
                let remaining = bytes.count - index
                if remaining > 0 {
                    let chunk = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                    base[count] = alphabet[Int(chunk >> 18)]
                    base[count + 1] = alphabet[Int(chunk >> 12 & 63)]
                    base[count + 2] = remaining == 2 ? alphabet[Int(chunk >> 6 & 63)] : UInt8(ascii: "=")
                    base[count + 3] = UInt8(ascii: "=")
                    count += 4
                }
            }
        }
    }
}
