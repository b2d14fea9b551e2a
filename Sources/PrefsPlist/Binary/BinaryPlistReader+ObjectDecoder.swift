extension BinaryPlistReader {
    /// Decodes objects of a binary property list whose trailer has been validated.
    ///
    /// Each object is decoded once and remembered with the number of objects in its expanded tree
    /// (its *weight*) and its nesting height. Reusing a remembered object adds its weight to the
    /// running total, so the object-count limit sees the tree a consumer would walk, and checks its
    /// height against the depth limit at the place it is reused.
    ///
    /// Containers being decoded are kept on an explicit stack rather than the call stack, so the
    /// thread's stack size never limits the nesting depth; ``PlistLimits/maxDepth`` does.
    struct ObjectDecoder: ~Copyable {
        /// What is known about one object.
        private struct Slot {
            /// The decoded value, once `weight` is positive.
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
            var elements: [PlistValue] = []
            var entries = PlistDictionary()
            /// The key whose value comes next.
            var key = PlistKey("")

            /// Children in all: the elements, or keys and values.
            var childCount: Int { isDictionary ? 2 * count : count }
        }

        /// What decoding one object produced.
        private enum Outcome {
            /// The object's value and height.
            case finished(PlistValue, height: Int)
            /// A container was opened; its children come next.
            case opened(Frame)
        }

        private static let inProgress = -1

        private let base: UnsafeRawPointer
        private let trailer: Trailer
        /// The end (exclusive) of the object data: no object may extend to here.
        private let objectsEnd: Int
        private let maxObjectCount: Int
        private let maxDepth: Int
        private let truncatesWideIntegers: Bool
        /// One slot per object, owned by the decoder (no copy-on-write checks on the hot path).
        private let slots: UnsafeMutablePointer<Slot>
        /// Objects in the expanded tree decoded so far, counting every reference.
        private var decodedCount = 0
        /// The containers being decoded around the innermost one, outermost first.
        private var frames: [Frame] = []

        /// Prepares to decode the file at `base`, whose `trailer` has been validated; the bytes
        /// must stay valid while decoding.
        init(base: UnsafeRawPointer, trailer: Trailer, limits: PlistLimits) {
            self.base = base
            self.trailer = trailer
            objectsEnd = trailer.offsetTableStart
            maxObjectCount = limits.maxObjectCount
            maxDepth = limits.maxDepth
            truncatesWideIntegers = limits.truncatesWideIntegers
            slots = UnsafeMutablePointer<Slot>.allocate(capacity: trailer.objectCount)
            slots.initialize(repeating: Slot(), count: trailer.objectCount)
        }

        deinit {
            slots.deinitialize(count: trailer.objectCount)
            slots.deallocate()
        }

        /// Decodes the top-level object and everything it references.
        ///
        /// The innermost open container lives in a local variable, so the common case, a child
        /// that is a scalar or was decoded before, goes straight into it; only when a child is
        /// itself a container does the current one move onto the stack.
        mutating func decodeTopObject() throws -> PlistValue {
            var current: Frame
            switch try begin(trailer.topObject, depth: 0) {
            case .finished(let value, _): return value
            case .opened(let top): current = top
            }
            while true {
                while current.taken < current.childCount {
                    // A dictionary's children alternate key, value; its keys come first in the file.
                    let taken = current.taken
                    let slot = current.isDictionary ? (taken & 1) * current.count + taken >> 1 : taken
                    let child = try reference(at: current.referencesStart + slot * trailer.referenceSize)
                    current.taken = taken + 1
                    current.lastChild = child
                    switch try begin(child, depth: frames.count + 1) {
                    case .finished(let value, let height):
                        try Self.deliver(value, height: height, into: &current, decoder: self)
                    case .opened(let inner):
                        frames.append(current)
                        current = inner
                    }
                }
                let value: PlistValue = current.isDictionary ? .dictionary(current.entries) : .array(current.elements)
                let height = current.height + 1
                slots[current.index] = Slot(value: value, weight: decodedCount - current.countBefore, height: height)
                guard let outer = frames.popLast() else { return value }
                current = outer
                try Self.deliver(value, height: height, into: &current, decoder: self)
            }
        }

        // MARK: - Objects

        /// Starts on object `index`, found `depth` containers below the top: returns a scalar or an
        /// already decoded object, or opens a container.
        private mutating func begin(_ index: Int, depth: Int) throws -> Outcome {
            let weight = slots[index].weight
            if weight > 0 {
                let height = slots[index].height
                try count(weight, at: objectOffset(index))
                if depth + height > maxDepth { try failDepth(at: objectOffset(index)) }
                return .finished(slots[index].value, height: height)
            }
            let offset = objectOffset(index)
            guard weight == 0 else { try failCycle(index, at: offset) }
            guard offset >= headerLength else { try failHeaderOverlap(index, offset: offset) }
            try count(1, at: offset)
            let marker = base.load(fromByteOffset: offset, as: UInt8.self)
            switch marker >> 4 {
            case 0xA, 0xC, 0xD:
                return .opened(try open(index, marker: marker, at: offset, depth: depth))
            default:
                let value = try decodeScalar(index, marker: marker, at: offset)
                slots[index] = Slot(value: value, weight: 1, height: 0)
                return .finished(value, height: 0)
            }
        }

        /// Opens an array (0xA), a set (0xC, read as an array) or a dictionary (0xD): a count,
        /// then that many references (for a dictionary, that many keys and as many values).
        private mutating func open(_ index: Int, marker: UInt8, at offset: Int, depth: Int) throws -> Frame {
            guard depth < maxDepth else { try failDepth(at: offset) }
            let (count, start) = try lengthAndStart(marker, at: offset)
            let isDictionary = marker >> 4 == 0xD
            let referencesPerChild = isDictionary ? 2 * trailer.referenceSize : trailer.referenceSize
            guard count <= (objectsEnd - start) / referencesPerChild else {
                try failOverrun(isDictionary ? "dictionary" : marker >> 4 == 0xA ? "array" : "set", objectAt: offset)
            }
            slots[index].weight = Self.inProgress
            var frame = Frame(
                index: index, isDictionary: isDictionary, count: count, referencesStart: start,
                countBefore: decodedCount - 1)
            if isDictionary {
                frame.entries.reserveCapacity(count)
            } else {
                frame.elements.reserveCapacity(count)
            }
            return frame
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
                guard case .string(let key) = value else { try decoder.failKeyType(frame.lastChild) }
                frame.key = PlistKey(key)
            } else {
                frame.entries.storage[frame.key] = value
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
            guard length > 0 else { return [] }
            return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(start: base + start, count: length))
                initialized = length
            }
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
            guard length > 0 else { return "" }
            return String(unsafeUninitializedCapacity: length) { buffer in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: characters)
                return length
            }
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

        /// Where object `index` starts; the trailer check put every entry before the offset table.
        @inline(__always)
        private func objectOffset(_ index: Int) -> Int {
            let entry = trailer.offsetTableStart + index * trailer.offsetSize
            return Int(truncatingIfNeeded: BinaryPlistReader.readUnsigned(base, at: entry, size: trailer.offsetSize))
        }

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
            let nibble = Int(marker & 0x0F)
            if nibble != 0x0F { return (nibble, offset + 1) }
            let intOffset = offset + 1
            guard intOffset < objectsEnd else { try failOverrun("the length of the object", objectAt: offset) }
            let intMarker = base.load(fromByteOffset: intOffset, as: UInt8.self)
            guard intMarker & 0xF0 == 0x10 else { try failLengthType(intMarker, at: intOffset, objectAt: offset) }
            let exponent = Int(intMarker & 0x0F)
            let size = 1 << exponent
            guard size <= objectsEnd - intOffset - 1 else {
                try failOverrun("the length of the object", objectAt: offset)
            }
            // Only the low 64 bits of a wide integer count, as in CoreFoundation.
            let value = BinaryPlistReader.readUnsigned(base, at: intOffset + 1 + max(0, size - 8), size: min(size, 8))
            guard value <= UInt64(Int.max) else { try failLengthTooLarge(value, at: intOffset, objectAt: offset) }
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

        /// Adds `weight` objects to the running total, enforcing the object-count limit.
        @inline(__always)
        private mutating func count(_ weight: Int, at offset: Int) throws {
            decodedCount += weight
            guard decodedCount <= maxObjectCount else { try failObjectCount(at: offset) }
        }

        /// The index of the first byte at or above 0x80, or `nil` when all are ASCII.
        static func firstNonASCIIIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
            let count = bytes.count
            guard let start = bytes.baseAddress else { return nil }
            var index = 0
            var accumulated: UInt64 = 0
            while index + 8 <= count {
                accumulated |= start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < count {
                accumulated |= UInt64(start.load(fromByteOffset: index, as: UInt8.self))
                index += 1
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
        private func failKeyType(_ keyIndex: Int) throws -> Never {
            let keyOffset = objectOffset(keyIndex)
            throw malformed(
                "dictionary key at offset \(keyOffset) must be a string, not \(slots[keyIndex].value.typeName)",
                at: keyOffset)
        }

        @inline(never)
        private func failReference(_ index: UInt64, at position: Int) throws -> Never {
            throw malformed(
                "reference to object \(index), but there are only \(trailer.objectCount) objects", at: position)
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
