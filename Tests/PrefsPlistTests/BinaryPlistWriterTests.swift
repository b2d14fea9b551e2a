// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsPlist

/// Encodes with the binary writer.
func writeBinary(_ value: PlistValue) throws -> [UInt8] {
    try BinaryPlistWriter.write(value)
}

/// An exact, order-independent text form of a value, produced identically by the Python helper:
/// strings and keys as hex UTF-8 (so canonically equivalent strings stay distinct), reals and dates
/// as hex bit patterns, dictionaries sorted by key.
func canonicalJSON(_ value: PlistValue) -> String {
    func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
    func bits(_ value: Double) -> String {
        let digits = String(value.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
    switch value {
    case .string(let text): return "{\"string\":\"\(hex(text.utf8))\"}"
    case .integer(let number): return "{\"integer\":\"\(number)\"}"
    case .real(let real): return "{\"real\":\"\(bits(real))\"}"
    case .bool(let flag): return "{\"bool\":\(flag)}"
    case .date(let date): return "{\"date\":\"\(bits(date.secondsSinceReferenceDate))\"}"
    case .data(let bytes): return "{\"data\":\"\(hex(bytes))\"}"
    case .uid(let number): return "{\"uid\":\"\(number)\"}"
    case .null: return "{\"null\":null}"
    case .array(let elements): return "{\"array\":[" + elements.map(canonicalJSON).joined(separator: ",") + "]}"
    case .dictionary(let entries):
        let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let pairs = sorted.map { "[\"\(hex($0.key.utf8))\",\(canonicalJSON($0.value))]" }
        return "{\"dict\":[" + pairs.joined(separator: ",") + "]}"
    }
}

/// The encoded bytes of every object of a binary property list, by object index (objects are
/// contiguous, so each ends where the next in file order starts).
func objectEncodings(_ bytes: [UInt8]) throws -> (objects: [[UInt8]], referenceSize: Int, offsetSize: Int) {
    let trailer = try bytes.withUnsafeBytes { try BinaryPlistReader.Trailer($0, limits: .default) }
    let offsets = try bytes.withUnsafeBytes { raw in
        let base = try #require(raw.baseAddress)
        return (0..<trailer.objectCount).map { index in
            Int(
                BinaryPlistReader.readUnsigned(
                    base, at: trailer.offsetTableStart + index * trailer.offsetSize,
                    size: trailer.offsetSize))
        }
    }
    let ends = Dictionary(
        uniqueKeysWithValues: zip(offsets.sorted(), offsets.sorted().dropFirst() + [trailer.offsetTableStart]))
    let objects = offsets.map { offset in Array(bytes[offset..<(ends[offset] ?? offset)]) }
    return (objects, trailer.referenceSize, trailer.offsetSize)
}

/// Runs `python3` on a script; `nil` when no Python 3 is installed.
func runPython(_ script: String, arguments: [String], in directory: TemporaryDirectory) throws -> String? {
    let scriptPath = directory.file("check.py")
    try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", scriptPath] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if process.terminationStatus == 127 { return nil }
    guard process.terminationStatus == 0 else {
        throw PythonFailure(message: String(decoding: errorData, as: UTF8.self))
    }
    return String(decoding: outputData, as: UTF8.self)
}

/// A Python helper that exited with an error.
struct PythonFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { "python3 failed: \(message)" }
}

/// The Python side of the cross-checks: the same canonical JSON as ``canonicalJSON(_:)``.
let pythonCanonical = #"""
    import datetime, json, plistlib, struct, sys
    sys.setrecursionlimit(20000)

    def canon(v):
        if v is None: return {"null": None}
        if isinstance(v, bool): return {"bool": v}
        if isinstance(v, int): return {"integer": str(v)}
        if isinstance(v, float): return {"real": struct.pack(">d", v).hex()}
        if isinstance(v, str): return {"string": v.encode("utf-8").hex()}
        if isinstance(v, bytes): return {"data": v.hex()}
        if isinstance(v, datetime.datetime):
            return {"date": struct.pack(">d", (v - datetime.datetime(2001, 1, 1)).total_seconds()).hex()}
        if isinstance(v, plistlib.UID): return {"uid": str(v.data)}
        if isinstance(v, list): return {"array": [canon(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[k.encode("utf-8").hex(), canon(v[k])] for k in sorted(v)]}
        raise TypeError(type(v))

    def dumps(v):
        return json.dumps(canon(v), separators=(",", ":"))

    """#

@Suite struct BinaryPlistWriterTests {
    // MARK: - plistlib's layout

    @Test func cpythonReferenceVectorIsReproducedByteForByte() throws {
        guard let corpus = try Corpus.load() else {
            print(Corpus.absentMessage)
            return
        }
        let file = try #require(corpus.files.first { $0.relativePath == "binary/cpython-testdata.bplist" })
        let original = try file.bytes()
        let value = try readBinary(original)
        #expect(try writeBinary(value) == original)
    }

    @Test func smallestDocument() throws {
        let expected: [UInt8] =
            Array("bplist00".utf8) + [0x09, 0x08] + [0, 0, 0, 0, 0, 0, 1, 1] + HandBuiltPlist.bigEndian(1, size: 8)
            + HandBuiltPlist.bigEndian(0, size: 8) + HandBuiltPlist.bigEndian(9, size: 8)
        #expect(try writeBinary(true) == expected)
    }

    @Test(
        arguments: [
            (PlistInteger(Int64(0)), [0x10, 0x00]),
            (PlistInteger(Int64(255)), [0x10, 0xFF]),
            (PlistInteger(Int64(256)), [0x11, 0x01, 0x00]),
            (PlistInteger(Int64(65535)), [0x11, 0xFF, 0xFF]),
            (PlistInteger(Int64(65536)), [0x12, 0x00, 0x01, 0x00, 0x00]),
            (PlistInteger(Int64(UInt32.max)), [0x12, 0xFF, 0xFF, 0xFF, 0xFF]),
            (PlistInteger(Int64(UInt32.max) + 1), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
            (PlistInteger(Int64.max), [0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (PlistInteger(Int64(-1)), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (PlistInteger(Int64.min), [0x13, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            (PlistInteger(UInt64(1) << 63), [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            (PlistInteger(UInt64.max), [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        ] as [(PlistInteger, [UInt8])])
    func integersTakePlistlibSizes(number: PlistInteger, encoded: [UInt8]) throws {
        let written = try writeBinary(.integer(number))
        #expect(try objectEncodings(written).objects == [encoded])
        #expect(try readBinary(written) == .integer(number))
    }

    @Test func scalarEncodings() throws {
        let value: PlistValue = [
            .real(0.5), .date(PlistDate(secondsSinceReferenceDate: 1)), .data([1, 2]), "abc", "é", "🐍",
            .uid(5), .uid(300), .uid(70_000), .uid(1 << 40), .null, false,
        ]
        let objects = try objectEncodings(try writeBinary(value)).objects
        #expect(objects.count == 13)
        #expect(objects[1] == [0x23, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0])
        #expect(objects[2] == [0x33, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0])
        #expect(objects[3] == [0x42, 1, 2])
        #expect(objects[4] == [0x53, 0x61, 0x62, 0x63])
        #expect(objects[5] == [0x61, 0x00, 0xE9])
        #expect(objects[6] == [0x62, 0xD8, 0x3D, 0xDC, 0x0D])
        #expect(objects[7] == [0x80, 5])
        #expect(objects[8] == [0x81, 0x01, 0x2C])
        #expect(objects[9] == [0x83, 0x00, 0x01, 0x11, 0x70])
        #expect(objects[10] == [0x87, 0, 0, 1, 0, 0, 0, 0, 0])
        #expect(objects[11] == [0x00])
        #expect(objects[12] == [0x08])
    }

    @Test(arguments: [(0, 0x50), (14, 0x5E), (15, 0x5F), (255, 0x5F), (256, 0x5F), (65536, 0x5F)] as [(Int, UInt8)])
    func lengthsAbove14UseAnIntegerObject(length: Int, marker: UInt8) throws {
        let text = String(repeating: "x", count: length)
        let object = try #require(try objectEncodings(try writeBinary(.string(text))).objects.first)
        #expect(object.first == marker)
        let header: [UInt8] =
            length < 15
            ? []
            : length < 256
                ? [0x10, UInt8(length)]
                : length < 65536
                    ? [0x11] + HandBuiltPlist.bigEndian(UInt64(length), size: 2)
                    : [0x12] + HandBuiltPlist.bigEndian(UInt64(length), size: 4)
        #expect(Array(object.dropFirst().prefix(header.count)) == header)
        #expect(object.count == 1 + header.count + length)
    }

    @Test func equalScalarsAndContainersAreSharedButUIDsAreNot() throws {
        let date = PlistDate(secondsSinceReferenceDate: 5)
        let value: PlistValue = [
            "a", "a", 1, 1, true, true, 1.0, 1.0, [], [], .null, .null, .uid(1), .uid(1), .date(date), .date(date),
            .data([1]), .data([1]), 0.0, -0.0, "1", .data([0x31]), [:], [:], ["k": [1]], ["k": [1]], [.uid(1)],
            [.uid(1)],
        ]
        let (objects, _, _) = try objectEncodings(try writeBinary(value))
        // root, "a", 1, true, 1.0, [], null, uid, uid, date, data, 0.0, -0.0, "1", data "1", [:], ["k": [1]], "k",
        // [1], [uid], uid, [uid], uid
        #expect(objects.count == 23)
        #expect(objects.filter { $0 == [0x80, 1] }.count == 4, "UIDs are never shared, nor arrays holding them")
        #expect(objects.filter { $0 == [0xA0] }.count == 1)
        #expect(objects.filter { $0 == [0xD0] }.count == 1)
        #expect(objects.contains([0x09]) && objects.contains([0x10, 1]))
        #expect(objects.contains([0x23] + HandBuiltPlist.bigEndian((-0.0).bitPattern, size: 8)))
        let back = try readBinary(try writeBinary(value))
        #expect(canonicalJSON(back) == canonicalJSON(value))
    }

    @Test func repeatedContainersAreWrittenOnce() throws {
        let small: PlistValue = [1, "two", 3.5]
        let written = try writeBinary(.array(Array(repeating: small, count: 1000)))
        // The root's 1,000 references (2 bytes each) and its offset entry, one array of three, three scalars.
        #expect(written.count < 1100, "\(written.count) bytes")
        #expect(try objectEncodings(written).objects.count == 5)
        #expect(try readBinary(written) == .array(Array(repeating: small, count: 1000)))

        // Equal containers are shared wherever they are, a dictionary's values included, but an array and a
        // dictionary with the same references are not the same object.
        let nested: PlistValue = ["x": [[1, 2], ["a": [1, 2]]], "y": ["a": [1, 2]], "z": [[], [:]]]
        let objects = try objectEncodings(try writeBinary(nested)).objects
        // root, "x", "y", "z", [[1, 2], {a}], [1, 2], 1, 2, {a}, "a", [[], [:]], [], [:]
        #expect(objects.count == 13)
        #expect(try readBinary(try writeBinary(nested)) == nested)
    }

    @Test func canonicallyEquivalentStringsStayDistinct() throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        let written = try writeBinary([.string(composed), .string(decomposed)])
        #expect(try objectEncodings(written).objects.count == 3)
        let back = try readBinary(written)
        #expect(canonicalJSON(back) == canonicalJSON([.string(composed), .string(decomposed)]))
    }

    @Test func flatteningOrderIsDepthFirstWithKeysBeforeValues() throws {
        let value: PlistValue = ["b": "x", "a": [1, ["c": 2]], "x": 1]
        let objects = try objectEncodings(try writeBinary(value)).objects
        // dict, "a", "b", "x", array, 1, dict, "c", 2; then "x" and 1 are shared.
        #expect(objects.count == 9)
        #expect(objects[0] == [0xD3, 1, 2, 3, 4, 3, 5])
        #expect(objects[1] == [0x51, 0x61])
        #expect(objects[2] == [0x51, 0x62])
        #expect(objects[3] == [0x51, 0x78])
        #expect(objects[4] == [0xA2, 5, 6])
        #expect(objects[5] == [0x10, 1])
        #expect(objects[6] == [0xD1, 7, 8])
        #expect(objects[7] == [0x51, 0x63])
        #expect(objects[8] == [0x10, 2])
    }

    @Test func keysAreSortedByUnicodeScalarValue() throws {
        let keys = ["z", "B", "a", "\u{10000}", "\u{FFFF}", "\u{E9}", "b", "", "ab", "a\u{0}"]
        let value = PlistValue.dictionary(
            PlistDictionary(uniqueKeysWithValues: keys.map { ($0, PlistValue.bool(true)) }))
        let back = try readBinary(try writeBinary(value))
        #expect(back == value)
        let objects = try objectEncodings(try writeBinary(value)).objects
        let written = try objects[1...keys.count].map { encoded in
            try #require(try readBinary(HandBuiltPlist([encoded]).bytes).stringValue)
        }
        // Scalar order: U+FFFF before U+10000 (UTF-16 code-unit order would put U+10000 first).
        #expect(written == ["", "B", "a", "a\u{0}", "ab", "b", "z", "\u{E9}", "\u{FFFF}", "\u{10000}"])
    }

    /// Keys that share long prefixes, are prefixes of one another, or differ only past byte 16.
    static let awkwardKeys: [String] = {
        var keys: Set<String> = []
        for number in 0..<700 {
            keys.insert("shared prefix of 16+ bytes \(number)")
            keys.insert("shared prefix of 16+ bytes \(number)\u{0}")
            keys.insert("k\(number % 37)" + String(repeating: "é", count: number % 5))
            keys.insert(String(repeating: "a", count: number % 40))
            keys.insert("\u{10000}\(number)")
            keys.insert("\u{FFFF}\(number)")
        }
        return Array(keys)
    }()

    @Test(arguments: [nil, 0, 3] as [Int?])
    func manyKeysSortInScalarOrder(partitionLimit: Int?) throws {
        let entries = PlistDictionary(uniqueKeysWithValues: Self.awkwardKeys.map { ($0, PlistValue.bool(true)) })
        let sorted = SortedKeys(entries, partitionLimit: partitionLimit)
        let order = (0..<sorted.count).map { sorted.key(at: $0) }
        let expected = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(order.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
    }

    @Test func largeDictionaryRoundTripsWithSortedKeys() throws {
        let value = PlistValue.dictionary(
            PlistDictionary(
                uniqueKeysWithValues: Self.awkwardKeys.enumerated().map { ($1, .integer(PlistInteger(Int64($0)))) }))
        let written = try writeBinary(value)
        #expect(try readBinary(written) == value)
        let objects = try objectEncodings(written).objects
        let keys = try objects[1...Self.awkwardKeys.count].map { encoded in
            try #require(try readBinary(HandBuiltPlist([encoded]).bytes).stringValue)
        }
        #expect(
            keys.map { Array($0.utf8) }
                == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { Array($0.utf8) })
    }

    @Test(arguments: [(15, 1, 1), (254, 1, 2), (255, 2, 2), (65_534, 2, 4), (65_535, 4, 4)])
    func referenceAndOffsetSizesGrowWithTheFile(distinctElements: Int, referenceSize: Int, offsetSize: Int) throws {
        let value = PlistValue.array((0..<distinctElements).map { .integer(PlistInteger(Int64($0))) })
        let written = try writeBinary(value)
        let layout = try objectEncodings(written)
        #expect(layout.objects.count == distinctElements + 1)
        #expect(layout.referenceSize == referenceSize)
        #expect(layout.offsetSize == offsetSize)
        #expect(try readBinary(written) == value)
    }

    // MARK: - Round trips

    static let roundTripValues: [PlistValue] = [
        .null, true, false, "", "plain", .string(String(repeating: "long ", count: 20_000)),
        "\u{0}\u{1}\u{1F}\u{7F}", "Mässig, Maß", "日本語", "🐍 e\u{301} \u{10FFFF} \u{FFFF} \u{FEFF}",
        .integer(PlistInteger(Int64.min)), .integer(PlistInteger(Int64.max)), .integer(PlistInteger(UInt64.max)),
        .integer(PlistInteger(UInt64(1) << 63)), .integer(PlistInteger(Int64(-1))), 0,
        .real(0), .real(-0.0), .real(.infinity), .real(-.infinity), .real(.nan),
        .real(Double(bitPattern: 0x7FF8_0000_0000_0001)), .real(Double(bitPattern: 0xFFF0_0000_0000_0001)),
        .real(.leastNonzeroMagnitude), .real(Double(bitPattern: 0x000F_FFFF_FFFF_FFFF)),
        .real(.greatestFiniteMagnitude),
        .real(-.leastNormalMagnitude), .real(0.1),
        .date(PlistDate(secondsSinceReferenceDate: -1e300)), .date(PlistDate(secondsSinceReferenceDate: 1e300)),
        .date(PlistDate(secondsSinceReferenceDate: .infinity)), .date(PlistDate(secondsSinceReferenceDate: -.infinity)),
        .date(PlistDate(secondsSinceReferenceDate: .nan)), .date(PlistDate(secondsSinceReferenceDate: -63_114_076_800)),
        .date(PlistDate(secondsSinceReferenceDate: 0.123456789)), .date(PlistDate(secondsSinceReferenceDate: -0.0)),
        .data([]), .data(Array(0...255)), .data([UInt8](repeating: 7, count: 70_000)),
        .uid(0), .uid(255), .uid(256), .uid(65_535), .uid(65_536), .uid(UInt64(UInt32.max)), .uid(1 << 32), .uid(.max),
        [], [:], [[], [:], [[]]],
        .array((0..<16).map { .integer(PlistInteger(Int64($0))) }),
        .array((0..<300).map { .string("item \($0)") }),
        .array((0..<70_000).map { .integer(PlistInteger(Int64($0) * 3)) }),
        .dictionary(
            PlistDictionary(uniqueKeysWithValues: (0..<300).map { ("key \($0)", .integer(PlistInteger(Int64($0)))) })),
        [
            "every": [.null, true, 1, 1.5, "s", .data([0]), .date(PlistDate(secondsSinceReferenceDate: 2)), .uid(3)],
            "nested": ["dict": ["deeper": [["x": "y"]]]], "😀 key": "value", "": .null,
        ],
    ]

    @Test(arguments: roundTripValues.indices)
    func roundTrip(index: Int) throws {
        let value = Self.roundTripValues[index]
        let back = try readBinary(try writeBinary(value))
        #expect(back == value)
        #expect(canonicalJSON(back) == canonicalJSON(value))
    }

    @Test func deepNestingRoundTrips() throws {
        var value: PlistValue = "leaf"
        for level in 0..<PlistLimits.default.maxDepth {
            value = level.isMultiple(of: 2) ? [value, .integer(PlistInteger(Int64(level)))] : ["level": value]
        }
        let back = try readBinary(try writeBinary(value))
        #expect(back.depth == PlistLimits.default.maxDepth)
        #expect(back == value)
    }

    // MARK: - Cross-checks with CPython plistlib

    @Test func plistlibReadsWhatWeWrite() throws {
        let directory = try TemporaryDirectory(prefix: "bplist-cross")
        // Python's datetime covers years 1–9999 at microsecond precision: keep dates inside.
        let values: [PlistValue] =
            Self.roundTripValues.filter { value in
                if case .date = value { return false }
                return true
            } + [
                .date(PlistDate(secondsSinceReferenceDate: -63_000_000_000)),
                .date(PlistDate(secondsSinceReferenceDate: 250_000_000_000)),
                .date(PlistDate(secondsSinceReferenceDate: 120_479_613)),
                [
                    "dates": [
                        .date(PlistDate(secondsSinceReferenceDate: 0)), .date(PlistDate(secondsSinceReferenceDate: -1)),
                    ]
                ],
            ]
        var paths: [String] = []
        for (index, value) in values.enumerated() {
            let path = directory.file("value-\(index).bplist")
            try Data(try writeBinary(value)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let script =
            pythonCanonical + """
                for path in sys.argv[1:]:
                    with open(path, "rb") as f:
                        print(dumps(plistlib.load(f)))
                """
        guard let output = try runPython(script, arguments: paths, in: directory) else {
            print("python3 not found: plistlib cross-check skipped")
            return
        }
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == values.count)
        for (index, (line, value)) in zip(lines, values).enumerated() {
            #expect(line == canonicalJSON(value), "value \(index) differs after plistlib read it")
        }
    }

    @Test func weReadAndRewriteWhatPlistlibWrites() throws {
        let directory = try TemporaryDirectory(prefix: "bplist-cross")
        // Random documents of every type; no -0.0 or NaN, which plistlib's uniquing treats by
        // value equality rather than bit pattern.
        let script =
            pythonCanonical + #"""
                import os, random
                rng = random.Random(20240611)
                pool = ["a", "é", "e\u0301", "日本", "🐍", "\uffff", "\U0010ffff", "\x00", "key", "Ünïcödé"]
                key_pool = ["a", "b", "é", "日本", "🐍", "", "key", "Key", "\uffff", "\U00010000"]
                integers = [0, 1, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, -1, -2**63]
                reals = [0.0, 1.0, 0.5, float("inf"), float("-inf"), 5e-324, 1.7976931348623157e308]

                def text():
                    if rng.random() < 0.5:
                        length = rng.choice([0, 1, 14, 15, 16, 40])
                        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz .") for _ in range(length))
                    return "".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))

                def scalar():
                    kind = rng.randrange(9)
                    if kind == 0: return text()
                    if kind == 1: return rng.choice(integers + [rng.randint(-2**62, 2**62)])
                    if kind == 2: return rng.choice(reals + [rng.uniform(-1e9, 1e9)])
                    if kind == 3: return rng.random() < 0.5
                    if kind == 4: return bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 3, 14, 15, 300])))
                    if kind == 5:
                        microseconds = rng.randint(-2 * 10**15, 2 * 10**15)
                        return datetime.datetime(2001, 1, 1) + datetime.timedelta(microseconds=microseconds)
                    if kind == 6: return plistlib.UID(rng.choice([0, 200, 300, 70000, 2**40, 2**64 - 1]))
                    if kind == 7: return None
                    return rng.choice([1, True, 1.0, "1", b"1"])

                def value(depth):
                    roll = rng.random()
                    if depth > 3 or roll < 0.5: return scalar()
                    if roll < 0.75: return [value(depth + 1) for _ in range(rng.choice([0, 1, 3, 14, 15, 16]))]
                    count = rng.randint(0, 16)
                    return {rng.choice(key_pool) + str(rng.randint(0, 20)): value(depth + 1) for _ in range(count)}

                def shared(v, seen):
                    # One object for equal containers, which plistlib then writes once, as we do. UIDs are
                    # compared by identity, as both writers never share them.
                    def key(x):
                        if isinstance(x, (list, dict, plistlib.UID)) or x is None: return ("id", id(x))
                        return (type(x), x)
                    if isinstance(v, list):
                        v = [shared(x, seen) for x in v]
                        k = ("array", tuple(key(x) for x in v))
                    elif isinstance(v, dict):
                        v = {name: shared(x, seen) for name, x in v.items()}
                        k = ("dict", tuple(sorted((name, key(x)) for name, x in v.items())))
                    else:
                        return v
                    return seen.setdefault(k, v)

                documents = [value(0) for _ in range(60)]
                documents.append(list(range(70000)))
                documents.append({"big": [text() for _ in range(400)], "blob": bytes(70000)})
                documents.append([[[[["deep"]]]] for _ in range(3)])
                # Many keys sharing their first 16 bytes and more, and keys that are prefixes of others.
                # Keys stay in NFC: Swift's String equality would merge canonically equivalent keys.
                key_pieces = ["a", "b", " ", "é", "日本", "🐍", "\uffff", "\x00"]
                def key_text():
                    return "".join(rng.choice(key_pieces) for _ in range(rng.choice([0, 1, 2, 5, 12])))
                documents.append({"shared prefix, long enough " + key_text(): rng.randint(0, 9) for _ in range(600)})
                documents = [shared(document, {}) for document in documents]
                out = sys.argv[1]
                for index, document in enumerate(documents):
                    with open(os.path.join(out, f"doc-{index}.bplist"), "wb") as f:
                        plistlib.dump(document, f, fmt=plistlib.FMT_BINARY)
                    print(dumps(document))
                """#
        guard let output = try runPython(script, arguments: [directory.path], in: directory) else {
            print("python3 not found: plistlib cross-check skipped")
            return
        }
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 64)
        for (index, expected) in lines.enumerated() {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("doc-\(index).bplist"))))
            let value = try readBinary(original)
            #expect(canonicalJSON(value) == expected, "document \(index) decoded differently")
            #expect(try writeBinary(value) == original, "document \(index) re-encoded differently")
        }
    }
}
