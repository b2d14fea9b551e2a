// SPDX-License-Identifier: Apache-2.0
/// Reads, in place, a binary property list whose top object is a small dictionary of scalars: the fast path for
/// the daemon's requests (`get`, `set` of a scalar, `remove`), whose frames are such documents.
///
/// It builds no ``PlistValue`` and no dictionary: each entry is handed to the caller as the key's bytes and a
/// ``Scalar`` pointing into the buffer. It accepts only what it fully checks, with the general reader's rules and
/// limits (``BinaryPlistReader/Trailer`` validates the header, trailer and offset table): a top-level dictionary of at
/// most 14 entries, every key an ASCII string, every value a boolean, an integer, a real or an ASCII string, no key
/// twice. Anything else, valid or not, makes ``visit(_:limits:_:)`` return `false`, and the
/// caller decodes the document with ``PlistSerialization``, which reads it or names its problem. What this reader
/// accepts, the general reader decodes to the same entries (the wire tests and the wire fuzz harness check it).
package enum BinaryFlatDictionary {
    /// One value, read in place.
    package enum Scalar {
        case bool(Bool)
        case integer(PlistInteger)
        case real(Double)
        /// The string's bytes, all ASCII, valid during the visit only.
        case asciiString(UnsafeRawBufferPointer)
    }

    /// Whether every byte is below 0x80 (the check the binary reader makes of an ASCII string object), for writers
    /// of flat documents.
    package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        BinaryPlistReader.ObjectDecoder.firstNonASCIIIndex(bytes) == nil
    }

    /// The most entries the fast path reads: a count that fits in the dictionary marker's low nibble.
    static let maxEntries = 14

    /// Hands each entry of the document to `visit`, in the file's order.
    /// - Parameters:
    ///   - bytes: The whole document.
    ///   - limits: The limits the general reader would apply.
    ///   - visit: Called with each key's bytes and value; returns `false` to give up (the caller will use the
    ///     general reader).
    /// - Returns: `true` when the document is such a dictionary and `visit` took every entry; `false` otherwise,
    ///   possibly after some entries were visited.
    package static func visit(
        _ bytes: UnsafeRawBufferPointer, limits: PlistLimits,
        _ visit: (_ key: UnsafeRawBufferPointer, _ value: Scalar) -> Bool
    ) -> Bool {
        guard bytes.count <= limits.maxInputBytes, limits.maxDepth > 0, let base = bytes.baseAddress,
            let trailer = try? BinaryPlistReader.Trailer(bytes, limits: limits)
        else { return false }
        let document = Document(base: base, trailer: trailer, truncatesWideIntegers: limits.truncatesWideIntegers)
        guard let top = document.objectOffset(trailer.topObject) else { return false }
        let marker = base.load(fromByteOffset: top, as: UInt8.self)
        let count = Int(marker & 0x0F)
        // Every reference counts against the object limit, as in the general reader: the dictionary, its keys and
        // its values.
        guard marker >> 4 == 0xD, count <= maxEntries, 1 + 2 * count <= limits.maxObjectCount else { return false }
        let references = top + 1
        guard 2 * count * trailer.referenceSize <= document.objectsEnd - references else { return false }
        // The keys seen so far, on the stack: at most 14.
        return withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: maxEntries) { keys in
            for entry in 0..<count {
                guard
                    let keyObject = document.reference(at: references + entry * trailer.referenceSize),
                    let valueObject = document.reference(at: references + (count + entry) * trailer.referenceSize),
                    let key = document.asciiString(keyObject),
                    !keys[0..<entry].contains(where: { RawBytes.equal($0, key) }),
                    let value = document.scalar(valueObject),
                    visit(key, value)
                else { return false }
                keys.initializeElement(at: entry, to: key)
            }
            return true
        }
    }

    /// The checked document: every accessor returns `nil` for what the fast path does not take.
    private struct Document {
        let base: UnsafeRawPointer
        let trailer: BinaryPlistReader.Trailer
        let truncatesWideIntegers: Bool

        /// The end (exclusive) of the object data.
        var objectsEnd: Int { trailer.offsetTableStart }

        /// Where object `index` starts, when that is past the header (the trailer check put it before the table).
        @inline(__always)
        func objectOffset(_ index: Int) -> Int? {
            let entry = trailer.offsetTableStart + index * trailer.offsetSize
            let offset = Int(
                truncatingIfNeeded: BinaryPlistReader.readUnsigned(base, at: entry, size: trailer.offsetSize))
            return offset >= BinaryPlistReader.headerLength ? offset : nil
        }

        /// The offset of the object a reference at `position` names.
        @inline(__always)
        func reference(at position: Int) -> Int? {
            let index = BinaryPlistReader.readUnsigned(base, at: position, size: trailer.referenceSize)
            guard index < UInt64(trailer.objectCount), index != UInt64(trailer.topObject) else { return nil }
            return objectOffset(Int(index))
        }

        /// An ASCII string object (`0x5n`) at `offset`.
        @inline(__always)
        func asciiString(_ offset: Int) -> UnsafeRawBufferPointer? {
            let marker = base.load(fromByteOffset: offset, as: UInt8.self)
            guard marker >> 4 == 0x5 else { return nil }
            var length = Int(marker & 0x0F)
            var start = offset + 1
            if length == 0x0F {
                // The length is an integer object of 1, 2 or 4 bytes after the marker.
                guard start < objectsEnd else { return nil }
                let lengthMarker = base.load(fromByteOffset: start, as: UInt8.self)
                guard lengthMarker >= 0x10, lengthMarker <= 0x12 else { return nil }
                let size = 1 << Int(lengthMarker & 0x0F)
                guard size < objectsEnd - start else { return nil }
                length = Int(BinaryPlistReader.readUnsigned(base, at: start + 1, size: size))
                start += 1 + size
            }
            guard start <= objectsEnd, length <= objectsEnd - start else { return nil }
            let characters = UnsafeRawBufferPointer(start: base + start, count: length)
            guard BinaryPlistReader.ObjectDecoder.firstNonASCIIIndex(characters) == nil else { return nil }
            return characters
        }

        /// A boolean, integer, real or ASCII string at `offset`.
        @inline(__always)
        func scalar(_ offset: Int) -> Scalar? {
            let marker = base.load(fromByteOffset: offset, as: UInt8.self)
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            case 0x10...0x14:
                let size = 1 << Int(marker & 0x0F)
                guard size < objectsEnd - offset else { return nil }
                // Integers of 1, 2 and 4 bytes are unsigned, of 8 bytes signed; of 16 bytes the general reader's
                // rule: the low half, exact only when the high half is zero or extends a negative low half.
                guard size == 16 else {
                    let bits = BinaryPlistReader.readUnsigned(base, at: offset + 1, size: size)
                    return .integer(size == 8 ? PlistInteger(Int64(bitPattern: bits)) : PlistInteger(bits))
                }
                let high = BinaryPlistReader.readUnsigned(base, at: offset + 1, size: 8)
                let low = BinaryPlistReader.readUnsigned(base, at: offset + 9, size: 8)
                if truncatesWideIntegers || high == 0 { return .integer(PlistInteger(low)) }
                guard high == UInt64.max, low >= UInt64(1) << 63 else { return nil }
                return .integer(PlistInteger(Int64(bitPattern: low)))
            case 0x22:
                guard 4 < objectsEnd - offset else { return nil }
                let bits = UInt32(truncatingIfNeeded: BinaryPlistReader.readUnsigned(base, at: offset + 1, size: 4))
                return .real(Double(Float(bitPattern: bits)))
            case 0x23:
                guard 8 < objectsEnd - offset else { return nil }
                return .real(Double(bitPattern: BinaryPlistReader.readUnsigned(base, at: offset + 1, size: 8)))
            default:
                return asciiString(offset).map(Scalar.asciiString)
            }
        }
    }
}
