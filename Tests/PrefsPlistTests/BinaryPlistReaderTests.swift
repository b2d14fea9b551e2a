// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsPlist

/// Assembles binary property lists by hand: objects are given already encoded (with references
/// of `referenceSize` bytes), and the builder adds the header, offset table and trailer.
struct HandBuiltPlist {
    var objects: [[UInt8]]
    var topObject = 0
    var referenceSize: UInt8 = 1
    var offsetSize = 1
    var header = Array("bplist00".utf8)

    init(_ objects: [[UInt8]]) { self.objects = objects }

    /// The object offsets the builder will use.
    var offsets: [Int] {
        var position = header.count
        return objects.map { object in
            defer { position += object.count }
            return position
        }
    }

    var bytes: [UInt8] {
        var bytes = header
        for object in objects { bytes += object }
        let tableStart = bytes.count
        for offset in offsets { bytes += Self.bigEndian(UInt64(offset), size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), referenceSize]
        bytes += Self.bigEndian(UInt64(objects.count), size: 8)
        bytes += Self.bigEndian(UInt64(topObject), size: 8)
        bytes += Self.bigEndian(UInt64(tableStart), size: 8)
        return bytes
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

/// Decodes with the binary reader.
func readBinary(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
    try bytes.withUnsafeBytes { try BinaryPlistReader.read($0, limits: limits) }
}

/// Decodes bytes that must fail, returning the error.
func binaryReadError(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistError {
    do {
        let value = try readBinary(bytes, limits: limits)
        Issue.record("expected an error, decoded \(value)")
        throw CancellationError()
    } catch let error as PlistError {
        return error
    }
}

@Suite struct BinaryPlistReaderTests {
    // MARK: - Corpus

    @Test func corpusBinaryFilesDecodeToTheirExpectedValues() throws {
        guard let corpus = try Corpus.load() else {
            print(Corpus.absentMessage)
            return
        }
        let files = corpus.files.filter { $0.relativePath.hasPrefix("binary/") }
        #expect(files.count >= 80)
        for file in files where file.expectation == .accept {
            let bytes = try file.bytes()
            do {
                let value = try readBinary(bytes)
                if let expected = try file.expectedValue() {
                    #expect(value == expected, "\(file) decoded to a different value")
                }
            } catch {
                Issue.record("\(file) must decode: \(error)")
            }
        }
    }

    @Test func corpusMalformedBinaryFilesAreRejected() throws {
        guard let corpus = try Corpus.load() else {
            print(Corpus.absentMessage)
            return
        }
        var checked = 0
        for file in corpus.files where file.relativePath.hasPrefix("malformed/") && file.expectation == .reject {
            let bytes = try file.bytes()
            guard bytes.withUnsafeBytes({ PlistFormat.sniff($0) }) == .binary else { continue }
            checked += 1
            #expect(throws: PlistError.self, "\(file) must be rejected") { try readBinary(bytes) }
        }
        #expect(checked >= 60)
    }

    @Test func corpusHostileBinaryFilesFinishQuickly() throws {
        guard let corpus = try Corpus.load() else {
            print(Corpus.absentMessage)
            return
        }
        var checked = 0
        for file in corpus.files where file.relativePath.hasPrefix("malformed/") && file.expectation == .hostile {
            let bytes = try file.bytes()
            guard bytes.withUnsafeBytes({ PlistFormat.sniff($0) }) == .binary else { continue }
            checked += 1
            let clock = ContinuousClock()
            let elapsed = clock.measure { _ = try? readBinary(bytes) }
            #expect(elapsed < .seconds(2), "\(file) took \(elapsed)")
        }
        #expect(checked >= 20)
    }

    @Test func deepNestingProbeFailsWithTheDepthLimit() throws {
        guard let corpus = try Corpus.load() else {
            print(Corpus.absentMessage)
            return
        }
        let file = try #require(
            corpus.files.first { $0.relativePath.hasSuffix("hostile-cpython-deep-nesting-100000.bplist") })
        let error = try binaryReadError(try file.bytes())
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("deeper than \(PlistLimits.default.maxDepth)"))
    }

    // MARK: - Header and trailer

    @Test func anyVersionByteAfterBplist0IsAccepted() throws {
        var plist = HandBuiltPlist([[0x09]])
        plist.header = Array("bplist0x".utf8)
        #expect(try readBinary(plist.bytes) == .bool(true))
    }

    @Test func otherVersionsAndShortInputsAreRejected() throws {
        var plist = HandBuiltPlist([[0x09]])
        plist.header = Array("bplist15".utf8)
        let version = try binaryReadError(plist.bytes)
        #expect(version.message.contains("bplist15"))
        #expect(version.position == .byteOffset(6))

        let short = try binaryReadError(Array("bplist00".utf8) + [0x09])
        #expect(short.message.contains("truncated"))
        #expect(try binaryReadError(Array("bplist".utf8)).code == .malformed)
        #expect(try binaryReadError([]).code == .malformed)
    }

    @Test func trailerFieldsAreChecked() throws {
        let good = HandBuiltPlist([[0xA1, 0x01], [0x10, 0x05]]).bytes
        #expect(try readBinary(good) == [5])
        let trailer = good.count - 32

        func corrupt(_ index: Int, _ byte: UInt8) -> [UInt8] {
            var bytes = good
            bytes[index] = byte
            return bytes
        }
        let offsetSizeZero = try binaryReadError(corrupt(trailer + 6, 0))
        #expect(offsetSizeZero.position == .byteOffset(trailer + 6))
        #expect(try binaryReadError(corrupt(trailer + 6, 9)).message.contains("must be 1 to 8"))
        #expect(try binaryReadError(corrupt(trailer + 7, 0)).position == .byteOffset(trailer + 7))
        #expect(try binaryReadError(corrupt(trailer + 15, 0)).message.contains("no objects"))
        #expect(try binaryReadError(corrupt(trailer + 23, 2)).message.contains("top object"))
        // The offset table must end exactly at the trailer.
        #expect(try binaryReadError(corrupt(trailer + 31, UInt8(trailer - 3))).message.contains("does not fill"))
        #expect(try binaryReadError(corrupt(trailer + 31, 0xFF)).position == .byteOffset(trailer + 24))
        // An offset-table entry past the object data.
        let badEntry = try binaryReadError(corrupt(trailer - 1, UInt8(trailer - 2)))
        #expect(badEntry.position == .byteOffset(trailer - 1))
        // An entry inside the header is caught when the object is used.
        let inHeader = try binaryReadError(corrupt(trailer - 1, 3))
        #expect(inHeader.message.contains("inside the header"))
        #expect(inHeader.position == .byteOffset(trailer - 1))
    }

    @Test func sizesMustReachWhatTheyAddress() throws {
        // 256 objects cannot be addressed with 1-byte references.
        var plist = HandBuiltPlist([[0xAF, 0x11, 0x00, 0xFF] + Array(1...255)] + Array(repeating: [0x09], count: 255))
        plist.offsetSize = 2
        #expect(try binaryReadError(plist.bytes).message.contains("cannot address 256 objects"))
        plist.referenceSize = 2
        plist.objects[0] =
            [0xAF, 0x11, 0x00, 0xFF] + (1...255).flatMap { HandBuiltPlist.bigEndian(UInt64($0), size: 2) }
        #expect(try readBinary(plist.bytes) == .array(Array(repeating: .bool(true), count: 255)))
        // A 1-byte offset cannot reach an offset table at 256 or beyond.
        var long = HandBuiltPlist([[0x4F, 0x11, 0x01, 0x00] + Array(repeating: 7, count: 256)])
        long.offsetSize = 1
        #expect(try binaryReadError(long.bytes).message.contains("cannot reach the offset table"))
    }

    @Test func everyReferenceAndOffsetSizeFromOneToEightBytesWorks() throws {
        for size in 1...8 {
            var plist = HandBuiltPlist([
                [0xD1] + HandBuiltPlist.bigEndian(1, size: size) + HandBuiltPlist.bigEndian(2, size: size),
                [0x51, 0x6B], [0x10, 0x2A],
            ])
            plist.referenceSize = UInt8(size)
            plist.offsetSize = size
            #expect(try readBinary(plist.bytes) == ["k": 42], "size \(size)")
        }
    }

    @Test func limitsOnInputSizeAndObjectCountAreEnforced() throws {
        let bytes = HandBuiltPlist([[0xA2, 0x01, 0x02], [0x10, 0x01], [0x10, 0x02]]).bytes
        let small = PlistLimits(maxInputBytes: bytes.count - 1, maxDepth: 8, maxObjectCount: 100)
        #expect(try binaryReadError(bytes, limits: small).code == .limitExceeded)
        let fewObjects = PlistLimits(maxInputBytes: 1000, maxDepth: 8, maxObjectCount: 2)
        let count = try binaryReadError(bytes, limits: fewObjects)
        #expect(count.code == .limitExceeded)
        #expect(count.message.contains("3 objects"))
    }

    // MARK: - Scalars

    @Test func singletonsAndFill() throws {
        #expect(try readBinary(HandBuiltPlist([[0x00]]).bytes) == .null)
        #expect(try readBinary(HandBuiltPlist([[0x08]]).bytes) == .bool(false))
        #expect(try readBinary(HandBuiltPlist([[0x09]]).bytes) == .bool(true))
        let fill = try binaryReadError(HandBuiltPlist([[0x0F]]).bytes)
        #expect(fill.message.contains("fill byte"))
        #expect(fill.position == .byteOffset(8))
        for marker: UInt8 in [0x01, 0x0C, 0x0E, 0x70, 0x90, 0xB0, 0xE0, 0xF0] {
            let error = try binaryReadError(HandBuiltPlist([[marker, 0, 0, 0, 0, 0, 0, 0, 0]]).bytes)
            #expect(error.message.contains("unknown object marker"), "marker \(marker)")
        }
    }

    @Test(
        arguments: [
            ([0x10, 0xFF], PlistInteger(Int64(255))),
            ([0x11, 0xFE, 0xDC], PlistInteger(Int64(0xFEDC))),
            ([0x12, 0xFE, 0xDC, 0xBA, 0x98], PlistInteger(Int64(0xFEDC_BA98))),
            ([0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], PlistInteger(Int64(-1))),
            ([0x13, 0x80, 0, 0, 0, 0, 0, 0, 0], PlistInteger(Int64.min)),
            (
                [0x14] + [UInt8](repeating: 0, count: 8) + [0x80, 0, 0, 0, 0, 0, 0, 0x2C],
                PlistInteger(UInt64(1) << 63 + 44)
            ),
            // CoreFoundation keeps only the low 64 bits of a 16-byte integer, read as unsigned.
            ([0x14] + [UInt8](repeating: 0xFF, count: 16), PlistInteger(UInt64.max)),
            ([0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7], PlistInteger(Int64(7))),
        ] as [([UInt8], PlistInteger)])
    func integers(encoded: [UInt8], expected: PlistInteger) throws {
        #expect(try readBinary(HandBuiltPlist([encoded]).bytes) == .integer(expected))
    }

    @Test func integerSizesBeyondSixteenBytesAndShortIntegersAreRejected() throws {
        #expect(
            try binaryReadError(HandBuiltPlist([[0x15] + [UInt8](repeating: 0, count: 32)]).bytes)
                .message.contains("32 bytes"))
        let short = try binaryReadError(HandBuiltPlist([[0x13, 1, 2, 3]]).bytes)
        #expect(short.message.contains("runs past"))
        #expect(short.position == .byteOffset(8))
    }

    @Test func realsAndDates() throws {
        let float32 = try readBinary(HandBuiltPlist([[0x22, 0x3F, 0xC0, 0x00, 0x00]]).bytes)
        #expect(float32 == .real(1.5))
        let tenth = try readBinary(
            HandBuiltPlist([[0x22] + HandBuiltPlist.bigEndian(UInt64(Float(0.1).bitPattern), size: 4)]).bytes)
        #expect(tenth == .real(Double(Float(0.1))))
        let nanBits: UInt64 = 0x7FF8_0000_0000_1234
        #expect(
            try readBinary(HandBuiltPlist([[0x23] + HandBuiltPlist.bigEndian(nanBits, size: 8)]).bytes)
                == .real(Double(bitPattern: nanBits)))
        for seconds in [-Double.infinity, .infinity, .nan, 1e300, -63_114_076_800, 0.5] {
            let value = try readBinary(
                HandBuiltPlist([[0x33] + HandBuiltPlist.bigEndian(seconds.bitPattern, size: 8)]).bytes)
            #expect(value == .date(PlistDate(secondsSinceReferenceDate: seconds)))
        }
        #expect(throws: PlistError.self) { try readBinary(HandBuiltPlist([[0x21, 0, 0]]).bytes) }
        #expect(throws: PlistError.self) {
            try readBinary(HandBuiltPlist([[0x30] + [UInt8](repeating: 0, count: 8)]).bytes)
        }
    }

    @Test func dataAndLengthEscapes() throws {
        #expect(try readBinary(HandBuiltPlist([[0x40]]).bytes) == .data([]))
        #expect(try readBinary(HandBuiltPlist([[0x43, 1, 2, 3]]).bytes) == .data([1, 2, 3]))
        let long = [UInt8](0..<40)
        #expect(try readBinary(HandBuiltPlist([[0x4F, 0x10, 40] + long]).bytes) == .data(long))
        // Any integer width may carry the length, even 16 bytes (only the low 64 bits count).
        let wide =
            [0x4F, 0x14] + [UInt8](repeating: 0xAA, count: 8) + HandBuiltPlist.bigEndian(3, size: 8) + [7, 8, 9]
        #expect(try readBinary(HandBuiltPlist([wide]).bytes) == .data([7, 8, 9]))
        let notInteger = try binaryReadError(HandBuiltPlist([[0x4F, 0x23, 0, 0, 0, 0, 0, 0, 0, 0]]).bytes)
        #expect(notInteger.message.contains("must be an integer"))
        #expect(notInteger.position == .byteOffset(9))
        let huge = try binaryReadError(
            HandBuiltPlist([[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]).bytes)
        #expect(huge.message.contains("runs past"))
        let negative = try binaryReadError(
            HandBuiltPlist([[0x4F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]).bytes)
        #expect(negative.message.contains("too large"))
        #expect(throws: PlistError.self) { try readBinary(HandBuiltPlist([[0x45, 1, 2]]).bytes) }
    }

    @Test func asciiStrings() throws {
        #expect(try readBinary(HandBuiltPlist([[0x50]]).bytes) == "")
        #expect(try readBinary(HandBuiltPlist([[0x55] + Array("hello".utf8)]).bytes) == "hello")
        let text = String(repeating: "abcdefghij", count: 30)
        var long = HandBuiltPlist([[0x5F, 0x11, 0x01, 0x2C] + Array(text.utf8)])
        long.offsetSize = 2
        #expect(try readBinary(long.bytes) == .string(text))
        #expect(try readBinary(HandBuiltPlist([[0x53, 0x00, 0x1F, 0x7F]]).bytes) == "\u{0}\u{1F}\u{7F}")
        let bad = try binaryReadError(HandBuiltPlist([[0x5A] + Array("abcdefghi".utf8) + [0xC3]]).bytes)
        #expect(bad.code == .invalidEncoding)
        #expect(bad.position == .byteOffset(18))
    }

    @Test func utf16Strings() throws {
        #expect(try readBinary(HandBuiltPlist([[0x60]]).bytes) == "")
        let text = "Mässig, Maß – 日本 🐍 e\u{301}"
        let units = Array(text.utf16)
        let encoded: [UInt8] =
            [0x6F, 0x10, UInt8(units.count)] + units.flatMap { HandBuiltPlist.bigEndian(UInt64($0), size: 2) }
        let value = try readBinary(HandBuiltPlist([encoded]).bytes)
        #expect(value == .string(text))
        #expect(value.stringValue.map { Array($0.unicodeScalars) } == Array(text.unicodeScalars))
        #expect(try readBinary(HandBuiltPlist([[0x62, 0x00, 0x41, 0xFF, 0xFF]]).bytes) == "A\u{FFFF}")
    }

    @Test(
        arguments: [
            [0x61, 0xD8, 0x3D],  // high surrogate at the end
            [0x62, 0xD8, 0x3D, 0x00, 0x41],  // high surrogate then a letter
            [0x61, 0xDC, 0x0D],  // lone low surrogate
            [0x62, 0xDC, 0x0D, 0xD8, 0x3D],  // reversed pair
        ] as [[UInt8]])
    func unpairedSurrogatesAreRejected(encoded: [UInt8]) throws {
        let error = try binaryReadError(HandBuiltPlist([encoded]).bytes)
        #expect(error.code == .invalidEncoding)
        #expect(error.message.contains("unpaired surrogate"))
    }

    @Test func utf16LengthMustFit() throws {
        let error = try binaryReadError(HandBuiltPlist([[0x63, 0x00, 0x41, 0x00, 0x42]]).bytes)
        #expect(error.message.contains("runs past"))
    }

    @Test func uidsOfOneToSixteenBytes() throws {
        #expect(try readBinary(HandBuiltPlist([[0x80, 0x07]]).bytes) == .uid(7))
        #expect(try readBinary(HandBuiltPlist([[0x81, 0x01, 0x00]]).bytes) == .uid(256))
        #expect(try readBinary(HandBuiltPlist([[0x82, 0x01, 0x00, 0x00]]).bytes) == .uid(65536))
        #expect(try readBinary(HandBuiltPlist([[0x87] + [UInt8](repeating: 0xFF, count: 8)]).bytes) == .uid(.max))
        #expect(try readBinary(HandBuiltPlist([[0x89, 0, 0] + HandBuiltPlist.bigEndian(5, size: 8)]).bytes) == .uid(5))
        let wide = try binaryReadError(HandBuiltPlist([[0x89, 0, 1] + HandBuiltPlist.bigEndian(5, size: 8)]).bytes)
        #expect(wide.message.contains("64 bits"))
    }

    // MARK: - Containers

    @Test func arraysSetsAndDictionaries() throws {
        let array = HandBuiltPlist([[0xA3, 1, 2, 1], [0x10, 1], [0x51, 0x78]])
        #expect(try readBinary(array.bytes) == [1, "x", 1])
        let set = HandBuiltPlist([[0xC2, 1, 2], [0x10, 1], [0x51, 0x78]])
        #expect(try readBinary(set.bytes) == [1, "x"])
        let dictionary = HandBuiltPlist([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x51, 0x62], [0x09], [0xA0]])
        #expect(try readBinary(dictionary.bytes) == ["a": true, "b": []])
        // A repeated key keeps the last value.
        let repeated = HandBuiltPlist([[0xD2, 1, 1, 2, 3], [0x51, 0x61], [0x10, 1], [0x10, 2]])
        #expect(try readBinary(repeated.bytes) == ["a": 2])
        let escaped = HandBuiltPlist([[0xAF, 0x10, 20] + [UInt8](repeating: 1, count: 20), [0x08]])
        #expect(try readBinary(escaped.bytes) == .array(Array(repeating: false, count: 20)))
    }

    @Test func nonStringDictionaryKeysAreRejectedWithTheirOffset() throws {
        let plist = HandBuiltPlist([[0xD1, 1, 2], [0x43, 1, 2, 3], [0x09]])
        let error = try binaryReadError(plist.bytes)
        #expect(error.code == .malformed)
        #expect(error.message == "dictionary key at offset 11 must be a string, not data")
        #expect(error.position == .byteOffset(11))
        let arrayKey = try binaryReadError(HandBuiltPlist([[0xD1, 1, 2], [0xA0], [0x09]]).bytes)
        #expect(arrayKey.message.contains("must be a string, not array"))
    }

    @Test func containerReferencesAreChecked() throws {
        let outOfRange = try binaryReadError(HandBuiltPlist([[0xA2, 1, 5], [0x09]]).bytes)
        #expect(outOfRange.message.contains("reference to object 5"))
        #expect(outOfRange.position == .byteOffset(10))
        let overrun = try binaryReadError(HandBuiltPlist([[0xA4, 1, 1], [0x09]]).bytes)
        #expect(overrun.message.contains("runs past"))
        let dictionaryOverrun = try binaryReadError(HandBuiltPlist([[0xD3, 1, 1, 1], [0x09]]).bytes)
        #expect(dictionaryOverrun.message.contains("runs past"))
    }

    @Test func cyclesAreRejected() throws {
        let direct = try binaryReadError(HandBuiltPlist([[0xA1, 0]]).bytes)
        #expect(direct.message.contains("contains itself"))
        #expect(direct.position == .byteOffset(8))
        let indirect = HandBuiltPlist([[0xA1, 1], [0xD1, 2, 0], [0x51, 0x6B]])
        #expect(try binaryReadError(indirect.bytes).message.contains("object 0 contains itself"))
        // Two offset-table entries pointing at the same bytes still form a cycle.
        var aliased = HandBuiltPlist([[0xA1, 1], [0x09]]).bytes
        aliased[aliased.count - 33] = 8
        #expect(try binaryReadError(aliased).message.contains("object 1 contains itself"))
    }

    @Test func sharedObjectsAreDecodedOnceButCountedAtEveryReference() throws {
        // Object n is an array holding object n+1 twice: the expanded tree has 2^(levels+1) - 1
        // nodes, far beyond the limit, although the file holds only `levels + 1` objects.
        let levels = 40
        var objects = (0..<levels).map { level in [0xA2, UInt8(level + 1), UInt8(level + 1)] }
        objects.append([0x51, 0x78])
        let plist = HandBuiltPlist(objects)
        let clock = ContinuousClock()
        var error: PlistError?
        let elapsed = clock.measure { error = try? binaryReadError(plist.bytes) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("counting every reference") == true)
        // Expanding it would take hours; the bound only has to tell that from failing at once on a loaded machine.
        #expect(elapsed < .seconds(30))

        // A small fan-out within the limit decodes to the full tree.
        let small = HandBuiltPlist([[0xA2, 1, 1], [0xA2, 2, 2], [0x51, 0x78]])
        #expect(try readBinary(small.bytes) == [["x", "x"], ["x", "x"]])
        let tight = PlistLimits(maxInputBytes: 1000, maxDepth: 8, maxObjectCount: 7)
        #expect(try readBinary(small.bytes, limits: tight) == [["x", "x"], ["x", "x"]])
        let tooTight = PlistLimits(maxInputBytes: 1000, maxDepth: 8, maxObjectCount: 6)
        #expect(try binaryReadError(small.bytes, limits: tooTight).code == .limitExceeded)
    }

    @Test func depthLimitCountsContainerLevels() throws {
        func nested(_ levels: Int) -> HandBuiltPlist {
            var objects = (0..<levels).map { level in [0xA1] + HandBuiltPlist.bigEndian(UInt64(level + 1), size: 2) }
            objects.append([0x09])
            var plist = HandBuiltPlist(objects)
            plist.referenceSize = 2
            plist.offsetSize = 2
            return plist
        }
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 300, maxObjectCount: 1 << 20)
        let deepest = try readBinary(nested(300).bytes, limits: limits)
        #expect(deepest.depth == 300)
        let error = try binaryReadError(nested(301).bytes, limits: limits)
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("deeper than 300"))
        let defaultDepth = PlistLimits.default.maxDepth
        #expect(try readBinary(nested(defaultDepth).bytes).depth == defaultDepth)
        #expect(try binaryReadError(nested(defaultDepth + 1).bytes).code == .limitExceeded)
    }

    @Test func nestingIsBoundedByTheLimitNotTheCallStack() throws {
        // Containers are decoded on a heap stack, so a raised limit admits deep files.
        let levels = 5000
        var objects = (0..<levels).map { level in [0xA1] + HandBuiltPlist.bigEndian(UInt64(level + 1), size: 2) }
        objects.append([0x51, 0x78])
        var plist = HandBuiltPlist(objects)
        plist.referenceSize = 2
        plist.offsetSize = 2
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: levels, maxObjectCount: 1 << 20)
        var value = try readBinary(plist.bytes, limits: limits)
        var depth = 0
        var chain: [PlistValue] = []  // emptied outermost first below, so no release recurses deeply
        while case .array(let elements) = value, elements.count == 1 {
            chain.append(value)
            value = elements[0]
            depth += 1
        }
        #expect(depth == levels)
        #expect(value == "x")
        let tooDeep = PlistLimits(maxInputBytes: 1 << 20, maxDepth: levels - 1, maxObjectCount: 1 << 20)
        #expect(try binaryReadError(plist.bytes, limits: tooDeep).code == .limitExceeded)
        chain.reverse()
        while !chain.isEmpty { chain.removeLast() }
    }

    @Test func reusedSubtreeIsCheckedAgainstTheDepthWhereItIsReused() throws {
        // Object 1 is a chain of three arrays; the root holds it directly and again under two more
        // arrays, so the tree is six deep although object 1 was first decoded only four deep.
        let plist = HandBuiltPlist([
            [0xA2, 1, 4], [0xA1, 2], [0xA1, 3], [0xA0], [0xA1, 5], [0xA1, 1],
        ])
        let five = PlistLimits(maxInputBytes: 1000, maxDepth: 6, maxObjectCount: 100)
        #expect(try readBinary(plist.bytes, limits: five).depth == 6)
        let four = PlistLimits(maxInputBytes: 1000, maxDepth: 5, maxObjectCount: 100)
        #expect(try binaryReadError(plist.bytes, limits: four).code == .limitExceeded)
    }

    @Test func sharedObjectsOfEveryReferenceAndOffsetSizeAreReused() throws {
        // Objects 1 and 2 are referenced twice each (and 3 once), so they are kept for reuse.
        for size in 1...8 {
            let references = [1, 1, 2, 3, 2].flatMap { HandBuiltPlist.bigEndian(UInt64($0), size: size) }
            var plist = HandBuiltPlist([[0xA5] + references, [0x51, 0x78], [0x10, 0x07], [0x09]])
            plist.referenceSize = UInt8(size)
            plist.offsetSize = size
            #expect(try readBinary(plist.bytes) == ["x", "x", 7, true, 7], "size \(size)")
        }
    }

    @Test func sharedContainersAndKeysAreReusedWhole() throws {
        // Two dictionaries share the key object and the value array; the root holds both.
        let plist = HandBuiltPlist([
            [0xA2, 1, 2], [0xD1, 3, 4], [0xD1, 3, 4], [0x51, 0x6B], [0xA2, 5, 5], [0x10, 0x2A],
        ])
        #expect(try readBinary(plist.bytes) == [["k": [42, 42]], ["k": [42, 42]]])
        let exact = PlistLimits(maxInputBytes: 1000, maxDepth: 8, maxObjectCount: 11)
        #expect(try readBinary(plist.bytes, limits: exact) == [["k": [42, 42]], ["k": [42, 42]]])
        let short = PlistLimits(maxInputBytes: 1000, maxDepth: 8, maxObjectCount: 10)
        #expect(try binaryReadError(plist.bytes, limits: short).code == .limitExceeded)
    }

    @Test func cyclesThroughSharedContainersAreRejected() throws {
        // Object 1 is referenced twice (so kept for reuse) and holds the array that holds it.
        let plist = HandBuiltPlist([[0xA2, 1, 1], [0xA1, 2], [0xA1, 1]])
        let error = try binaryReadError(plist.bytes)
        #expect(error.message == "object 1 contains itself (a reference cycle)")
        #expect(error.position == .byteOffset(11))
    }

    @Test func containersTheDecodingRejectsDoNotChangeWhatIsDecoded() throws {
        // Objects 3 to 5 are containers no one reaches whose lengths are broken (a real, a short
        // integer, a length past the data); they reference object 1, which the root holds once.
        let plist = HandBuiltPlist([
            [0xA1, 1], [0x51, 0x78], [0x09],
            [0xAF, 0x23, 0, 0, 0, 0, 0, 0, 0, 0, 1], [0xDF, 0x11, 0x01], [0xAF, 0x10, 0x7F, 1],
        ])
        #expect(try readBinary(plist.bytes) == ["x"])
        // Reached, the same containers fail with the errors of their lengths.
        for (top, message) in [(3, "must be an integer"), (4, "runs past"), (5, "runs past")] {
            var reached = plist
            reached.topObject = top
            #expect(try binaryReadError(reached.bytes).message.contains(message), "object \(top)")
        }
    }

    @Test func dictionariesFailingPartWayAreReleasedWithTheirEntries() throws {
        // The second value is a reference out of range, after one entry was read.
        let plist = HandBuiltPlist([[0xD2, 1, 2, 3, 9], [0x51, 0x61], [0x51, 0x62], [0x51, 0x78]])
        let error = try binaryReadError(plist.bytes)
        #expect(error.message.contains("reference to object 9"))
        // A long value string (not inline) in the entry read before the failure.
        let long = Array(String(repeating: "v", count: 40).utf8)
        let heap = HandBuiltPlist([[0xD2, 1, 2, 3, 9], [0x51, 0x61], [0x51, 0x62], [0x5F, 0x10, 40] + long])
        #expect(try binaryReadError(heap.bytes).message.contains("reference to object 9"))
    }

    @Test func dictionaryCountsBeyondTheObjectLimitFailWithTheLimit() throws {
        // Three entries need seven objects; the reserved room follows the limit, not the count.
        let plist = HandBuiltPlist([
            [0xD3, 1, 2, 3, 4, 4, 4], [0x51, 0x61], [0x51, 0x62], [0x51, 0x63], [0x10, 0x01],
        ])
        #expect(try readBinary(plist.bytes) == ["a": 1, "b": 1, "c": 1])
        for limit in 1...6 {
            let limits = PlistLimits(maxInputBytes: 1000, maxDepth: 8, maxObjectCount: limit)
            #expect(try binaryReadError(plist.bytes, limits: limits).code == .limitExceeded, "limit \(limit)")
        }
        let huge = HandBuiltPlist([[0xDF, 0x12, 0x7F, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 1, count: 64), [0x09]])
        #expect(try binaryReadError(huge.bytes).message.contains("runs past"))
    }

    @Test func containerLengthsTooLargeAreRejected() throws {
        let huge = HandBuiltPlist([[0xAF, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
        let error = try binaryReadError(huge.bytes)
        #expect(error.message == "length 18446744073709551615 of the object at offset 8 is too large")
        #expect(error.position == .byteOffset(9))
    }

    @Test func topObjectNeedNotBeFirst() throws {
        var plist = HandBuiltPlist([[0x51, 0x61], [0xA1, 0]])
        plist.topObject = 1
        #expect(try readBinary(plist.bytes) == ["a"])
    }
}
