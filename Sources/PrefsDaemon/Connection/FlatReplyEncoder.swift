// SPDX-License-Identifier: Apache-2.0
import NIOCore
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

    /// The payload of a successful reply whose result fields are flat (as ``appendFrame(of:to:maxFrameBytes:)``
    /// writes it, without the length prefix); `nil` for any other reply.
    static func encode(_ reply: WireReply) -> [UInt8]? {
        var buffer = ByteBuffer()
        guard appendFrame(of: reply, to: &buffer, maxFrameBytes: .max) else { return nil }
        return Array(buffer.readableBytesView.dropFirst(WireFrame.headerLength))
    }

    /// Appends the frame (length prefix and payload) of a successful reply whose result fields are flat straight to
    /// `buffer`, with neither the reply's dictionary nor an intermediate array: a `get`, every write's `version`,
    /// `synchronize` and `unsubscribe` are the daemon's most frequent replies.
    /// - Returns: `false`, with nothing written, for any other reply, a value that is not flat, or a payload longer
    ///   than `maxFrameBytes`.
    static func appendFrame(of reply: WireReply, to buffer: inout ByteBuffer, maxFrameBytes: Int) -> Bool {
        guard case .success(let result) = reply.outcome else { return false }
        var fields = ReplyFields(id: reply.id, operation: result.operation.rawValue)
        switch result {
        case .get(let value?, let version):
            fields.value = value
            fields.version = version
        case .get(nil, let version), .set(let version), .setMany(let version), .remove(let version),
            .writeDomain(let version), .removeDomain(let version):
            fields.version = version
        case .synchronize, .unsubscribe:
            break
        default:
            return false
        }
        return fields.appendFrame(to: &buffer, maxFrameBytes: maxFrameBytes)
    }

    /// The fields of a flat reply, in the order of their keys: `id`, `op`, then `value` and `version` when present.
    private struct ReplyFields {
        let id: UInt64
        let operation: String
        var value: PlistValue?
        var version: UInt64?

        init(id: UInt64, operation: String) {
            self.id = id
            self.operation = operation
        }

        func appendFrame(to buffer: inout ByteBuffer, maxFrameBytes: Int) -> Bool {
            // Integers above Int64.max are written by the general writer (as 16-byte integers). Operation names are
            // the protocol's own ASCII constants.
            guard id <= UInt64(Int64.max), (version ?? 0) <= UInt64(Int64.max) else { return false }
            let count = 2 + (value == nil ? 0 : 1) + (version == nil ? 0 : 1)
            // The dictionary marker and references, the keys `id` and `op` (three bytes each), their values.
            var objectsLength = 1 + 2 * count + 6 + integerLength(id) + stringLength(operation)
            if let value {
                guard let length = valueLength(value), !value.isNonASCIIString else { return false }
                objectsLength += 6 + length
            }
            if let version { objectsLength += 8 + integerLength(version) }
            let tableOffset = headerLength + objectsLength
            let offsetSize = tableOffset < 1 << 8 ? 1 : tableOffset < 1 << 16 ? 2 : 4
            let objectCount = 1 + 2 * count
            let total = tableOffset + objectCount * offsetSize + trailerLength
            guard total <= maxFrameBytes else { return false }
            buffer.writeInteger(UInt32(total), endianness: .big)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: total) { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var writer = Writer(base: base)
                var offsets = Offsets(size: offsetSize, table: base + tableOffset)
                writer.write(contentsOf: "bplist00")
                offsets.record(writer.position)
                writer.writeByte(0xD0 | UInt8(count))
                for index in 0..<(2 * count) { writer.writeByte(UInt8(1 + index)) }
                offsets.record(writer.position)
                writer.write(contentsOf: "\u{52}id")
                offsets.record(writer.position)
                writer.write(contentsOf: "\u{52}op")
                if value != nil {
                    offsets.record(writer.position)
                    writer.write(contentsOf: "\u{55}value")
                }
                if version != nil {
                    offsets.record(writer.position)
                    writer.write(contentsOf: "\u{57}version")
                }
                offsets.record(writer.position)
                writer.writeUnsigned(id)
                offsets.record(writer.position)
                _ = writer.writeASCII(operation)
                if let value {
                    offsets.record(writer.position)
                    _ = writer.writeValue(value)
                }
                if let version {
                    offsets.record(writer.position)
                    writer.writeUnsigned(version)
                }
                writer.position = tableOffset + objectCount * offsetSize
                writer.writeTrailer(offsetSize: offsetSize, objectCount: objectCount, tableOffset: tableOffset)
                return total
            }
            return true
        }
    }

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
            writer.writeTrailer(offsetSize: offsetSize, objectCount: objectCount, tableOffset: tableOffset)
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
            withUnsafeBytes(of: UInt64(offset).bigEndian) { bytes in
                cursor.update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + (8 - size), count: size)
            }
            cursor += size
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

        /// The trailer: six unused bytes, the offset size, the reference size (1), the object count, the top object
        /// (0) and the offset table's offset.
        mutating func writeTrailer(offsetSize: Int, objectCount: Int, tableOffset: Int) {
            writeBigEndian(UInt64(offsetSize) << 8 | 1, byteCount: 8)
            writeBigEndian(UInt64(objectCount), byteCount: 8)
            writeBigEndian(0, byteCount: 8)
            writeBigEndian(UInt64(tableOffset), byteCount: 8)
        }

        mutating func writeBigEndian(_ value: UInt64, byteCount: Int) {
            // The low `byteCount` bytes of the big-endian value, stored unaligned in one go.
            withUnsafeBytes(of: value.bigEndian) { bytes in
                (base + position).update(
                    from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + (8 - byteCount), count: byteCount)
            }
            position += byteCount
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

extension PlistValue {
    /// A string with a character beyond ASCII, which a flat document cannot hold as an ASCII string object.
    fileprivate var isNonASCIIString: Bool {
        guard case .string(var string) = self else { return false }
        return !string.withUTF8 { BinaryFlatDictionary.isASCII(UnsafeRawBufferPointer($0)) }
    }
}
