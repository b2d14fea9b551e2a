// SPDX-License-Identifier: Apache-2.0
/// Frames written byte by byte, for what the project's own writer will not produce: values nested deeper than any
/// recursion could walk, integers wider than 64 bits.
public enum HandBuiltFrame {
    /// One object of a binary property list: its marker and bytes, references as 4-byte object indices.
    private enum Object {
        case ascii(String)
        case integer([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// A whole frame (length prefix and `bplist00` payload) of `objects`, the first one the top object.
    private static func frame(_ objects: [Object]) -> [UInt8] {
        var body = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        func reference(_ index: Int) -> [UInt8] {
            [
                UInt8(truncatingIfNeeded: index >> 24), UInt8(truncatingIfNeeded: index >> 16),
                UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index),
            ]
        }
        for object in objects {
            offsets.append(body.count)
            switch object {
            case .ascii(let text):
                body.append(0x50 | UInt8(text.utf8.count))
                body += Array(text.utf8)
            case .integer(let bytes):
                body.append(bytes.count == 16 ? 0x14 : 0x13)
                body += bytes
            case .array(let items):
                body.append(0xA0 | UInt8(items.count))
                for item in items { body += reference(item) }
            case .dictionary(let keys, let values):
                body.append(0xD0 | UInt8(keys.count))
                for key in keys { body += reference(key) }
                for value in values { body += reference(value) }
            }
        }
        let tableStart = body.count
        for offset in offsets { body += bigEndian(UInt64(offset)) }
        body += [0, 0, 0, 0, 0, 0, 8, 4]
        body += bigEndian(UInt64(objects.count)) + bigEndian(0) + bigEndian(UInt64(tableStart))
        return bigEndian(UInt32(body.count)) + body
    }

    private static func bigEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        (0..<(Integer.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// A `set` request (`id` 1, domain `a`, key `k`) whose value is `depth` arrays, each inside the one before.
    public static func setNestedArrays(depth: Int) -> [UInt8] {
        var objects: [Object] = [
            .dictionary(keys: [1, 2, 3, 4, 5], values: [6, 7, 8, 9, 10]), .ascii("id"), .ascii("op"),
            .ascii("domain"), .ascii("key"), .ascii("value"), .integer(bigEndian(UInt64(1))), .ascii("set"),
            .ascii("a"), .ascii("k"),
        ]
        objects.reserveCapacity(objects.count + depth)
        for level in 0..<depth {
            objects.append(.array(level == depth - 1 ? [] : [objects.count + 1]))
        }
        return frame(objects)
    }

    /// A `synchronize` request whose `id` is `high` · 2⁶⁴ + `low`, written as a 16-byte integer.
    public static func synchronize(idHigh high: UInt64, low: UInt64) -> [UInt8] {
        frame([
            .dictionary(keys: [1, 2], values: [3, 4]), .ascii("id"), .ascii("op"),
            .integer(bigEndian(high) + bigEndian(low)), .ascii("synchronize"),
        ])
    }
}
