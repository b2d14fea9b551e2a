// SPDX-License-Identifier: Apache-2.0
import Glibc

extension BinaryPlistReader {
    /// Decodes objects of a binary property list whose trailer has been validated.
    ///
    /// Every object is counted at every reference to it: reusing a decoded object adds the number of
    /// objects in its expanded tree (its *weight*) to the running total, so the object-count limit
    /// sees the tree a consumer would walk, and its nesting height is checked against the depth limit
    /// where it is reused.
    ///
    /// Only objects that containers reference more than once are kept for reuse. A first pass over
    /// the offset table counts the references, so the common object, referenced once, goes straight
    /// into its container without being stored, retained and released a second time.
    ///
    /// Containers being decoded are kept on an explicit stack rather than the call stack, so the
    /// thread's stack size never limits the nesting depth; ``PlistLimits/maxDepth`` does.
    struct ObjectDecoder: ~Copyable {
        /// What the first pass learns about one object; all zero before it.
        private struct Entry {
            /// Where the object starts (the offset-table entry, read once).
            var offset: Int
            /// The container references to the object, counted up to 1; ``inProgress`` while a
            /// container referenced once is being decoded; ``firstShared`` plus its index in the
            /// shared objects for an object referenced more often.
            var link: Int
        }

        /// A decoded object that containers reference more than once.
        private struct Shared {
            var value: PlistValue = .null
            /// 0 before decoding, ``inProgress`` while its container is being decoded, else the
            /// number of objects in its expanded tree.
            var weight = 0
            /// Container nesting inside the object: 0 for a scalar, 1 for a container of scalars.
            var height = 0
        }

        /// A container whose children are being decoded.
        private struct Frame {
            /// The container's object index.
            let index: Int
            let isDictionary: Bool
            /// Elements, or dictionary entries.
            let count: Int
            /// Children in all: the elements, or keys and values.
            let childCount: Int
            /// Where its references start (a dictionary's keys, then its values).
            let referencesStart: Int
            /// The running object count before this container was counted.
            let countBefore: Int
            /// Children taken so far; a dictionary's alternate key, value, key, value…
            var taken = 0
            /// The object index of the last child taken.
            var lastChild = 0
            /// The greatest height among the children decoded so far.
            var height = 0
            var elements: [PlistValue]
            /// A dictionary's entries so far (`nil` for an array or a set).
            let entries: PendingEntries?
            /// The key whose value comes next.
            var key = PlistKey("")
        }

        private static let inProgress = -1
        /// The smallest link of an object referenced more than once.
        private static let firstShared = 2

        private let base: UnsafeRawPointer
        private let trailer: Trailer
        /// The end (exclusive) of the object data: no object may extend to here.
        private let objectsEnd: Int
        private let maxObjectCount: Int
        private let maxDepth: Int
        private let truncatesWideIntegers: Bool
        /// One entry per object, owned by the decoder (no copy-on-write checks on the hot path).
        private let table: UnsafeMutablePointer<Entry>

        /// Prepares to decode the file at `base`, whose `trailer` has been validated; the bytes
        /// must stay valid while decoding.
        init(base: UnsafeRawPointer, trailer: Trailer, limits: PlistLimits) {
            self.base = base
            self.trailer = trailer
            objectsEnd = trailer.offsetTableStart
            maxObjectCount = limits.maxObjectCount
            maxDepth = limits.maxDepth
            truncatesWideIntegers = limits.truncatesWideIntegers
            // Zeroed by the allocator: a large table comes as fresh pages, not written twice.
            guard let memory = calloc(trailer.objectCount, MemoryLayout<Entry>.stride) else {
                fatalError("out of memory for the table of \(trailer.objectCount) objects")
            }
            table = memory.bindMemory(to: Entry.self, capacity: trailer.objectCount)
        }

        deinit { free(table) }

        /// Decodes the top-level object and everything it references.
        ///
        /// The innermost open container lives in a local variable, so the common case, a child
        /// that is a scalar or was decoded before, goes straight into it; only when a child is
        /// itself a container does the current one move onto the stack. The decoder itself stays
        /// immutable (the running state is local), so calls into it pass it without copies.
        func decodeTopObject() throws -> PlistValue {
            var shared = Array(repeating: Shared(), count: indexObjects())
            let top = trailer.topObject
            let topOffset = table[top].offset
            guard topOffset >= headerLength else { try failHeaderOverlap(top, offset: topOffset) }
            // Objects in the expanded tree decoded so far, counting every reference.
            var decodedCount = 1
            guard decodedCount <= maxObjectCount else { try failObjectCount(at: topOffset) }
            let topMarker = base.load(fromByteOffset: topOffset, as: UInt8.self)
            guard Self.isContainer(topMarker) else { return try decodeScalar(top, marker: topMarker, at: topOffset) }
            var current = try open(top, marker: topMarker, at: topOffset, depth: 0, countBefore: 0)
            markInProgress(top, &shared)
            // The containers being decoded around the current one, outermost first.
            var frames: [Frame] = []
            // The depth of the current container's children.
            var depth = 1
            while true {
                while current.taken < current.childCount {
                    // A dictionary's children alternate key, value; its keys come first in the file.
                    let taken = current.taken
                    let position = current.isDictionary ? (taken & 1) * current.count + taken >> 1 : taken
                    let child = try reference(at: current.referencesStart + position * trailer.referenceSize)
                    current.taken = taken + 1
                    current.lastChild = child
                    let entry = table + child
                    let link = entry.pointee.link
                    if link >= Self.firstShared {
                        let slot = link - Self.firstShared
                        let weight = shared[slot].weight
                        if weight > 0 {
                            let height = shared[slot].height
                            decodedCount += weight
                            guard decodedCount <= maxObjectCount else { try failObjectCount(at: entry.pointee.offset) }
                            if depth + height > maxDepth { try failDepth(at: entry.pointee.offset) }
                            try Self.deliver(shared[slot].value, height: height, into: &current, decoder: self)
                            continue
                        }
                        guard weight == 0 else { try failCycle(child, at: entry.pointee.offset) }
                    } else {
                        guard link >= 0 else { try failCycle(child, at: entry.pointee.offset) }
                    }
                    // Not decoded yet, or (should a reference have escaped the count) decoded but
                    // not kept: decoding it again gives the same value and count.
                    let offset = entry.pointee.offset
                    guard offset >= headerLength else { try failHeaderOverlap(child, offset: offset) }
                    decodedCount += 1
                    guard decodedCount <= maxObjectCount else { try failObjectCount(at: offset) }
                    let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                    if Self.isContainer(marker) {
                        let inner = try open(
                            child, marker: marker, at: offset, depth: depth, countBefore: decodedCount - 1)
                        markInProgress(child, &shared)
                        frames.append(consume current)
                        current = inner
                        depth += 1
                        continue
                    }
                    let value = try decodeScalar(child, marker: marker, at: offset)
                    if link >= Self.firstShared {
                        shared[link - Self.firstShared] = Shared(value: value, weight: 1, height: 0)
                    }
                    try Self.deliver(value, height: 0, into: &current, decoder: self)
                }
                let value: PlistValue
                if let entries = current.entries {
                    value = .dictionary(entries.makeDictionary())
                } else {
                    // Moved out, so the array stays uniquely referenced and is not retained here.
                    var elements: [PlistValue] = []
                    swap(&elements, &current.elements)
                    value = .array(elements)
                }
                let height = current.height + 1
                let entry = table + current.index
                if entry.pointee.link >= Self.firstShared {
                    shared[entry.pointee.link - Self.firstShared] = Shared(
                        value: value, weight: decodedCount - current.countBefore, height: height)
                } else {
                    entry.pointee.link = 1
                }
                guard let outer = frames.popLast() else { return value }
                current = outer
                depth -= 1
                try Self.deliver(value, height: height, into: &current, decoder: self)
            }
        }

        // MARK: - Objects

        /// Whether `marker` starts an array (0xA), a set (0xC) or a dictionary (0xD).
        @inline(__always)
        private static func isContainer(_ marker: UInt8) -> Bool {
            let kind = marker >> 4
            return kind == 0xA || kind == 0xC || kind == 0xD
        }

        /// Marks the container `index`, just opened, so a reference to it from inside is a cycle.
        @inline(__always)
        private func markInProgress(_ index: Int, _ shared: inout [Shared]) {
            let link = table[index].link
            if link >= Self.firstShared {
                shared[link - Self.firstShared].weight = Self.inProgress
            } else {
                table[index].link = Self.inProgress
            }
        }

        /// Reads the offset table into `table` and counts the container references to each
        /// object, up to two; returns how many objects are referenced more than once, each given
        /// its place among them.
        ///
        /// A container the decoding would reject is skipped (with the same checks as ``open``):
        /// reaching it fails, so its references are never followed.
        private func indexObjects() -> Int {
            // One loop per offset width, so each reads its entries with one load.
            switch trailer.offsetSize {
            case 1: return indexObjects { Int($0.load(as: UInt8.self)) }
            case 2: return indexObjects { Int(UInt16(bigEndian: $0.loadUnaligned(as: UInt16.self))) }
            case 4: return indexObjects { Int(UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self))) }
            case 8:
                return indexObjects { Int(truncatingIfNeeded: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self))) }
            default:
                let size = trailer.offsetSize
                return indexObjects { Int(truncatingIfNeeded: BinaryPlistReader.readUnsigned($0, at: 0, size: size)) }
            }
        }

        /// ``indexObjects()`` with `readOffset` reading one offset-table entry.
        @inline(__always)
        private func indexObjects(readOffset: (UnsafeRawPointer) -> Int) -> Int {
            var sharedCount = 0
            var entry = base + trailer.offsetTableStart
            for index in 0..<trailer.objectCount {
                let offset = readOffset(entry)
                entry += trailer.offsetSize
                table[index].offset = offset
                guard offset >= headerLength else { continue }
                let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                guard Self.isContainer(marker), let (count, start) = validLengthAndStart(marker, at: offset) else {
                    continue
                }
                let isDictionary = marker >> 4 == 0xD
                let referenceSize = trailer.referenceSize
                guard count <= (objectsEnd - start) / (isDictionary ? 2 * referenceSize : referenceSize) else {
                    continue
                }
                countReferences(at: start, isDictionary ? 2 * count : count, &sharedCount)
            }
            return sharedCount
        }

        /// Counts the `count` references of one container, which start at `start`.
        private func countReferences(at start: Int, _ count: Int, _ sharedCount: inout Int) {
            let references = base + start
            // One loop per reference width, so each reads its references with one load.
            switch trailer.referenceSize {
            case 1: tally(references, count, UInt8.self, &sharedCount)
            case 2: tally(references, count, UInt16.self, &sharedCount)
            case 4: tally(references, count, UInt32.self, &sharedCount)
            case 8: tally(references, count, UInt64.self, &sharedCount)
            default:
                let size = trailer.referenceSize
                for child in 0..<count {
                    link(BinaryPlistReader.readUnsigned(references, at: child * size, size: size), &sharedCount)
                }
            }
        }

        /// Counts `count` big-endian references of type `Width` at `references`.
        @inline(__always)
        private func tally<Width: FixedWidthInteger & UnsignedInteger>(
            _ references: UnsafeRawPointer, _ count: Int, _: Width.Type, _ sharedCount: inout Int
        ) {
            for child in 0..<count {
                let position = child * MemoryLayout<Width>.size
                let index = Width(bigEndian: references.loadUnaligned(fromByteOffset: position, as: Width.self))
                link(UInt64(index), &sharedCount)
            }
        }

        /// Counts one reference to object `index`; an index out of range fails when it is decoded.
        @inline(__always)
        private func link(_ index: UInt64, _ sharedCount: inout Int) {
            guard index < UInt64(trailer.objectCount) else { return }
            let entry = table + Int(truncatingIfNeeded: index)
            switch entry.pointee.link {
            case 0: entry.pointee.link = 1
            case 1:
                entry.pointee.link = Self.firstShared + sharedCount
                sharedCount += 1
            default: break
            }
        }

        /// Opens an array (0xA), a set (0xC, read as an array) or a dictionary (0xD): a count,
        /// then that many references (for a dictionary, that many keys and as many values).
        private func open(_ index: Int, marker: UInt8, at offset: Int, depth: Int, countBefore: Int) throws -> Frame {
            guard depth < maxDepth else { try failDepth(at: offset) }
            let (count, start) = try lengthAndStart(marker, at: offset)
            let isDictionary = marker >> 4 == 0xD
            let referencesPerChild = isDictionary ? 2 * trailer.referenceSize : trailer.referenceSize
            guard count <= (objectsEnd - start) / referencesPerChild else {
                try failOverrun(isDictionary ? "dictionary" : marker >> 4 == 0xA ? "array" : "set", objectAt: offset)
            }
            // Every key and value counts at least one object, so a hostile count reserves no more
            // than the object-count limit can still take.
            let room = maxObjectCount - countBefore
            var elements: [PlistValue] = []
            let entries: PendingEntries?
            if isDictionary {
                entries = PendingEntries.make(capacity: min(count, room / 2))
            } else {
                entries = nil
                elements.reserveCapacity(min(count, room))
            }
            return Frame(
                index: index, isDictionary: isDictionary, count: count, childCount: isDictionary ? 2 * count : count,
                referencesStart: start, countBefore: countBefore, elements: elements, entries: entries)
        }

        /// Hands a finished child to its container.
        @inline(__always)
        private static func deliver(
            _ value: PlistValue, height: Int, into frame: inout Frame, decoder: borrowing ObjectDecoder
        ) throws {
            frame.height = max(frame.height, height)
            guard frame.isDictionary else {
                frame.elements.append(value)
                return
            }
            if frame.taken & 1 == 1 {
                guard case .string(let key) = value else { try decoder.failKeyType(frame.lastChild, value) }
                frame.key = PlistKey(key)
            } else {
                // The key moves into the entry; the empty key left behind is not reference counted.
                var key = PlistKey("")
                swap(&key, &frame.key)
                frame.entries.unsafelyUnwrapped.append(key, value)
            }
        }

        /// Decodes a non-container object (kept out of line so the decoding loop stays small).
        @inline(never)
        private func decodeScalar(_ index: Int, marker: UInt8, at offset: Int) throws -> PlistValue {
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                case 0x0F: try failFillByte(index, at: offset)
                default: try failUnknownMarker(marker, at: offset)
                }
            case 0x1: return .integer(try decodeInteger(marker, at: offset))
            case 0x2: return .real(try decodeReal(marker, at: offset))
            case 0x3:
                guard marker == 0x33 else { try failUnknownMarker(marker, at: offset) }
                try requireBytes(8, from: offset + 1, objectAt: offset)
                return .date(PlistDate(secondsSinceReferenceDate: readDouble(at: offset + 1)))
            case 0x4: return .data(try decodeData(marker, at: offset))
            case 0x5: return .string(try decodeASCIIString(marker, at: offset))
            case 0x6: return .string(try decodeUTF16String(marker, at: offset))
            case 0x8: return .uid(try decodeUID(marker, at: offset))
            default: try failUnknownMarker(marker, at: offset)
            }
        }

        /// Integers of 1, 2 and 4 bytes are unsigned and 8 bytes signed; of a 16-byte integer
        /// only the low 64 bits count, read as unsigned (CoreFoundation's rule), unless the limits
        /// refuse wide integers.
        private func decodeInteger(_ marker: UInt8, at offset: Int) throws -> PlistInteger {
            let exponent = marker & 0x0F
            guard exponent <= 4 else {
                throw malformed("integer of \(1 << exponent) bytes is not supported (at most 16)", at: offset)
            }
            let size = 1 << exponent
            try requireBytes(size, from: offset + 1, objectAt: offset)
            switch size {
            case 8:
                return PlistInteger(Int64(bitPattern: BinaryPlistReader.readUnsigned(base, at: offset + 1, size: 8)))
            case 16:
                let low = BinaryPlistReader.readUnsigned(base, at: offset + 9, size: 8)
                if !truncatesWideIntegers {
                    // Exact only when the high half is zero, or all ones above a negative low half.
                    let high = BinaryPlistReader.readUnsigned(base, at: offset + 1, size: 8)
                    if high == UInt64.max, low >= UInt64(1) << 63 { return PlistInteger(Int64(bitPattern: low)) }
                    guard high == 0 else {
                        throw malformed("integer of 16 bytes does not fit in 64 bits", at: offset)
                    }
                }
                return PlistInteger(low)
            default:
                return PlistInteger(BinaryPlistReader.readUnsigned(base, at: offset + 1, size: size))
            }
        }

        private func decodeReal(_ marker: UInt8, at offset: Int) throws -> Double {
            switch marker {
            case 0x22:
                try requireBytes(4, from: offset + 1, objectAt: offset)
                let bits = UInt32(truncatingIfNeeded: BinaryPlistReader.readUnsigned(base, at: offset + 1, size: 4))
                return Double(Float(bitPattern: bits))
            case 0x23:
                try requireBytes(8, from: offset + 1, objectAt: offset)
                return readDouble(at: offset + 1)
            default:
                throw malformed("real with marker 0x\(hex(marker)) is not 4 or 8 bytes long", at: offset)
            }
        }

        private func decodeData(_ marker: UInt8, at offset: Int) throws -> [UInt8] {
            let (length, start) = try lengthAndStart(marker, at: offset)
            try requireBytes(length, from: start, objectAt: offset)
            // The copy from a collection is specialised here; `init(unsafeUninitializedCapacity:)` is
            // not, and looks up the array storage's generic metadata at every call.
            return Array(UnsafeRawBufferPointer(start: base + start, count: length))
        }

        private func decodeASCIIString(_ marker: UInt8, at offset: Int) throws -> String {
            let (length, start) = try lengthAndStart(marker, at: offset)
            try requireBytes(length, from: start, objectAt: offset)
            let characters = UnsafeRawBufferPointer(start: base + start, count: length)
            if let bad = Self.firstNonASCIIIndex(characters) {
                throw PlistError(
                    .invalidEncoding, "ASCII string contains the non-ASCII byte 0x\(hex(characters[bad]))",
                    at: .byteOffset(start + bad))
            }
            return String(decoding: characters, as: UTF8.self)
        }

        /// Big-endian UTF-16; the count is in code units. Surrogates must pair up.
        private func decodeUTF16String(_ marker: UInt8, at offset: Int) throws -> String {
            let (units, start) = try lengthAndStart(marker, at: offset)
            guard units <= (objectsEnd - start) / 2 else { try failOverrun("UTF-16 string", objectAt: offset) }
            guard units > 0 else { return "" }
            let base = self.base
            return try String(unsafeUninitializedCapacity: units * 3) { output in
                var written = 0
                var index = 0
                while index < units {
                    let position = start + 2 * index
                    let unit = UInt16(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt16.self))
                    index += 1
                    if unit < 0x80 {
                        output[written] = UInt8(truncatingIfNeeded: unit)
                        written += 1
                    } else if unit < 0x800 {
                        output[written] = 0xC0 | UInt8(truncatingIfNeeded: unit >> 6)
                        output[written + 1] = 0x80 | UInt8(truncatingIfNeeded: unit & 0x3F)
                        written += 2
                    } else if unit & 0xF800 != 0xD800 {
                        output[written] = 0xE0 | UInt8(truncatingIfNeeded: unit >> 12)
                        output[written + 1] = 0x80 | UInt8(truncatingIfNeeded: unit >> 6 & 0x3F)
                        output[written + 2] = 0x80 | UInt8(truncatingIfNeeded: unit & 0x3F)
                        written += 3
                    } else {
                        let low =
                            index < units
                            ? UInt16(bigEndian: base.loadUnaligned(fromByteOffset: position + 2, as: UInt16.self)) : 0
                        guard unit < 0xDC00, low & 0xFC00 == 0xDC00 else {
                            throw PlistError(
                                .invalidEncoding, "UTF-16 string has an unpaired surrogate 0x\(hex(unit))",
                                at: .byteOffset(position))
                        }
                        index += 1
                        let scalar = 0x10000 + (UInt32(unit - 0xD800) << 10 | UInt32(low - 0xDC00))
                        output[written] = 0xF0 | UInt8(truncatingIfNeeded: scalar >> 18)
                        output[written + 1] = 0x80 | UInt8(truncatingIfNeeded: scalar >> 12 & 0x3F)
                        output[written + 2] = 0x80 | UInt8(truncatingIfNeeded: scalar >> 6 & 0x3F)
                        output[written + 3] = 0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F)
                        written += 4
                    }
                }
                return written
            }
        }

        /// A UID of 1 to 16 bytes (marker low nibble + 1); it must fit in 64 bits.
        private func decodeUID(_ marker: UInt8, at offset: Int) throws -> UInt64 {
            let size = Int(marker & 0x0F) + 1
            try requireBytes(size, from: offset + 1, objectAt: offset)
            guard size > 8 else { return BinaryPlistReader.readUnsigned(base, at: offset + 1, size: size) }
            let highBytes = UnsafeRawBufferPointer(start: base + offset + 1, count: size - 8)
            guard highBytes.allSatisfy({ $0 == 0 }) else {
                throw malformed("UID of \(size) bytes does not fit in 64 bits", at: offset)
            }
            return BinaryPlistReader.readUnsigned(base, at: offset + 1 + size - 8, size: 8)
        }

        // MARK: - Reading helpers

        /// Where object `index` starts, as the first pass read it; the trailer check put every
        /// entry before the offset table.
        @inline(__always)
        private func objectOffset(_ index: Int) -> Int { table[index].offset }

        /// The object index stored at `position`, a reference inside a container.
        @inline(__always)
        private func reference(at position: Int) throws -> Int {
            let index = BinaryPlistReader.readUnsigned(base, at: position, size: trailer.referenceSize)
            guard index < UInt64(trailer.objectCount) else { try failReference(index, at: position) }
            return Int(index)
        }

        /// The length in the marker's low nibble, or for 0xF the integer object that follows it;
        /// returns the length and where the object's contents start.
        @inline(__always)
        private func lengthAndStart(_ marker: UInt8, at offset: Int) throws -> (length: Int, start: Int) {
            guard let result = validLengthAndStart(marker, at: offset) else { try failLength(at: offset) }
            return result
        }

        /// ``lengthAndStart(_:at:)`` without the error: `nil` where it throws. Counting references
        /// uses it, so it skips exactly the containers that decoding rejects.
        @inline(__always)
        private func validLengthAndStart(_ marker: UInt8, at offset: Int) -> (length: Int, start: Int)? {
            let nibble = Int(marker & 0x0F)
            if nibble != 0x0F { return (nibble, offset + 1) }
            let intOffset = offset + 1
            guard intOffset < objectsEnd else { return nil }
            let intMarker = base.load(fromByteOffset: intOffset, as: UInt8.self)
            guard intMarker & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(intMarker & 0x0F)
            guard size <= objectsEnd - intOffset - 1 else { return nil }
            // Only the low 64 bits of a wide integer count, as in CoreFoundation.
            let value = BinaryPlistReader.readUnsigned(base, at: intOffset + 1 + max(0, size - 8), size: min(size, 8))
            guard value <= UInt64(Int.max) else { return nil }
            return (Int(value), intOffset + 1 + size)
        }

        /// Checks that `length` bytes from `start` lie inside the object data.
        @inline(__always)
        private func requireBytes(_ length: Int, from start: Int, objectAt offset: Int) throws {
            guard start <= objectsEnd, length <= objectsEnd - start else {
                try failOverrun("object", objectAt: offset)
            }
        }

        private func readDouble(at offset: Int) -> Double {
            Double(bitPattern: BinaryPlistReader.readUnsigned(base, at: offset, size: 8))
        }

        /// The index of the first byte at or above 0x80, or `nil` when all are ASCII.
        @inline(__always)
        static func firstNonASCIIIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
            let count = bytes.count
            guard let start = bytes.baseAddress else { return nil }
            var index = 0
            var accumulated: UInt64 = 0
            while index + 8 <= count {
                accumulated |= start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            if index < count, count >= 8 {
                // The last eight bytes, overlapping some already read, instead of a loop over a few.
                accumulated |= start.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            } else {
                while index < count {
                    accumulated |= UInt64(start.load(fromByteOffset: index, as: UInt8.self))
                    index += 1
                }
            }
            guard accumulated & 0x8080_8080_8080_8080 != 0 else { return nil }
            return bytes.firstIndex { $0 >= 0x80 }
        }

        // MARK: - Errors

        // Each failure throws from its own out-of-line function, which keeps the code that builds
        // messages out of the hot paths.

        @inline(never)
        private func failCycle(_ index: Int, at offset: Int) throws -> Never {
            throw malformed("object \(index) contains itself (a reference cycle)", at: offset)
        }

        @inline(never)
        private func failHeaderOverlap(_ index: Int, offset: Int) throws -> Never {
            throw malformed(
                "offset table puts object \(index) at offset \(offset), inside the header",
                at: trailer.offsetTableStart + index * trailer.offsetSize)
        }

        @inline(never)
        private func failFillByte(_ index: Int, at offset: Int) throws -> Never {
            throw malformed("object \(index) is a fill byte (0x0F), which is padding, not a value", at: offset)
        }

        @inline(never)
        private func failKeyType(_ keyIndex: Int, _ key: PlistValue) throws -> Never {
            let keyOffset = objectOffset(keyIndex)
            throw malformed(
                "dictionary key at offset \(keyOffset) must be a string, not \(key.typeName)", at: keyOffset)
        }

        @inline(never)
        private func failReference(_ index: UInt64, at position: Int) throws -> Never {
            throw malformed(
                "reference to object \(index), but there are only \(trailer.objectCount) objects", at: position)
        }

        /// Names what ``validLengthAndStart(_:at:)`` refused in the length of the object at `offset`.
        @inline(never)
        private func failLength(at offset: Int) throws -> Never {
            let intOffset = offset + 1
            guard intOffset < objectsEnd else { try failOverrun("the length of the object", objectAt: offset) }
            let intMarker = base.load(fromByteOffset: intOffset, as: UInt8.self)
            guard intMarker & 0xF0 == 0x10 else { try failLengthType(intMarker, at: intOffset, objectAt: offset) }
            let size = 1 << Int(intMarker & 0x0F)
            guard size <= objectsEnd - intOffset - 1 else {
                try failOverrun("the length of the object", objectAt: offset)
            }
            let value = BinaryPlistReader.readUnsigned(base, at: intOffset + 1 + max(0, size - 8), size: min(size, 8))
            try failLengthTooLarge(value, at: intOffset, objectAt: offset)
        }

        @inline(never)
        private func failLengthType(_ intMarker: UInt8, at intOffset: Int, objectAt offset: Int) throws -> Never {
            throw malformed(
                "length of the object at offset \(offset) must be an integer, but has marker 0x\(hex(intMarker))",
                at: intOffset)
        }

        @inline(never)
        private func failLengthTooLarge(_ value: UInt64, at intOffset: Int, objectAt offset: Int) throws -> Never {
            throw malformed("length \(value) of the object at offset \(offset) is too large", at: intOffset)
        }

        @inline(never)
        private func failObjectCount(at offset: Int) throws -> Never {
            throw PlistError(
                .limitExceeded,
                "binary property list expands to more than \(maxObjectCount) objects (counting every reference)",
                at: .byteOffset(offset))
        }

        @inline(never)
        private func failOverrun(_ what: String, objectAt offset: Int) throws -> Never {
            throw malformed(
                "\(what) at offset \(offset) runs past the object data, which ends at offset \(objectsEnd - 1)",
                at: offset)
        }

        @inline(never)
        private func failUnknownMarker(_ marker: UInt8, at offset: Int) throws -> Never {
            throw malformed("unknown object marker 0x\(hex(marker))", at: offset)
        }

        @inline(never)
        private func failDepth(at offset: Int) throws -> Never {
            throw PlistError(
                .limitExceeded, "binary property list nests containers deeper than \(maxDepth) levels",
                at: .byteOffset(offset))
        }

        private func hex(_ value: some FixedWidthInteger) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            let width = value.bitWidth / 4
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
    }
}
