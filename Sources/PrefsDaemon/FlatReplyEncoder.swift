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
            return encode(keys: keysWithValue, values: [id, op, value, .integer(PlistInteger(version))], count: 4)
        case .get(nil, let version), .set(let version), .setMany(let version), .remove(let version),
            .writeDomain(let version), .removeDomain(let version):
            return encode(keys: keysWithVersion, values: [id, op, .integer(PlistInteger(version))], count: 3)
        case .synchronize, .unsubscribe:
            return encode(keys: keysOfAcknowledgement, values: [id, op], count: 2)
        default:
            return nil
        }
    }

    // The replies' keys, made once.
    private static let keysWithValue = ["id", "op", "value", "version"]
    private static let keysWithVersion = ["id", "op", "version"]
    private static let keysOfAcknowledgement = ["id", "op"]

    /// Writes the document in one pass into an array of the exact size, computed first.
    private static func encode(
        keys: some Collection<String>, values: some Collection<PlistValue>, count: Int
    ) -> [UInt8]? {
        // Object references are one byte: the dictionary, its keys and its values must number at most 255.
        guard count <= 127 else { return nil }
        var objectsLength = 1 + (count < 15 ? 0 : 2) + 2 * count
        for key in keys { objectsLength += stringLength(key) }
        for value in values {
            guard let length = valueLength(value) else { return nil }
            objectsLength += length
        }
        let tableOffset = headerLength + objectsLength
        let offsetSize = tableOffset < 1 << 8 ? 1 : tableOffset < 1 << 16 ? 2 : 4
        let objectCount = 1 + 2 * count
        let total = tableOffset + objectCount * offsetSize + trailerLength
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var writer = Writer(base: buffer.baseAddress!)
            var offsets = Offsets(size: offsetSize, table: buffer.baseAddress! + tableOffset)
            writer.write(contentsOf: "bplist00")
            offsets.record(writer.position)
            if count < 15 {
                writer.writeByte(0xD0 | UInt8(count))
            } else {
                writer.writeByte(0xDF)
                writer.writeByte(0x10)
                writer.writeByte(UInt8(count))
            }
            for index in 0..<(2 * count) { writer.writeByte(UInt8(1 + index)) }
            for key in keys {
                offsets.record(writer.position)
                guard writer.writeASCII(key) else {
                    failed = true
                    break
                }
            }
            if !failed {
                for value in values {
                    offsets.record(writer.position)
                    guard writer.writeValue(value) else {
                        failed = true
                        break
                    }
                }
            }
            guard !failed, writer.position == tableOffset else {
                failed = true
                initialized = 0
                return
            }
            writer.position = tableOffset + objectCount * offsetSize
            // Six unused bytes, the offset size, the reference size (1).
            writer.writeBigEndian(UInt64(offsetSize) << 8 | 1, byteCount: 8)
            writer.writeBigEndian(UInt64(objectCount), byteCount: 8)
            writer.writeBigEndian(0, byteCount: 8)
            writer.writeBigEndian(UInt64(tableOffset), byteCount: 8)
            initialized = total
        }
        return failed ? nil : bytes
    }

    private static let headerLength = 8

    private static let trailerLength = 32

    /// The bytes of an ASCII string object: the marker, the length beyond 14, the characters.
    private static func stringLength(_ string: String) -> Int {
        let count = string.utf8.count
        return 1 + (count < 15 ? 0 : integerLength(UInt64(count))) + count
    }

    /// The bytes of a non-negative integer object in the fewest bytes.
    private static func integerLength(_ value: UInt64) -> Int {
        value < 1 << 8 ? 2 : value < 1 << 16 ? 3 : value < 1 << 32 ? 5 : 9
    }

    /// The bytes of a flat value's object, or `nil` for a value that is not flat.
    private static func valueLength(_ value: PlistValue) -> Int? {
        switch value {
        case .string(let string): return stringLength(string)
        case .integer(let integer):
            guard let signed = integer.int64Value else { return nil }
            return signed >= 0 ? integerLength(UInt64(signed)) : 9
        case .bool: return 1
        case .real: return 9
        default: return nil
        }
    }

    /// The offset table, filled as the objects are written.
    private struct Offsets {
        let size: Int
        var cursor: UnsafeMutablePointer<UInt8>

        init(size: Int, table: UnsafeMutablePointer<UInt8>) {
            self.size = size
            self.cursor = table
        }

        mutating func record(_ offset: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                cursor.pointee = UInt8(truncatingIfNeeded: offset >> shift)
                cursor += 1
            }
        }
    }

    /// Writes into memory sized for the document.
    private struct Writer {
        let base: UnsafeMutablePointer<UInt8>
        var position = 0

        mutating func writeByte(_ byte: UInt8) {
            base[position] = byte
            position += 1
        }

        mutating func write(contentsOf text: StaticString) {
            (base + position).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
            position += text.utf8CodeUnitCount
        }

        mutating func writeBigEndian(_ value: UInt64, byteCount: Int) {
            for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
                writeByte(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }

        /// A non-negative integer object in the fewest bytes (as ``FlatReplyEncoder/integerLength(_:)`` counts).
        mutating func writeUnsigned(_ value: UInt64) {
            switch value {
            case ..<(1 << 8):
                writeByte(0x10)
                writeByte(UInt8(value))
            case ..<(1 << 16):
                writeByte(0x11)
                writeBigEndian(value, byteCount: 2)
            case ..<(1 << 32):
                writeByte(0x12)
                writeBigEndian(value, byteCount: 4)
            default:
                writeByte(0x13)
                writeBigEndian(value, byteCount: 8)
            }
        }

        /// An ASCII string object (`0x5n`), or `false` for a string with other characters.
        mutating func writeASCII(_ string: String) -> Bool {
            var string = string
            return string.withUTF8 { utf8 in
                guard BinaryFlatDictionary.isASCII(UnsafeRawBufferPointer(utf8)) else { return false }
                if utf8.count < 15 {
                    writeByte(0x50 | UInt8(utf8.count))
                } else {
                    writeByte(0x5F)
                    writeUnsigned(UInt64(utf8.count))
                }
                if let start = utf8.baseAddress { (base + position).update(from: start, count: utf8.count) }
                position += utf8.count
                return true
            }
        }

        /// A flat value's object; `false` for a string that is not ASCII (the lengths ruled out the rest).
        mutating func writeValue(_ value: PlistValue) -> Bool {
            switch value {
            case .string(let string):
                return writeASCII(string)
            case .integer(let integer):
                guard let signed = integer.int64Value else { return false }
                if signed >= 0 {
                    writeUnsigned(UInt64(signed))
                } else {
                    writeByte(0x13)
                    writeBigEndian(UInt64(bitPattern: signed), byteCount: 8)
                }
            case .bool(let flag):
                writeByte(flag ? 0x09 : 0x08)
            case .real(let real):
                writeByte(0x23)
                writeBigEndian(real.bitPattern, byteCount: 8)
            default:
                return false
            }
            return true
        }
    }
}
