// SPDX-License-Identifier: Apache-2.0
/// Reads Apple's binary property-list format (`bplist00`) the way CoreFoundation's
/// `CFBinaryPList.c` does.
///
/// A binary property list is an 8-byte header (`bplist0` and a version byte), a run of encoded
/// objects, an offset table giving each object's position, and a 32-byte trailer describing the
/// table. Containers hold object references (indexes into the offset table), so one object can be
/// referenced many times and a corrupt file can reference an object from inside itself.
///
/// The reader checks every size, offset and reference before it reads, so no input makes it read
/// outside the buffer. Cycles are rejected, nesting is bounded by ``PlistLimits/maxDepth``, and
/// ``PlistLimits/maxObjectCount`` bounds the objects of the decoded tree counting every reference,
/// so a small file whose references fan out to an enormous tree fails quickly instead of
/// expanding.
enum BinaryPlistReader {
    /// The length of the `bplist0?` header.
    static let headerLength = 8
    /// The length of the trailer at the end of the file.
    static let trailerLength = 32

    /// Decodes a binary property list.
    /// - Parameters:
    ///   - bytes: The whole file, starting with `bplist0`.
    ///   - limits: The size, depth and object-count limits to enforce.
    /// - Returns: The top-level value.
    /// - Throws: ``PlistError`` naming the problem and its byte offset: `.malformed` for a broken
    ///   structure, `.invalidEncoding` for a string that is not valid ASCII or UTF-16, and
    ///   `.limitExceeded` when the input is larger, deeper or has more objects than `limits` allow.
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded,
                "binary property list of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes) bytes",
                at: .byteOffset(0))
        }
        let trailer = try Trailer(bytes, limits: limits)
        guard let base = bytes.baseAddress else { throw malformed("binary property list is empty", at: 0) }
        let decoder = ObjectDecoder(base: base, trailer: trailer, limits: limits)
        return try decoder.decodeTopObject()
    }

    /// Builds the error for a structural problem at `offset`.
    static func malformed(_ message: String, at offset: Int) -> PlistError {
        PlistError(.malformed, message, at: .byteOffset(offset))
    }

    /// "1 byte", "2 bytes", …
    static func byteCount(_ count: Int) -> String { count == 1 ? "1 byte" : "\(count) bytes" }

    /// Reads a big-endian unsigned integer of 1 to 8 bytes; the caller has checked the bounds.
    @inline(__always)
    static func readUnsigned(_ base: UnsafeRawPointer, at offset: Int, size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for index in 0..<size {
                value = value << 8 | UInt64(base.load(fromByteOffset: offset + index, as: UInt8.self))
            }
            return value
        }
    }
}

extension BinaryPlistReader {
    /// The validated contents of the header and trailer.
    struct Trailer: Sendable {
        /// Bytes per offset-table entry, 1–8.
        let offsetSize: Int
        /// Bytes per object reference inside containers, 1–8.
        let referenceSize: Int
        /// Number of objects, which is the number of offset-table entries.
        let objectCount: Int
        /// Index of the top-level object.
        let topObject: Int
        /// Where the offset table starts; the object data ends just before it.
        let offsetTableStart: Int

        /// Validates the header, the trailer and every offset-table entry, with CoreFoundation's
        /// rules: the offset table must end exactly where the trailer starts, sizes must be wide
        /// enough for what they address, and every entry must point before the offset table.
        init(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws {
            let count = bytes.count
            // Compared in place: the generic `starts(with:)` over a string's UTF-8 view costs more than the rest of
            // a small document's trailer check, and the daemon checks one per request.
            guard count >= 6,
                UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)) == 0x6270_6C69,  // "bpli"
                UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self)) == 0x7374  // "st"
            else {
                throw malformed("not a binary property list: the file does not start with \"bplist\"", at: 0)
            }
            let minimumLength = headerLength + 1 + trailerLength
            if count >= headerLength, bytes[6] != UInt8(ascii: "0") {
                let version = bytes[6..<8].map { $0 >= 0x20 && $0 < 0x7F ? "\(UnicodeScalar($0))" : "?" }
                throw malformed(
                    "unsupported binary property list version \"bplist\(version.joined())\" (only bplist0? is read)",
                    at: 6)
            }
            guard count >= minimumLength else {
                throw malformed(
                    "binary property list is truncated: \(byteCount(count)), but a header, one object and the "
                        + "trailer need at least \(minimumLength)",
                    at: count)
            }
            guard let base = bytes.baseAddress else { throw malformed("binary property list is empty", at: 0) }
            let trailerStart = count - trailerLength
            let offsetSize = Int(bytes[trailerStart + 6])
            let referenceSize = Int(bytes[trailerStart + 7])
            let objectCount = readUnsigned(base, at: trailerStart + 8, size: 8)
            let topObject = readUnsigned(base, at: trailerStart + 16, size: 8)
            let tableStart = readUnsigned(base, at: trailerStart + 24, size: 8)

            guard (1...8).contains(offsetSize) else {
                throw malformed(
                    "trailer gives offset-table entries a size of \(offsetSize) bytes (must be 1 to 8)",
                    at: trailerStart + 6)
            }
            guard (1...8).contains(referenceSize) else {
                throw malformed(
                    "trailer gives object references a size of \(referenceSize) bytes (must be 1 to 8)",
                    at: trailerStart + 7)
            }
            guard objectCount >= 1 else { throw malformed("trailer declares no objects", at: trailerStart + 8) }
            guard topObject < objectCount else {
                throw malformed(
                    "trailer names object \(topObject) as the top object, but there are only "
                        + "\(objectCount) objects", at: trailerStart + 16)
            }
            guard tableStart >= UInt64(headerLength + 1), tableStart < UInt64(trailerStart) else {
                throw malformed(
                    "trailer puts the offset table at offset \(tableStart), outside the \(count)-byte "
                        + "file's object data", at: trailerStart + 24)
            }
            let offsetTableStart = Int(tableStart)
            let tableLength = trailerStart - offsetTableStart
            guard objectCount <= UInt64(tableLength / offsetSize), Int(objectCount) * offsetSize == tableLength else {
                throw malformed(
                    "offset table of \(objectCount) entries of \(byteCount(offsetSize)) does not fill the "
                        + "\(tableLength) bytes between it and the trailer", at: offsetTableStart)
            }
            guard objectCount <= UInt64(limits.maxObjectCount) else {
                throw PlistError(
                    .limitExceeded,
                    "binary property list declares \(objectCount) objects, more than "
                        + "the limit of \(limits.maxObjectCount)", at: .byteOffset(trailerStart + 8))
            }
            guard referenceSize == 8 || objectCount < UInt64(1) << (8 * referenceSize) else {
                throw malformed(
                    "object references of \(byteCount(referenceSize)) cannot address \(objectCount) objects",
                    at: trailerStart + 7)
            }
            guard offsetSize == 8 || tableStart < UInt64(1) << (8 * offsetSize) else {
                throw malformed(
                    "offset-table entries of \(byteCount(offsetSize)) cannot reach the offset table at "
                        + "offset \(tableStart)", at: trailerStart + 6)
            }
            let lastObjectByte = UInt64(offsetTableStart - 1)
            var entry = offsetTableStart
            for index in 0..<Int(objectCount) {
                let offset = readUnsigned(base, at: entry, size: offsetSize)
                guard offset <= lastObjectByte else {
                    throw malformed(
                        "offset table puts object \(index) at offset \(offset), past the object data, "
                            + "which ends at offset \(lastObjectByte)", at: entry)
                }
                entry += offsetSize
            }
            self.offsetSize = offsetSize
            self.referenceSize = referenceSize
            self.objectCount = Int(objectCount)
            self.topObject = Int(topObject)
            self.offsetTableStart = offsetTableStart
        }
    }
}
