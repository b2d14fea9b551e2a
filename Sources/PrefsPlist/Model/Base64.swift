// SPDX-License-Identifier: Apache-2.0
/// Standard base64 (RFC 4648, with padding), as XML `<data>` and GNUstep `<[…]>` use it.
public enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0–63 for alphabet bytes, 64 for `=`, 0xFE for white space, 0xFF for anything else.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        table[Int(UInt8(ascii: "="))] = 64
        for space in [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C] {
            table[Int(space)] = 0xFE
        }
        return table
    }()

    /// Appends the base64 text of `bytes` to `output`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        var index = 0
        let count = bytes.count
        output.reserveCapacity(output.count + (count + 2) / 3 * 4)
        while index + 3 <= count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(chunk >> 18)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let remaining = count - index
        if remaining > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(chunk >> 18)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(remaining == 2 ? alphabet[Int(chunk >> 6 & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
    }

    /// The base64 text of `bytes`, padded, on one line.
    /// - Parameter bytes: The bytes to encode.
    /// - Returns: The base64 text as ASCII bytes.
    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        bytes.withUnsafeBytes { encode($0, into: &output) }
        return output
    }

    /// Decodes base64 text, skipping white space anywhere. Padding is optional; after padding only
    /// white space may follow. Returns `nil` for any other character or a dangling single symbol.
    /// - Parameter text: The base64 text.
    /// - Returns: The decoded bytes, or `nil` when `text` is not base64.
    public static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        // Every four symbols make three bytes, and a final two or three make one or two more.
        let capacity = text.count / 4 * 3 + 2
        guard capacity <= 4096 else {
            var written = 0
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                written = decode(text, into: buffer) ?? -1
                initialized = max(written, 0)
            }
            return written >= 0 ? output : nil
        }
        // Small data, the common case, is decoded on the stack and copied out: `Array(_:)` of a buffer
        // allocates with the element type's metadata resolved at compile time, where
        // `Array(unsafeUninitializedCapacity:)` looks it up in the runtime's cache on every call.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            decode(text, into: buffer).map { Array(UnsafeBufferPointer(rebasing: buffer[..<$0])) }
        }
    }

    /// Decodes `text` into `buffer`, which holds at least `text.count / 4 * 3 + 2` bytes.
    /// - Returns: The number of bytes written, or `nil` when `text` is not base64.
    private static func decode(_ text: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        // The table is read through one pointer: indexing the global array checks its initialization
        // and bounds per byte.
        decodeTable.withUnsafeBufferPointer { table in
            var accumulator: UInt32 = 0
            var pending = 0
            var sawPadding = false
            var written = 0
            var index = 0
            let count = text.count
            while index < count {
                // Four alphabet symbols at a time while nothing is pending: any white space, padding or
                // stray byte has a table value of 64 or more, which sends that quad the slow way.
                if pending == 0, index + 4 <= count {
                    let first = table[Int(text[index])]
                    let second = table[Int(text[index + 1])]
                    let third = table[Int(text[index + 2])]
                    let fourth = table[Int(text[index + 3])]
                    if first | second | third | fourth < 64, !sawPadding {
                        let quad = UInt32(first) << 18 | UInt32(second) << 12 | UInt32(third) << 6 | UInt32(fourth)
                        buffer[written] = UInt8(truncatingIfNeeded: quad >> 16)
                        buffer[written + 1] = UInt8(truncatingIfNeeded: quad >> 8)
                        buffer[written + 2] = UInt8(truncatingIfNeeded: quad)
                        written += 3
                        index += 4
                        continue
                    }
                }
                let symbol = table[Int(text[index])]
                index += 1
                if symbol == 0xFE { continue }
                if symbol == 0xFF { return nil }
                if symbol == 64 {
                    sawPadding = true
                    continue
                }
                if sawPadding { return nil }
                accumulator = accumulator << 6 | UInt32(symbol)
                pending += 1
                if pending == 4 {
                    buffer[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                    buffer[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                    buffer[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                    written += 3
                    accumulator = 0
                    pending = 0
                }
            }
            switch pending {
            case 0: break
            case 2:
                buffer[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
                written += 1
            case 3:
                buffer[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
                buffer[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
                written += 2
            default: return nil
            }
            return written
        }
    }
}
