import PrefsPlist
import PrefsWire

/// Writes the binary property list of a flat message (every value an ASCII string, an integer, a real or a
/// boolean) directly, without the general writer's uniquing and key sorting: most replies (`get` of a scalar, every
/// write's `version`, `synchronize`) are such messages, and they are the daemon's hot path.
///
/// The output is an ordinary `bplist00` document that every reader accepts: one dictionary object, then its keys and
/// values, then the offset table and the trailer. Anything else returns `nil`, and the caller uses the general
/// writer.
enum FlatReplyEncoder {
    /// The payload for `dictionary`, or `nil` when a value is not flat (or a string is not ASCII).
    static func encode(_ dictionary: PlistDictionary) -> [UInt8]? {
        encode(keys: dictionary.keys, values: dictionary.values, count: dictionary.count)
    }

    /// The payload of a successful reply whose result fields are flat, written without building its dictionary;
    /// `nil` for any other reply.
    static func encode(_ reply: WireReply) -> [UInt8]? {
        guard case .success(let result) = reply.outcome else { return nil }
        let id = PlistValue.integer(PlistInteger(reply.id))
        let op = PlistValue.string(result.operation.rawValue)
        switch result {
        case .get(let value?, let version):
            return encode(
                keys: ["id", "op", "value", "version"], values: [id, op, value, .integer(PlistInteger(version))],
                count: 4)
        case .get(nil, let version), .set(let version), .setMany(let version), .remove(let version),
            .writeDomain(let version), .removeDomain(let version):
            return encode(keys: ["id", "op", "version"], values: [id, op, .integer(PlistInteger(version))], count: 3)
        case .synchronize, .unsubscribe:
            return encode(keys: ["id", "op"], values: [id, op], count: 2)
        default:
            return nil
        }
    }

    private static func encode(
        keys: some Sequence<String>, values: some Sequence<PlistValue>, count: Int
    ) -> [UInt8]? {
        // Object references are one byte: the dictionary, its keys and its values must number at most 255.
        guard count <= 127 else { return nil }
        var bytes: [UInt8] = Array("bplist00".utf8)
        bytes.reserveCapacity(64 + count * 24)
        var offsets: [Int] = []
        offsets.reserveCapacity(2 * count + 1)

        offsets.append(bytes.count)
        if count < 15 {
            bytes.append(0xD0 | UInt8(count))
        } else {
            bytes.append(0xDF)
            bytes.append(0x10)
            bytes.append(UInt8(count))
        }
        for index in 0..<count { bytes.append(UInt8(1 + index)) }
        for index in 0..<count { bytes.append(UInt8(1 + count + index)) }
        for key in keys {
            offsets.append(bytes.count)
            guard appendASCII(key, to: &bytes) else { return nil }
        }
        for value in values {
            offsets.append(bytes.count)
            switch value {
            case .string(let string):
                guard appendASCII(string, to: &bytes) else { return nil }
            case .integer(let integer):
                guard appendInteger(integer, to: &bytes) else { return nil }
            case .bool(let flag):
                bytes.append(flag ? 0x09 : 0x08)
            case .real(let real):
                bytes.append(0x23)
                appendBigEndian(real.bitPattern, byteCount: 8, to: &bytes)
            default:
                return nil
            }
        }

        let tableOffset = bytes.count
        let offsetSize = tableOffset < 1 << 8 ? 1 : tableOffset < 1 << 16 ? 2 : 4
        for offset in offsets { appendBigEndian(UInt64(offset), byteCount: offsetSize, to: &bytes) }
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), 1])
        appendBigEndian(UInt64(offsets.count), byteCount: 8, to: &bytes)
        appendBigEndian(0, byteCount: 8, to: &bytes)
        appendBigEndian(UInt64(tableOffset), byteCount: 8, to: &bytes)
        return bytes
    }

    /// An ASCII string object (`0x5n`), or `false` for a string with other characters.
    private static func appendASCII(_ string: String, to bytes: inout [UInt8]) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            guard utf8.allSatisfy({ $0 < 0x80 }) else { return false }
            if utf8.count < 15 {
                bytes.append(0x50 | UInt8(utf8.count))
            } else {
                bytes.append(0x5F)
                appendLength(utf8.count, to: &bytes)
            }
            bytes.append(contentsOf: utf8)
            return true
        }
    }

    /// An integer object: 1, 2 or 4 bytes for small non-negative values (read as unsigned), 8 bytes otherwise (read
    /// as signed); values of 2⁶³ and above go to the general writer.
    private static func appendInteger(_ integer: PlistInteger, to bytes: inout [UInt8]) -> Bool {
        if let value = integer.int64Value, value >= 0 {
            appendLength(Int(value), to: &bytes)
        } else if let value = integer.int64Value {
            bytes.append(0x13)
            appendBigEndian(UInt64(bitPattern: value), byteCount: 8, to: &bytes)
        } else {
            return false
        }
        return true
    }

    /// A non-negative integer object in the fewest bytes.
    private static func appendLength(_ value: Int, to bytes: inout [UInt8]) {
        switch value {
        case ..<(1 << 8):
            bytes.append(0x10)
            bytes.append(UInt8(value))
        case ..<(1 << 16):
            bytes.append(0x11)
            appendBigEndian(UInt64(value), byteCount: 2, to: &bytes)
        case ..<(1 << 32):
            bytes.append(0x12)
            appendBigEndian(UInt64(value), byteCount: 4, to: &bytes)
        default:
            bytes.append(0x13)
            appendBigEndian(UInt64(value), byteCount: 8, to: &bytes)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
