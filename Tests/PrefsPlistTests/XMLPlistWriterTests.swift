// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsPlist

private func encodeText(_ value: PlistValue) throws -> String {
    String(decoding: try XMLPlistWriter.write(value), as: UTF8.self)
}

private func decode(_ bytes: [UInt8]) throws -> PlistValue {
    try bytes.withUnsafeBytes { try XMLPlistReader.read($0, limits: .default) }
}

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">

    """

/// Values of every kind, built from a seeded generator so a failure reproduces.
private struct ValueGenerator {
    var random: XMLTestRandom
    /// Whether to keep dates within what CPython's plistlib can hold (years 1 to 9999).
    var pythonCompatible = false

    mutating func value(depth: Int) -> PlistValue {
        let choice = Int(random.next() % (depth > 0 ? 10 : 7))
        switch choice {
        case 0: return .string(string())
        case 1: return .integer(integer())
        case 2: return .real(real())
        case 3: return .bool(random.next() & 1 == 0)
        case 4: return .date(date())
        case 5: return .data((0..<Int(random.next() % 120)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 6: return .uid(random.next() >> (random.next() % 64))
        case 7, 8:
            return .array((0..<Int(random.next() % 6)).map { _ in value(depth: depth - 1) })
        default:
            var entries: PlistDictionary = [:]
            for _ in 0..<Int(random.next() % 6) { entries[string()] = value(depth: depth - 1) }
            return .dictionary(entries)
        }
    }

    mutating func string() -> String {
        let pieces = [
            "a", "Z", "<", "&", ">", "]]>", "\"", "'", "\t", "\n", "\r", " ", "é", "Å", "ß", "→", "中", "🐍",
            "\u{FEFF}", "\u{7F}", "\u{85}", "\u{FFFD}", "e\u{301}", "", "plain text", "&amp;",
        ]
        return (0..<Int(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    mutating func integer() -> PlistInteger {
        let bounds: [PlistInteger] = [
            0, 1, -1, PlistInteger(Int64.max), PlistInteger(Int64.min), PlistInteger(UInt64.max),
            PlistInteger(UInt64(Int64.max) + 1), 255, 256, -129, 65536,
        ]
        switch random.next() % 3 {
        case 0: return bounds[Int(random.next() % UInt64(bounds.count))]
        case 1: return PlistInteger(Int64(bitPattern: random.next()))
        default: return PlistInteger(random.next())
        }
    }

    mutating func real() -> Double {
        let specials: [Double] = [
            0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, 0.1, 1e16, 1e-5, 123456789.125,
        ]
        switch random.next() % 3 {
        case 0: return specials[Int(random.next() % UInt64(specials.count))]
        case 1: return Double(bitPattern: random.next())
        default: return Double(Int64(bitPattern: random.next()) % 1_000_000) / 1000
        }
    }

    mutating func date() -> PlistDate {
        // Whole seconds: XML keeps no fraction. plistlib holds years 1 to 9999 only.
        let range: ClosedRange<Int64> =
            pythonCompatible ? -63_113_904_000...252_423_993_599 : -9_000_000_000_000...9_000_000_000_000
        let span = UInt64(range.upperBound - range.lowerBound)
        return PlistDate(secondsSinceReferenceDate: Double(range.lowerBound + Int64(random.next() % span)))
    }
}

/// Whether two values are equal, NaN payloads aside (XML has one spelling for NaN).
private func sameValue(_ lhs: PlistValue, _ rhs: PlistValue) -> Bool {
    switch (lhs, rhs) {
    case (.real(let a), .real(let b)): return (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern
    case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameValue)
    case (.dictionary(let a), .dictionary(let b)):
        return a.count == b.count && a.allSatisfy { key, value in b[key].map { sameValue(value, $0) } ?? false }
    default: return lhs == rhs
    }
}

@Suite("XML writer: layout")
struct XMLPlistWriterLayoutTests {
    @Test func everyKindLaidOutAsApple() throws {
        let value: PlistValue = [
            "string": "a < b & c > d\r\n",
            "integer": .integer(PlistInteger(UInt64.max)),
            "negative": -5,
            "real": 0.5,
            "infinity": .real(.infinity),
            "minus infinity": .real(-.infinity),
            "nan": .real(.nan),
            "yes": true,
            "no": false,
            "date": .date(PlistDate(secondsSinceReferenceDate: 120_479_613)),
            "data": .data(Array("<binary gunk>".utf8)),
            "empty array": [],
            "empty dict": [:],
            "empty data": .data([]),
            "list": [1, ["nested": "x"]],
            "uid": .uid(42),
        ]
        let expected =
            header + """
                <dict>
                \t<key>data</key>
                \t<data>
                \tPGJpbmFyeSBndW5rPg==
                \t</data>
                \t<key>date</key>
                \t<date>2004-10-26T10:33:33Z</date>
                \t<key>empty array</key>
                \t<array/>
                \t<key>empty data</key>
                \t<data>
                \t</data>
                \t<key>empty dict</key>
                \t<dict/>
                \t<key>infinity</key>
                \t<real>+infinity</real>
                \t<key>integer</key>
                \t<integer>18446744073709551615</integer>
                \t<key>list</key>
                \t<array>
                \t\t<integer>1</integer>
                \t\t<dict>
                \t\t\t<key>nested</key>
                \t\t\t<string>x</string>
                \t\t</dict>
                \t</array>
                \t<key>minus infinity</key>
                \t<real>-infinity</real>
                \t<key>nan</key>
                \t<real>nan</real>
                \t<key>negative</key>
                \t<integer>-5</integer>
                \t<key>no</key>
                \t<false/>
                \t<key>real</key>
                \t<real>0.5</real>
                \t<key>string</key>
                \t<string>a &lt; b &amp; c &gt; d&#13;
                </string>
                \t<key>uid</key>
                \t<dict>
                \t\t<key>CF$UID</key>
                \t\t<integer>42</integer>
                \t</dict>
                \t<key>yes</key>
                \t<true/>
                </dict>
                </plist>

                """
        #expect(try encodeText(value) == expected)
    }

    @Test func scalarRoots() throws {
        #expect(try encodeText("x") == header + "<string>x</string>\n</plist>\n")
        #expect(try encodeText([]) == header + "<array/>\n</plist>\n")
        #expect(
            try encodeText(.integer(PlistInteger(Int64.min))) == header
                + "<integer>-9223372036854775808</integer>\n</plist>\n")
    }

    @Test func dataLinesNarrowWithDepth() throws {
        let bytes = (0..<200).map { UInt8($0) }
        var value = PlistValue.data(bytes)
        for _ in 0..<9 { value = [value] }
        let lines = try encodeText(value).split(separator: "\n").filter {
            $0.hasPrefix("\t\t\t\t\t\t\t\t\t") && !$0.contains("<")
        }
        // At depth 9 the width is max(16, 76 - 72) = 16 characters: 12 bytes a line.
        #expect(lines.first.map { $0.count } == 9 + 16)
        #expect(lines.count == (200 + 11) / 12)
    }

    @Test func byteClassTableFollowsItsRule() {
        let table = XMLPlistWriter.byteClasses
        #expect(table.utf8CodeUnitCount == 256)
        for byte in 0..<min(256, table.utf8CodeUnitCount) {
            let expected: UInt8 =
                switch byte {
                case 0x09, 0x0A: 0
                case 0x0D, 0x26, 0x3C, 0x3E: 1
                case 0x00..<0x20: 2
                case 0xEF: 3
                default: 0
                }
            #expect(table.utf8Start[byte] == UInt8(ascii: "0") + expected, "byte 0x\(String(byte, radix: 16))")
        }
    }

    @Test("keys sort by Unicode scalar value, not by String's canonical order")
    func keysSortByScalars() throws {
        let value: PlistValue = ["b": 1, "a\u{30A}": 2, "Z": 3, "ä": 4, "\u{FF21}": 5, "😀": 6, "": 7, "z": 8]
        let keys = try encodeText(value).split(separator: "\n").filter { $0.contains("<key>") }
            .map { $0.replacingOccurrences(of: "\t<key>", with: "").replacingOccurrences(of: "</key>", with: "") }
        #expect(keys == ["", "Z", "a\u{30A}", "b", "z", "ä", "\u{FF21}", "😀"])
    }

    @Test func datesUseTheProlepticGregorianCalendar() throws {
        for seconds in [-63_114_076_800.0, 63_113_904_000, -1e12, 1e12, 0, -0.5, 1.75] {
            let date = PlistDate(secondsSinceReferenceDate: seconds)
            let text = try encodeText(.date(date))
            #expect(text.contains("<date>\(try #require(date.iso8601String))</date>"), "\(seconds)")
        }
    }
}

@Suite("XML writer: values XML cannot hold")
struct XMLPlistWriterErrorTests {
    private static let cases: [(PlistValue, String, String)] = {
        let nestedNull: PlistValue = ["a": ["b": [1, 2, .null]]]
        let infiniteDate: PlistValue = ["odd key": .date(PlistDate(secondsSinceReferenceDate: .infinity))]
        let nanDate: PlistValue = [.date(PlistDate(secondsSinceReferenceDate: .nan))]
        let bell: PlistValue = ["k": "bell \u{07}"]
        let nul: PlistValue = ["k": "\u{0}"]
        let fffe: PlistValue = ["k": "x\u{FFFE}"]
        let ffff: PlistValue = ["k": "\u{FFFF}"]
        let badKey: PlistValue = ["bad\u{1B}key": 1]
        return [
            (.null, "the root value", "null"), (nestedNull, "/a/b[2]", "null"), (infiniteDate, "/\"odd key\"", "date"),
            (nanDate, "[0]", "date"), (bell, "/k", "U+0007"), (nul, "/k", "U+0000"), (fffe, "/k", "U+FFFE"),
            (ffff, "/k", "U+FFFF"), (badKey, "/\"bad\u{1B}key\"", "U+001B"),
        ]
    }()

    @Test(arguments: cases)
    func unrepresentable(value: PlistValue, path: String, reason: String) throws {
        do {
            _ = try XMLPlistWriter.write(value)
            Issue.record("wrote \(value)")
        } catch let error as PlistError {
            #expect(error.code == .unrepresentable)
            #expect(error.message.hasPrefix(path + ":"), "\(error.message)")
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func allowedNearMisses() throws {
        // Tab, newline, U+FFFD, U+FEFF and U+10FFFF are all fine.
        let text = "\t\n\u{FFFD}\u{FEFF}\u{10FFFF}\u{7F}"
        #expect(try decode(XMLPlistWriter.write(.string(text))) == .string(text))
    }
}

@Suite("XML writer: round trips")
struct XMLPlistWriterRoundTripTests {
    @Test(arguments: 0..<40)
    func generatedValuesRoundTrip(seed: Int) throws {
        var generator = ValueGenerator(random: XMLTestRandom(seed: UInt64(seed)))
        let value = generator.value(depth: 5)
        let decoded = try decode(XMLPlistWriter.write(value))
        #expect(sameValue(decoded, value), "seed \(seed)")
    }

    @Test func deepNesting() throws {
        var value: PlistValue = "leaf"
        for level in 0..<200 { value = level.isMultiple(of: 2) ? [value] : ["k\(level)": value] }
        #expect(try decode(XMLPlistWriter.write(value)) == value)
    }

    @Test func largeArray() throws {
        let value = PlistValue.array((0..<100_000).map { .integer(PlistInteger(Int64($0) * 7919 - 300_000)) })
        #expect(try decode(XMLPlistWriter.write(value)) == value)
    }

    @Test func realsRoundTripExactly() throws {
        let reals: [Double] = [
            0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .leastNormalMagnitude, .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, 0.1, 1.0 / 3, 1e16, 1e-5, Double(bitPattern: 0x0000_1234_5678_9ABC),
            9007199254740992,
        ]
        let value = PlistValue.array(reals.map(PlistValue.real))
        #expect(try decode(XMLPlistWriter.write(value)) == value)
        guard case .real(let nan)? = try decode(XMLPlistWriter.write([.real(.nan)])).arrayValue?.first else {
            Issue.record("no real")
            return
        }
        #expect(nan.isNaN)
    }

    @Test(arguments: [
        (2.0, "2"), (-5.0, "-5"), (0.5, "0.5"), (32.5, "32.5"), (0.1, "0.10000000000000001"), (1e20, "1e+20"),
        (1e16, "10000000000000000"), (1e17, "1e+17"), (-123_456_789.0, "-123456789"), (1.0 / 3, "0.33333333333333331"),
        (1.5e-7, "1.4999999999999999e-07"), (.leastNonzeroMagnitude, "4.9406564584124654e-324"),
        (.greatestFiniteMagnitude, "1.7976931348623157e+308"), (0.0, "0.0"), (-0.0, "-0.0"),
        (.infinity, "+infinity"), (-.infinity, "-infinity"), (.nan, "nan"),
    ])
    func realsAreWrittenAsCoreFoundationWritesThem(real: Double, text: String) throws {
        let written = String(decoding: try XMLPlistWriter.write(.real(real)), as: UTF8.self)
        #expect(written.contains("\n<real>\(text)</real>\n"), "\(written)")
    }

    @Test func theExactPathForRealsAgreesWithPrintf() throws {
        // Reals from 1e-4 to 1e17 are formatted without printf; every one must be printf's %.17g.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var reals: [Double] = [
            1e-4, 1e-4.nextDown, 1e-4.nextUp, 1e17.nextDown, 1e16, 1e16.nextUp, 1e16.nextDown, 0.1, 0.3, 2.5e-4,
            1_234_567_890_123_456.25, 1_234_567_890_123_456.75, 2_251_799_813_685_248.5, 9_999_999_999_999_999.0,
            99_999_999_999_999.99, 0.999_999_999_999_999_99, 123_456.789, -345_678.123,
        ]
        for _ in 0..<100_000 {
            // A random significand at every binary exponent of the range, and random short decimals.
            let binary = Double(
                sign: .plus, exponent: Int(next() % 71) - 14, significand: 1 + Double(next() >> 12) / 0x1p52)
            let decimal = Double(Int64(next() % 2_000_000_000_000)) / Double([1, 10, 1000, 1e6, 1e9][Int(next() % 5)])
            reals += [binary, -binary, decimal]
        }
        for real in reals where real != 0 {
            let exact = PlistValue.withCoreFoundationRealText(real) { String(decoding: $0, as: UTF8.self) }
            let printf = PlistValue.printfRealText(real, significantDigits: 17)
            if exact != printf { Issue.record("\(real.bitPattern): \(exact) != \(printf)") }
        }
    }

    @Test func realsOfMacOSFilesAreWrittenAsMacOSWroteThem() throws {
        // Files written by macOS itself: each <real> we write for them is the text macOS wrote.
        guard let corpus = try Corpus.load() else {
            print(Corpus.absentMessage)
            return
        }
        let files = corpus.files.filter { $0.relativePath.hasPrefix("xml/macos-") }
        var compared = 0
        for file in files {
            let original = try file.bytes()
            let rewritten = try XMLPlistWriter.write(try decode(original))
            let reals = { (bytes: [UInt8]) -> [String] in
                String(decoding: bytes, as: UTF8.self).components(separatedBy: "<real>").dropFirst().map {
                    String($0.prefix { $0 != "<" })
                }.sorted()
            }
            #expect(reals(rewritten) == reals(original), "\(file.relativePath)")
            compared += reals(original).count
        }
        #expect(compared > 200)
    }

    @Test func integerBoundsRoundTrip() throws {
        let value: PlistValue = [
            .integer(PlistInteger(Int64.min)), .integer(PlistInteger(Int64.max)), .integer(PlistInteger(UInt64.max)),
            .integer(PlistInteger(UInt64(Int64.max) + 1)), 0, -1,
        ]
        #expect(try decode(XMLPlistWriter.write(value)) == value)
    }

    @Test func stringsWithMarkupRoundTrip() throws {
        let value: PlistValue = ["<&>": "]]> <![CDATA[ & &amp; \r\n \r 🐍 \u{10FFFF} e\u{301}", "": ""]
        #expect(try decode(XMLPlistWriter.write(value)) == value)
    }

    @Test(
        "decoding then encoding the CPython test file gives it back byte for byte",
        .enabled(if: (try? Corpus.load()) != nil, Comment(rawValue: Corpus.absentMessage)))
    func cpythonTestDataIsReproduced() throws {
        let corpus = try #require(try Corpus.load())
        let file = try #require(corpus.files.first { $0.relativePath == "xml/cpython-testdata.plist" })
        let original = try file.bytes()
        #expect(try XMLPlistWriter.write(decode(original)) == original)
    }
}

/// Runs CPython's plistlib on the other side of the format.
private enum Python {
    static let executable: String? =
        ["/usr/bin/python3", "/usr/local/bin/python3"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
        .map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    static var isPresent: Bool { executable != nil }

    /// `canonical(value)` as JSON text: every leaf a string, dictionaries sorted, so both sides
    /// print the same bytes for the same value.
    static let canonicalFunction = """
        import datetime, json, plistlib, struct, sys
        def canonical(v):
            if isinstance(v, bool): return ["b", "1" if v else "0"]
            if isinstance(v, int): return ["i", str(v)]
            if isinstance(v, float): return ["r", "nan" if v != v else struct.pack(">d", v).hex()]
            if isinstance(v, str): return ["s", v.encode("utf-8").hex()]
            if isinstance(v, bytes): return ["d", v.hex()]
            if isinstance(v, datetime.datetime):
                return ["t", str(int((v - datetime.datetime(2001, 1, 1)).total_seconds()))]
            if isinstance(v, list): return ["a", [canonical(e) for e in v]]
            if isinstance(v, dict):
                return ["o", sorted([[k.encode("utf-8").hex(), canonical(e)] for k, e in v.items()])]
            raise TypeError(type(v))
        def dump(v): return json.dumps(canonical(v), separators=(",", ":"))

        """

    static func run(_ script: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(executable))
        process.arguments = ["-c", canonicalFunction + script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
        return String(decoding: data, as: UTF8.self)
    }

    static func canonical(_ value: PlistValue) -> String {
        func hex(_ bytes: some Sequence<UInt8>) -> String {
            bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        switch value {
        case .bool(let flag): return "[\"b\",\"\(flag ? 1 : 0)\"]"
        case .integer(let number): return "[\"i\",\"\(number)\"]"
        case .real(let real):
            return "[\"r\",\"\(real.isNaN ? "nan" : String(real.bitPattern, radix: 16).leftPadded(to: 16))\"]"
        case .string(let text): return "[\"s\",\"\(hex(text.utf8))\"]"
        case .data(let bytes): return "[\"d\",\"\(hex(bytes))\"]"
        case .date(let date): return "[\"t\",\"\(Int64(date.secondsSinceReferenceDate.rounded(.down)))\"]"
        case .array(let elements): return "[\"a\",[" + elements.map(canonical).joined(separator: ",") + "]]"
        case .dictionary(let entries):
            let pairs = entries.map { (hex($0.key.utf8), canonical($0.value)) }.sorted { $0.0 < $1.0 }
            return "[\"o\",[" + pairs.map { "[\"\($0.0)\",\($0.1)]" }.joined(separator: ",") + "]]"
        case .uid(let uid):
            // plistlib's XML reader keeps CoreFoundation's UID form as a dictionary.
            return canonical(["CF$UID": .integer(PlistInteger(uid))])
        case .null: return "[\"null\"]"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

@Suite("XML writer: cross-checked with CPython's plistlib", .enabled(if: Python.isPresent, "python3 not found"))
struct XMLPlistWriterPythonTests {
    @Test("plistlib reads what we write as the same value")
    func plistlibReadsOurOutput() throws {
        let directory = try TemporaryDirectory(prefix: "xml-python")
        var paths: [String] = []
        var expected: [String] = []
        for seed in 0..<30 {
            var generator = ValueGenerator(random: XMLTestRandom(seed: UInt64(1000 + seed)), pythonCompatible: true)
            let value = generator.value(depth: 5)
            let path = directory.file("ours-\(seed).plist")
            try Data(XMLPlistWriter.write(value)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
            expected.append(Python.canonical(value))
        }
        let output = try Python.run(
            "for p in sys.argv[1:]:\n    print(dump(plistlib.load(open(p, 'rb'))))", arguments: paths)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == expected.count)
        for (line, want) in zip(lines, expected) { #expect(line == want) }
    }

    @Test("we read what plistlib writes as the same value")
    func weReadPlistlibOutput() throws {
        let directory = try TemporaryDirectory(prefix: "xml-python")
        let script = """
            import random
            inf = float("inf")
            top = 2**64 - 1
            rng = random.Random(int(sys.argv[2]))
            pieces = ["a", "<", "&", ">", "]]>", "é", "🐍", "\\t", "\\n", " ", "中"]
            def s(): return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
            def value(depth):
                k = rng.randint(0, 9 if depth > 0 else 6)
                if k == 0: return s()
                if k == 1: return rng.choice([0, -1, 2**63 - 1, -2**63, top, 2**63, rng.randint(-2**63, top)])
                if k == 2: return rng.choice([0.0, -0.0, 0.1, 1e300, 5e-324, inf, -inf, rng.uniform(-1e9, 1e9)])
                if k == 3: return rng.random() < 0.5
                if k == 4: return datetime.datetime(1, 1, 1) + datetime.timedelta(seconds=rng.randint(0, 315537897599))
                if k == 5: return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 100)))
                if k == 6: return rng.randint(0, 100)
                if k in (7, 8): return [value(depth - 1) for _ in range(rng.randint(0, 5))]
                return {s(): value(depth - 1) for _ in range(rng.randint(0, 5))}
            import re
            def apple_real(match):
                x = float(match.group(1))
                if x != x: text = "nan"
                elif x in (inf, -inf): text = "+infinity" if x > 0 else "-infinity"
                elif x == 0: text = "-0.0" if str(x).startswith("-") else "0.0"
                else: text = "%.17g" % x
                return b"<real>" + text.encode() + b"</real>"
            for i in range(20):
                v = value(5)
                data = plistlib.dumps(v)
                open(sys.argv[1] + "/theirs-%d.plist" % i, "wb").write(data)
                # The same document with its reals as CoreFoundation writes them: C's %.17g.
                open(sys.argv[1] + "/apple-%d.plist" % i, "wb").write(re.sub(rb"<real>([^<]*)</real>", apple_real, data))
                print(dump(v))
            """
        let output = try Python.run(script, arguments: [directory.path, "4242"])
        let expected = output.split(separator: "\n").map(String.init)
        #expect(expected.count == 20)
        for (index, want) in expected.enumerated() {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("theirs-\(index).plist"))))
            let value = try decode(bytes)
            #expect(Python.canonical(value) == want, "file \(index)")
            // Byte for byte: what plistlib wrote is what we write for the same value, except for the
            // text of reals: plistlib writes Python's `repr` (`2.0`, `0.1`, `inf`), CoreFoundation and
            // we write `%.17g` (`2`, `0.10000000000000001`, `+infinity`), which Python formatted here.
            let apple = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("apple-\(index).plist"))))
            #expect(try XMLPlistWriter.write(value) == apple, "file \(index)")
        }
    }
}
