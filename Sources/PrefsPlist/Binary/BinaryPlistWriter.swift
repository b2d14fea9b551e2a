// SPDX-License-Identifier: Apache-2.0
/// Writes Apple's binary property-list format (`bplist00`) with the same layout as CPython's
/// `plistlib` (`_BinaryPlistWriter`, `sort_keys=True`).
///
/// The value is flattened depth-first into a list of objects: a container comes before its
/// contents, a dictionary's keys (sorted by Unicode scalar values) before its values. Scalars
/// (strings, integers, reals, dates, data, booleans and null) that are equal in type and value are
/// written once and referenced from every place they occur, and so are equal arrays and
/// dictionaries; UIDs never are. `plistlib` shares a container only when the same Python object
/// occurs twice; sharing equal containers gives the same file as `plistlib` does when equal
/// containers are one object, and a far smaller one for repeated containers in a `PlistValue`,
/// which has no object identity.
/// Integers take the smallest size `plistlib` picks (negative: 8 bytes; 2^63 and above: 16 bytes),
/// reals always 8 bytes, strings ASCII when they can and UTF-16BE otherwise, UIDs the smallest
/// of 1, 2, 4 or 8 bytes. Object references and offset-table entries take the fewest bytes that
/// hold the object count and the offset table's position.
///
/// One deliberate difference: reals (and dates) are the same object only when their bit patterns
/// match, so `-0.0` and `0.0` stay distinct (`plistlib` merges them and loses the sign).
enum BinaryPlistWriter {
    /// Encodes a value as a binary property list.
    /// - Parameter value: The top-level value; any ``PlistValue`` can be written.
    /// - Returns: The file's bytes.
    /// - Throws: ``PlistError`` with `.unrepresentable` if the value cannot be written; every
    ///   ``PlistValue`` the model can hold has a binary form, so this does not happen today.
    static func write(_ value: PlistValue) throws -> [UInt8] {
        var table = ObjectTable(sizedFor: value)
        _ = table.add(value)
        return table.serialized()
    }
}

extension BinaryPlistWriter {
    /// The flattened object list, built in `plistlib`'s order, and its serialisation.
    struct ObjectTable: ~Copyable {
        /// One object: a scalar's encoded bytes, or a container's references.
        private struct Object {
            enum Kind { case scalar, array, dictionary }
            var kind: Kind
            /// For a scalar, where its bytes start in `scalarBytes`; for a container, where its
            /// references start in `references`.
            var start: Int
            /// For a scalar, its byte length; for a container, its element or entry count.
            var count: Int
        }

        private var objects: [Object] = []
        /// Every scalar object's complete encoding (marker included), back to back.
        private var scalarBytes: ByteBuffer
        /// Container references (object indexes): an array's elements, or a dictionary's keys
        /// followed by its values.
        private var references: [Int] = []
        private var uniquing: UniquingTable
        /// Arrays and dictionaries already written, keyed by their kind and references.
        private var containerUniquing: UniquingTable

        /// Creates a table with room for about as many objects as `value` has at its top level,
        /// which for most documents is the bulk of them.
        init(sizedFor value: PlistValue) {
            let expected: Int
            switch value {
            case .array(let elements): expected = elements.count + 1
            case .dictionary(let entries): expected = 2 * entries.count + 1
            default: expected = 1
            }
            objects.reserveCapacity(expected)
            references.reserveCapacity(expected)
            scalarBytes = ByteBuffer(capacity: 16 * expected)
            uniquing = UniquingTable(expectedCount: expected)
            // About one container for every eight top-level objects in mixed documents.
            containerUniquing = UniquingTable(expectedCount: expected / 8)
        }

        // MARK: - Flattening

        /// Adds `value` and everything it contains; returns its object index.
        mutating func add(_ value: PlistValue) -> Int {
            switch value {
            case .array(let elements):
                let index = appendContainer(.array, count: elements.count)
                let start = objects[index].start
                for (position, element) in elements.enumerated() {
                    references[start + position] = add(element)
                }
                return uniqueContainer(index)
            case .dictionary(let entries):
                let index = appendContainer(.dictionary, count: entries.count)
                let start = objects[index].start
                let keys = SortedKeys(entries)
                for position in 0..<keys.count {
                    let key = keys.key(at: position)
                    references[start + position] = intern { BinaryPlistWriter.appendString(key, to: &$0) }
                }
                for position in 0..<keys.count {
                    references[start + keys.count + position] = add(keys.value(at: position))
                }
                return uniqueContainer(index)
            case .uid(let number):
                // UIDs are never shared, as in plistlib (a UID is not one of its scalar types).
                let start = scalarBytes.count
                BinaryPlistWriter.appendUID(number, to: &scalarBytes)
                objects.append(Object(kind: .scalar, start: start, count: scalarBytes.count - start))
                return objects.count - 1
            case .string(let text):
                return intern { BinaryPlistWriter.appendString(text, to: &$0) }
            case .integer(let number):
                return intern { BinaryPlistWriter.appendInteger(number, to: &$0) }
            case .real(let real):
                return intern { BinaryPlistWriter.appendDouble(real, marker: 0x23, to: &$0) }
            case .date(let date):
                return intern { BinaryPlistWriter.appendDouble(date.secondsSinceReferenceDate, marker: 0x33, to: &$0) }
            case .data(let bytes):
                return intern { BinaryPlistWriter.appendData(bytes, to: &$0) }
            case .bool(let flag):
                return intern { BinaryPlistWriter.appendByte(flag ? 0x09 : 0x08, to: &$0) }
            case .null:
                return intern { BinaryPlistWriter.appendByte(0x00, to: &$0) }
            }
        }

        /// The index of the finished container at `index`, or of an equal one written before, in which
        /// case this one is dropped.
        ///
        /// Equal containers have equal references once their contents are shared, so the references
        /// are the key, hashed bottom-up as each container finishes. A duplicate's contents are all
        /// earlier objects, so it is the last object and dropping it leaves the table as if it had
        /// never been added, which is what `plistlib` does for a container it has seen.
        private mutating func uniqueContainer(_ index: Int) -> Int {
            let object = objects[index]
            let referenceCount = object.kind == .array ? object.count : 2 * object.count
            // The root equals nothing before it (there is nothing) and nothing after it (that would be inside it).
            guard index > 0, index < UniquingTable.maximumObjects else { return index }
            let hash = references.withUnsafeBufferPointer {
                UniquingTable.hash(
                    references: UnsafeBufferPointer(rebasing: $0[object.start..<object.start + referenceCount]),
                    isDictionary: object.kind == .dictionary)
            }
            var slot = containerUniquing.firstSlot(for: hash)
            // Only the last object can equal an earlier container: its references are all earlier.
            let mayBeDuplicate = index == objects.count - 1
            while true {
                let (candidate, isFree) = containerUniquing.object(inSlot: slot, matching: hash)
                if isFree { break }
                if mayBeDuplicate, let candidate, objects[candidate].kind == object.kind,
                    objects[candidate].count == object.count,
                    references[objects[candidate].start..<objects[candidate].start + referenceCount]
                        == references[object.start..<object.start + referenceCount]
                {
                    objects.removeLast()
                    references.removeLast(referenceCount)
                    return candidate
                }
                slot = containerUniquing.slot(after: slot)
            }
            containerUniquing.insert(index, hash: hash, inSlot: slot)
            return index
        }

        /// Appends a container with room for its references.
        private mutating func appendContainer(_ kind: Object.Kind, count: Int) -> Int {
            let start = references.count
            references.append(contentsOf: repeatElement(0, count: kind == .dictionary ? 2 * count : count))
            objects.append(Object(kind: kind, start: start, count: count))
            return objects.count - 1
        }

        /// Encodes a scalar at the end of `scalarBytes` and makes it an object, or drops it and
        /// returns the index of an identical one written before.
        @inline(__always)
        private mutating func intern(_ encode: (inout ByteBuffer) -> Void) -> Int {
            let start = scalarBytes.count
            encode(&scalarBytes)
            let length = scalarBytes.count - start
            guard objects.count < UniquingTable.maximumObjects else {
                objects.append(Object(kind: .scalar, start: start, count: length))
                return objects.count - 1
            }
            let encoded = scalarBytes.bytes(start..<start + length)
            let hash = UniquingTable.hash(encoded)
            var slot = uniquing.firstSlot(for: hash)
            while true {
                let (candidate, isFree) = uniquing.object(inSlot: slot, matching: hash)
                if isFree { break }
                if let candidate, objects[candidate].count == length,
                    Self.equal(scalarBytes.bytes(objects[candidate].start..<objects[candidate].start + length), encoded)
                {
                    scalarBytes.removeLast(length)
                    return candidate
                }
                slot = uniquing.slot(after: slot)
            }
            uniquing.insert(objects.count, hash: hash, inSlot: slot)
            objects.append(Object(kind: .scalar, start: start, count: length))
            return objects.count - 1
        }

        /// Compares two byte runs of the same length, eight bytes at a time.
        private static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
            guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
            let count = left.count
            var index = 0
            while index + 8 <= count {
                if leftBase.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    != rightBase.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                {
                    return false
                }
                index += 8
            }
            while index < count {
                if leftBase.load(fromByteOffset: index, as: UInt8.self)
                    != rightBase.load(fromByteOffset: index, as: UInt8.self)
                {
                    return false
                }
                index += 1
            }
            return true
        }

        // MARK: - Serialisation

        /// The finished file: header, objects in order, offset table, trailer.
        func serialized() -> [UInt8] {
            let referenceSize = Self.byteWidth(forCount: objects.count)
            var offsetTableStart = BinaryPlistReader.headerLength
            for object in objects {
                switch object.kind {
                case .scalar:
                    offsetTableStart += object.count
                case .array:
                    offsetTableStart += Self.markerLength(forCount: object.count) + object.count * referenceSize
                case .dictionary:
                    offsetTableStart += Self.markerLength(forCount: object.count) + 2 * object.count * referenceSize
                }
            }
            let offsetSize = Self.byteWidth(forCount: offsetTableStart)
            let total = offsetTableStart + objects.count * offsetSize + BinaryPlistReader.trailerLength
            return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
                guard let start = buffer.baseAddress else { return }
                let base = UnsafeMutableRawPointer(start)
                for (index, byte) in "bplist00".utf8.enumerated() {
                    base.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
                }
                var position = BinaryPlistReader.headerLength
                var offsetEntry = base + offsetTableStart
                references.withUnsafeBufferPointer { references in
                    for object in objects {
                        BinaryPlistWriter.storeBigEndian(UInt64(position), size: offsetSize, at: offsetEntry)
                        offsetEntry += offsetSize
                        switch object.kind {
                        case .scalar:
                            let source = scalarBytes.bytes(object.start..<object.start + object.count)
                            UnsafeMutableRawBufferPointer(start: base + position, count: object.count).copyMemory(
                                from: source)
                            position += object.count
                        case .array, .dictionary:
                            let token: UInt8 = object.kind == .array ? 0xA0 : 0xD0
                            position += BinaryPlistWriter.storeMarker(token, count: object.count, at: base + position)
                            let referenceCount = object.kind == .array ? object.count : 2 * object.count
                            for reference in references[object.start..<object.start + referenceCount] {
                                BinaryPlistWriter.storeBigEndian(
                                    UInt64(reference), size: referenceSize, at: base + position)
                                position += referenceSize
                            }
                        }
                    }
                }
                // Trailer: 5 unused bytes, the sort version (0), the two sizes, then the object
                // count, the top object (always the first) and the offset table's position.
                let trailer = base + total - BinaryPlistReader.trailerLength
                trailer.initializeMemory(as: UInt8.self, repeating: 0, count: 6)
                trailer.storeBytes(of: UInt8(offsetSize), toByteOffset: 6, as: UInt8.self)
                trailer.storeBytes(of: UInt8(referenceSize), toByteOffset: 7, as: UInt8.self)
                BinaryPlistWriter.storeBigEndian(UInt64(objects.count), size: 8, at: trailer + 8)
                BinaryPlistWriter.storeBigEndian(0, size: 8, at: trailer + 16)
                BinaryPlistWriter.storeBigEndian(UInt64(offsetTableStart), size: 8, at: trailer + 24)
                initialized = total
            }
        }

        /// `plistlib`'s `_count_to_size`: 1, 2, 4 or 8 bytes.
        static func byteWidth(forCount count: Int) -> Int {
            if count < 1 << 8 { return 1 }
            if count < 1 << 16 { return 2 }
            if count < 1 << 32 { return 4 }
            return 8
        }

        /// The length of a marker carrying `count`: the marker alone below 15, else the marker and
        /// an integer object of 1, 2, 4 or 8 bytes.
        static func markerLength(forCount count: Int) -> Int {
            count < 15 ? 1 : 2 + byteWidth(forCount: count)
        }
    }
}
