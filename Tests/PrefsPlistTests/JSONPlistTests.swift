// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsPlist

private func readJSON(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
    try bytes.withUnsafeBytes { try JSONPlistReader.read($0, limits: limits) }
}

private func readJSON(_ text: String, limits: PlistLimits = .default) throws -> PlistValue {
    try readJSON(Array(text.utf8), limits: limits)
}

private func writeJSON(_ value: PlistValue, pretty: Bool = false) throws -> String {
    String(decoding: try JSONPlistWriter.write(value, pretty: pretty), as: UTF8.self)
}

/// A malformed document and the error it must produce.
struct MalformedJSON: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]
    let code: PlistError.Code
    let line: Int
    let column: Int
    let message: String

    init(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        self.init(bytes: Array(text.utf8), .malformed, line, column, message)
    }

    init(bytes: [UInt8], _ code: PlistError.Code, _ line: Int, _ column: Int, _ message: String) {
        self.bytes = bytes
        self.code = code
        self.line = line
        self.column = column
        self.message = message
    }

    var testDescription: String { String(decoding: bytes, as: UTF8.self).debugDescription }
}

@Suite struct JSONPlistTests {
    // MARK: Writer

    @Test func compactOutputIsExact() throws {
        #expect(try writeJSON(["a": 1, "b": [true, "x"]]) == #"{"a":1,"b":[true,"x"]}"#)
        #expect(try writeJSON([]) == "[]")
        #expect(try writeJSON([:]) == "{}")
        #expect(try writeJSON(["n": .null, "f": false, "e": [[:], []]]) == #"{"e":[{},[]],"f":false,"n":null}"#)
        #expect(try writeJSON("top") == #""top""#)
        #expect(try writeJSON(.null) == "null")
    }

    @Test func prettyOutputFollowsFoundation() throws {
        let value: PlistValue = ["a": 1, "b": [true, "x"], "c": [:], "d": [], "e": ["f": .null]]
        let expected = """
            {
              "a" : 1,
              "b" : [
                true,
                "x"
              ],
              "c" : {

              },
              "d" : [

              ],
              "e" : {
                "f" : null
              }
            }
            """
        #expect(try writeJSON(value, pretty: true) == expected)
        #expect(try writeJSON([:], pretty: true) == "{\n\n}")
        #expect(try writeJSON(5, pretty: true) == "5")
    }

    @Test func keysSortByUnicodeScalar() throws {
        // UTF-16 order would put U+1F600 (a surrogate pair, D83D) before U+FFFD.
        let value: PlistValue = ["😀": 5, "\u{FFFD}": 4, "ä": 3, "a": 2, "Z": 1, "": 0, "aa": 6, "a\u{0}": 7]
        #expect(
            try writeJSON(value) == "{\"\":0,\"Z\":1,\"a\":2,\"a\\u0000\":7,\"aa\":6,\"ä\":3,\"\u{FFFD}\":4,\"😀\":5}")
    }

    @Test func stringsAreEscapedAsJSONRequires() throws {
        let text = "\"\\/\u{08}\u{0C}\n\r\t\u{0}\u{01}\u{1F}\u{7F}é\u{2028}😀"
        #expect(try writeJSON(.string(text)) == #""\"\\/\b\f\n\r\t\u0000\u0001\u001f"# + "\u{7F}é\u{2028}😀\"")
    }

    @Test func numbersAreExactOrShortest() throws {
        let integers: PlistValue = [0, -1, .integer(PlistInteger(Int64.min)), .integer(PlistInteger(UInt64.max))]
        #expect(try writeJSON(integers) == "[0,-1,-9223372036854775808,18446744073709551615]")
        let reals: PlistValue = [
            1.0, 0.1, -0.0, 1e100, 1e-7, .real(.leastNonzeroMagnitude), 1e16, 123_456_789.0, 2.5e-5,
        ]
        #expect(try writeJSON(reals) == "[1.0,0.1,-0.0,1e+100,1e-07,5e-324,1e+16,123456789.0,2.5e-05]")
        #expect(try readJSON(writeJSON(reals)) == reals, "reals read back as reals, bit for bit")
    }

    @Test(arguments: [
        (PlistValue.date(PlistDate(secondsSinceReferenceDate: 0)), "a date"),
        (PlistValue.data([1, 2]), "data"),
        (PlistValue.uid(7), "a UID"),
        (PlistValue.real(.infinity), "a non-finite real (inf)"),
        (PlistValue.real(-.infinity), "a non-finite real (-inf)"),
        (PlistValue.real(.nan), "a non-finite real (nan)"),
    ])
    func valuesJSONCannotHoldAreErrors(value: PlistValue, kind: String) throws {
        for pretty in [false, true] {
            let nested = try #require(throws: PlistError.self) {
                try JSONPlistWriter.write(["a": ["z": 1, "b": [1, "x", value]]], pretty: pretty)
            }
            #expect(nested.code == .unrepresentable)
            #expect(nested.message == "invalid object in plist for destination format: JSON cannot hold \(kind)")
            #expect(nested.position == .codingPath("a.b[2]"))
            let topLevel = try #require(throws: PlistError.self) { try JSONPlistWriter.write(value, pretty: pretty) }
            #expect(topLevel.position == .codingPath(""))
        }
    }

    // MARK: Reader

    @Test func readsEveryKindOfValue() throws {
        let text = """
            \t{ "s" : "x", "i" : -12, "r" : 2.5, "t" : true, "f" : false, "n" : null,
              "a" : [ 1, [ ], { } ], "o" : { "k" : [ "v" ] } }\r\n
            """
        let expected: PlistValue = [
            "s": "x", "i": -12, "r": 2.5, "t": true, "f": false, "n": .null, "a": [1, [], [:]], "o": ["k": ["v"]],
        ]
        #expect(try readJSON(text) == expected)
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try readJSON(#"{"a":1,"b":2,"a":3}"#) == ["a": 3, "b": 2])
    }

    @Test func stringEscapesDecode() throws {
        let text = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00\uDBFF\uDFFF\u0000 plain é😀""#
        #expect(try readJSON(text) == .string("\"\\/\u{08}\u{0C}\n\r\tAé€😀\u{10FFFF}\u{0} plain é😀"))
    }

    @Test(arguments: [
        ("0", PlistValue.integer(0)),
        ("-0", PlistValue.integer(0)),
        ("-0.0", PlistValue.real(-0.0)),
        ("1", PlistValue.integer(1)),
        ("1.0", PlistValue.real(1.0)),
        ("1e2", PlistValue.real(100)),
        ("1E+2", PlistValue.real(100)),
        ("1e-2", PlistValue.real(0.01)),
        ("9223372036854775807", PlistValue.integer(PlistInteger(Int64.max))),
        ("9223372036854775808", PlistValue.integer(PlistInteger(UInt64(1) << 63))),
        ("18446744073709551615", PlistValue.integer(PlistInteger(UInt64.max))),
        ("18446744073709551616", PlistValue.real(18_446_744_073_709_551_616.0)),
        ("-9223372036854775808", PlistValue.integer(PlistInteger(Int64.min))),
        ("-9223372036854775809", PlistValue.real(-9_223_372_036_854_775_809.0)),
        ("-18446744073709551615", PlistValue.real(-18_446_744_073_709_551_615.0)),
        ("0.1", PlistValue.real(0.1)),
        ("3.141592653589793238462643383279", PlistValue.real(.pi)),
        ("2.2250738585072014e-308", PlistValue.real(2.2250738585072014e-308)),
        ("4.9e-324", PlistValue.real(.leastNonzeroMagnitude)),
        ("1e-400", PlistValue.real(0.0)),
        ("-1e-400", PlistValue.real(-0.0)),
        ("0e999999999999", PlistValue.real(0.0)),
        ("1.7976931348623157e308", PlistValue.real(.greatestFiniteMagnitude)),
        ("0.000000000000000000000000000001", PlistValue.real(1e-30)),
        ("9007199254740993", PlistValue.integer(9_007_199_254_740_993)),
        ("9007199254740993.0", PlistValue.real(9_007_199_254_740_992.0)),
    ])
    func numbersAreIntegersOnlyWithoutFractionOrExponent(text: String, expected: PlistValue) throws {
        #expect(try readJSON(text) == expected)
        #expect(try readJSON("[\(text)]") == [expected])
    }

    @Test func realsMatchCorrectRounding() throws {
        // Random doubles must survive write → read bit for bit; random short decimals must parse
        // to the correctly rounded value (`Double(String)`), whichever path the reader takes.
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<4000 {
            let real = Double(bitPattern: generator.next())
            guard real.isFinite else { continue }
            #expect(try readJSON(writeJSON(.real(real))) == .real(real))
        }
        for _ in 0..<4000 {
            let digits = String(generator.next() % 10_000_000_000_000_000)
            let point = Int(generator.next() % UInt64(digits.count + 1))
            let exponent = Int(generator.next() % 60) - 30
            let text = "\(digits.prefix(point)).\(digits.dropFirst(point))0e\(exponent)"
                .replacingOccurrences(of: "^\\.", with: "0.", options: .regularExpression)
            let expected = try #require(Double(text))
            #expect(try readJSON(text) == .real(expected), "\(text)")
        }
    }

    static let malformedDocuments: [MalformedJSON] = [
        MalformedJSON("", 1, 1, "unexpected end of input: expected a value"),
        MalformedJSON("  \n ", 2, 2, "unexpected end of input: expected a value"),
        MalformedJSON("{\n  \"a\": 1,\n  \"b\" 2\n}", 3, 7, "unexpected '2': expected ':' after the key"),
        MalformedJSON("[1,]", 1, 4, "a trailing comma is not allowed in an array"),
        MalformedJSON(#"{"a":1,}"#, 1, 8, "a trailing comma is not allowed in an object"),
        MalformedJSON("[01]", 1, 2, "a number cannot start with a leading zero"),
        MalformedJSON(#"  "abc"#, 1, 3, "unterminated string"),
        MalformedJSON("\"a\tb\"", 1, 3, "unescaped control character U+0009 in a string"),
        MalformedJSON(#"["\x"]"#, 1, 3, "invalid escape in a string: 'x' cannot follow a backslash"),
        MalformedJSON(
            #""\ud800""#, 1, 2,
            "lone surrogate U+D800 in a string: a high surrogate must be followed by a \\u escape of a low surrogate"),
        MalformedJSON(
            #""ab\ud800\u0041""#, 1, 4,
            "lone surrogate U+D800 in a string: a high surrogate must be followed by a \\u escape of a low surrogate"),
        MalformedJSON(
            #""\udc00""#, 1, 2, "lone surrogate U+DC00 in a string: a low surrogate must follow a high surrogate"),
        MalformedJSON(#""\u12""#, 1, 2, "invalid \\u escape in a string: expected four hex digits"),
        MalformedJSON(#""\u12g4""#, 1, 2, "invalid \\u escape in a string: expected four hex digits"),
        MalformedJSON("[1 2]", 1, 4, "unexpected '2': expected ',' or ']'"),
        MalformedJSON("tru", 1, 1, "invalid literal: expected 'true'"),
        MalformedJSON("[nul]", 1, 2, "invalid literal: expected 'null'"),
        MalformedJSON("True", 1, 1, "unexpected 'T': expected a value"),
        MalformedJSON("1 2", 1, 3, "unexpected '2': expected the end of the input"),
        MalformedJSON("// comment\n1", 1, 1, "unexpected '/': expected a value"),
        MalformedJSON("NaN", 1, 1, "unexpected 'N': expected a value"),
        MalformedJSON("-Infinity", 1, 2, "unexpected 'I': expected a digit in the number"),
        MalformedJSON("[1e400]", 1, 2, "the number 1e400 is too large for a real"),
        MalformedJSON("1.", 1, 3, "unexpected end of input: expected a digit after the decimal point"),
        MalformedJSON("1.e5", 1, 3, "unexpected 'e': expected a digit after the decimal point"),
        MalformedJSON("1e", 1, 3, "unexpected end of input: expected a digit in the exponent"),
        MalformedJSON("-", 1, 2, "unexpected end of input: expected a digit in the number"),
        MalformedJSON("+1", 1, 1, "unexpected '+': expected a value"),
        MalformedJSON("'a'", 1, 1, "unexpected ''': expected a value"),
        MalformedJSON("[\n\n  \"é\", \"x\" \"y\"]", 3, 12, "unexpected '\"': expected ',' or ']'"),
        MalformedJSON("[\r\n1,\r2 x]", 3, 3, "unexpected 'x': expected ',' or ']'"),
        MalformedJSON(#"{"a":[1,"#, 1, 9, "unexpected end of input: expected a value"),
        MalformedJSON(
            #"{"a" : 1"#, 1, 9,
            "unexpected end of input: expected ',' or '}'; the object opened at line 1, column 1 is not closed"),
        MalformedJSON(#"{1:2}"#, 1, 2, "unexpected '1': expected a string key"),
        MalformedJSON("é", 1, 1, "unexpected character 'é' (U+00E9): expected a value"),
        MalformedJSON("\u{01}", 1, 1, "unexpected control character U+0001: expected a value"),
        MalformedJSON(
            bytes: Array("[\"ok\", \"a".utf8) + [0xC3, 0x28, 0x22, 0x5D], .invalidEncoding, 1, 10,
            "invalid UTF-8 byte 0xC3 in a string"),
        MalformedJSON(
            bytes: Array("\"\\n".utf8) + [0xED, 0xA0, 0x80, 0x22], .invalidEncoding, 1, 4,
            "invalid UTF-8 byte 0xED in a string"),
        MalformedJSON(bytes: [0x5B, 0xFF, 0x5D], .malformed, 1, 2, "unexpected byte 0xFF: expected a value"),
    ]

    @Test(arguments: malformedDocuments)
    func malformedDocumentsAreRejectedWithTheirPosition(document: MalformedJSON) throws {
        let error = try #require(throws: PlistError.self) { try readJSON(document.bytes) }
        #expect(error.code == document.code)
        #expect(error.message == document.message)
        #expect(error.position == .text(line: document.line, column: document.column))
    }

    @Test func limitsAreEnforced() throws {
        let shallow = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 3, maxObjectCount: 1000)
        #expect(try readJSON("[[[1]]]", limits: shallow) == [[[1]]])
        let deep = try #require(throws: PlistError.self) { try readJSON("[[{\"a\":[1]}]]", limits: shallow) }
        #expect(deep.code == .limitExceeded)
        #expect(deep.position == .text(line: 1, column: 8))

        let few = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 10, maxObjectCount: 3)
        #expect(try readJSON("[1,2]", limits: few) == [1, 2])
        #expect(try readJSON(#"{"a":1}"#, limits: few) == ["a": 1])
        let many = try #require(throws: PlistError.self) { try readJSON("[1,2,3]", limits: few) }
        #expect(many.code == .limitExceeded)
        #expect(many.position == .text(line: 1, column: 6))

        let small = PlistLimits(maxInputBytes: 4, maxDepth: 10, maxObjectCount: 10)
        #expect(try readJSON("1234", limits: small) == 1234)
        let large = try #require(throws: PlistError.self) { try readJSON("12345", limits: small) }
        #expect(large.code == .limitExceeded)
    }

    @Test func hostileNestingFailsFast() throws {
        let error = try #require(throws: PlistError.self) { try readJSON(String(repeating: "[", count: 1_000_000)) }
        #expect(error.code == .limitExceeded)
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(throws: PlistError.self) { try readJSON(objects) }
    }

    @Test func otherUnicodeEncodingsAreTranscoded() throws {
        let text = "{\"k\":[\"é😀\",1]}"
        let expected: PlistValue = ["k": ["é😀", 1]]
        let utf16 = Array(text.utf16)
        let utf16LE = utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let scalars = text.unicodeScalars.map(\.value)
        let utf32LE = scalars.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let utf32BE = scalars.flatMap { value in (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        #expect(try readJSON([0xEF, 0xBB, 0xBF] + Array(text.utf8)) == expected)
        #expect(try readJSON([0xFF, 0xFE] + utf16LE) == expected)
        #expect(try readJSON([0xFE, 0xFF] + utf16BE) == expected)
        #expect(try readJSON(utf16LE) == expected)
        #expect(try readJSON(utf16BE) == expected)
        #expect(try readJSON([0xFF, 0xFE, 0, 0] + utf32LE) == expected)
        #expect(try readJSON([0, 0, 0xFE, 0xFF] + utf32BE) == expected)
        #expect(try readJSON(utf32BE) == expected)

        // Positions count characters, whatever the encoding.
        let bad = Array("[\"é\" x]".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let error = try #require(throws: PlistError.self) { try readJSON([0xFF, 0xFE] + bad) }
        #expect(error.position == .text(line: 1, column: 6))

        let odd = try #require(throws: PlistError.self) { try readJSON([0xFF, 0xFE, 0x31]) }
        #expect(odd.code == .invalidEncoding)
        #expect(odd.message == "the input is not valid UTF-16 (little-endian) text: a code unit is cut off at the end")
        #expect(odd.position == .text(line: 1, column: 1))
        let badScalar = try #require(throws: PlistError.self) { try readJSON([0, 0, 0, 0x31, 0, 0x11, 0, 0]) }
        #expect(
            badScalar.message == "the input is not valid UTF-32 (big-endian) text: 0x110000 is not a Unicode scalar")
        #expect(badScalar.position == .text(line: 1, column: 2))
        let loneSurrogate = try #require(throws: PlistError.self) {
            try readJSON([0xFF, 0xFE, 0x22, 0, 0x00, 0xD8, 0x22, 0])
        }
        #expect(loneSurrogate.code == .invalidEncoding)
        #expect(loneSurrogate.position == .text(line: 1, column: 2))
        let afterLines = Array("[\r\n1,\r\n\"\u{D7FF}".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let lowFirst = try #require(throws: PlistError.self) { try readJSON(afterLines + [0xDC, 0x00, 0x00, 0x22]) }
        #expect(lowFirst.message.hasSuffix("a low surrogate does not follow a high surrogate"))
        #expect(lowFirst.position == .text(line: 3, column: 3))
    }

    @Test func writtenDocumentsReadBack() throws {
        let value: PlistValue = [
            "string": "a \"quoted\" \\ line\nbreak\u{0} é 😀", "int": .integer(PlistInteger(UInt64.max)),
            "negative": .integer(PlistInteger(Int64.min)), "real": 0.1, "zero": -0.0, "bool": false, "null": .null,
            "empty": [[:], []], "nested": ["deeper": ["deepest": [1, 2.5, "three"]]],
        ]
        for pretty in [false, true] {
            #expect(try readJSON(writeJSON(value, pretty: pretty)) == value)
        }
    }

    @Test func randomValuesRoundTrip() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<300 {
            let value = Self.randomValue(&generator, depth: 0)
            for pretty in [false, true] {
                #expect(try readJSON(JSONPlistWriter.write(value, pretty: pretty)) == value)
            }
        }
    }

    @Test func truncatedAndMutatedDocumentsFailCleanly() throws {
        let document = Array(
            #"{"a":[1,-2.5e3,"x\u00e9\ud83d\ude00",true,false,null,{}],"b":{"c":"\n\"é😀"},"d":18446744073709551615}"#
                .utf8)
        #expect(throws: Never.self) { try readJSON(document) }
        for length in 0..<document.count {
            #expect(throws: PlistError.self) { try readJSON(Array(document.prefix(length))) }
        }
        var generator = SplitMix64(seed: 7)
        let interesting: [UInt8] =
            Array(#"{}[],:"\/u0123456789eE+-.tfn "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xFF]
        for _ in 0..<3000 {
            var mutated = document
            for _ in 0...(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(mutated.count))
                switch generator.next() % 3 {
                case 0: mutated[position] = interesting[Int(generator.next() % UInt64(interesting.count))]
                case 1: mutated.remove(at: position)
                default: mutated.insert(interesting[Int(generator.next() % UInt64(interesting.count))], at: position)
                }
            }
            do {
                _ = try readJSON(mutated)
            } catch let error as PlistError {
                guard case .text(let line, let column) = error.position else {
                    Issue.record("no line and column for \(error)")
                    continue
                }
                #expect(line >= 1 && column >= 1)
            }
        }
    }

    private static func randomValue(_ generator: inout SplitMix64, depth: Int) -> PlistValue {
        let kind = generator.next() % (depth < 4 ? 9 : 7)
        switch kind {
        case 0: return .integer(PlistInteger(Int64(bitPattern: generator.next())))
        case 1: return .integer(PlistInteger(generator.next()))
        case 2:
            let real = Double(bitPattern: generator.next())
            return .real(real.isFinite ? real : Double(generator.next() % 1000) / 8)
        case 3: return .bool(generator.next() % 2 == 0)
        case 4: return .null
        case 5, 6:
            let scalars = (0..<(generator.next() % 12)).compactMap { _ -> Unicode.Scalar? in
                let pick = generator.next()
                return switch pick % 4 {
                case 0: Unicode.Scalar(UInt32(truncatingIfNeeded: pick >> 8) % 0x80)
                case 1: Unicode.Scalar(UInt32(truncatingIfNeeded: pick >> 8) % 0x800)
                case 2: Unicode.Scalar(UInt32(truncatingIfNeeded: pick >> 8) % 0x10000)
                default: Unicode.Scalar(0x10000 + UInt32(truncatingIfNeeded: pick >> 8) % 0x100000)
                }
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 7:
            return .array((0..<(generator.next() % 5)).map { _ in randomValue(&generator, depth: depth + 1) })
        default:
            var entries: PlistDictionary = [:]
            for index in 0..<(generator.next() % 5) {
                entries["k\(index)\(generator.next() % 3 == 0 ? "é" : "")"] = randomValue(&generator, depth: depth + 1)
            }
            return .dictionary(entries)
        }
    }

    @Test func corpusValuesRoundTripOrAreRefused() throws {
        guard let corpus = try Corpus.load() else { try Test.cancel(Comment(rawValue: Corpus.absentMessage)) }
        var roundTripped = 0
        for file in corpus.files where file.expectation == .accept {
            guard let value = try file.expectedValue() else { continue }
            if Self.fitsJSON(value) {
                for pretty in [false, true] {
                    let json = try JSONPlistWriter.write(value, pretty: pretty)
                    #expect(try readJSON(json) == value, "\(file)")
                }
                roundTripped += 1
            } else {
                let error = try #require(throws: PlistError.self, "\(file)") {
                    try JSONPlistWriter.write(value, pretty: false)
                }
                #expect(error.code == .unrepresentable)
            }
        }
        #expect(roundTripped > 10)
    }

    private static func fitsJSON(_ value: PlistValue) -> Bool {
        switch value {
        case .date, .data, .uid: false
        case .real(let real): real.isFinite
        case .array(let elements): elements.allSatisfy(fitsJSON)
        case .dictionary(let entries): entries.values.allSatisfy(fitsJSON)
        case .string, .integer, .bool, .null: true
        }
    }

    // MARK: Cross-check with Python's json module

    /// The document `crossCheckScript` builds, as a plist value.
    private static let crossCheckValue: PlistValue = [
        "string": "plain", "escapes": "\"\\/\u{08}\u{0C}\n\r\t\u{0}\u{01}\u{1F}\u{7F}",
        "unicode": "é ✓ 😀 \u{10FFFF} \u{2028}",
        "keys": ["Z": 1, "a": 2, "ä": 3, "\u{FFFD}": 4, "😀": 5, "": 6],
        "ints": [
            0, -1, .integer(PlistInteger(Int64.max)), .integer(PlistInteger(Int64.min)),
            .integer(PlistInteger(UInt64.max)),
        ],
        "reals": [
            0.5, -0.0, 1e100, 1e-7, 0.1, 1e16, 123_456_789.0, .real(.leastNonzeroMagnitude),
            .real(.greatestFiniteMagnitude), 2.5e-5, 1.0,
        ],
        "bools": [true, false], "null": .null, "empty": ["a": [], "d": [:]], "nested": [[[["deep"]]]],
    ]

    private static let crossCheckScript = #"""
        import json, sys
        doc = {
            "string": "plain", "escapes": "\"\\/\b\f\n\r\t\x00\x01\x1f\x7f",
            "unicode": "\u00e9 \u2713 \U0001F600 \U0010FFFF \u2028",
            "keys": {"Z": 1, "a": 2, "\u00e4": 3, "\ufffd": 4, "\U0001F600": 5, "": 6},
            "ints": [0, -1, 9223372036854775807, -9223372036854775808, 18446744073709551615],
            "reals": [0.5, -0.0, 1e100, 1e-07, 0.1, 1e16, 123456789.0, 5e-324, 1.7976931348623157e308, 2.5e-05, 1.0],
            "bools": [True, False], "null": None, "empty": {"a": [], "d": {}}, "nested": [[[["deep"]]]],
        }
        canonical = lambda value: json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        mode = sys.argv[1]
        if mode == "dump":
            sys.stdout.write(json.dumps(doc, ensure_ascii=True, indent=1))
        elif mode == "canonical":
            sys.stdout.buffer.write(canonical(doc).encode("utf-8"))
        else:
            ours = json.loads(open(sys.argv[2], "rb").read().decode("utf-8"))
            sys.stdout.write("same" if canonical(ours) == canonical(doc) else "different: " + canonical(ours))
        """#

    @Test(.enabled(if: Python.executable != nil, "python3 is not installed"))
    func pythonAgrees() throws {
        let python = try #require(Python.executable)
        // We read what json.dumps writes (ASCII escapes, surrogate pairs, indentation).
        let dumped = try Python.run(python, script: Self.crossCheckScript, arguments: ["dump"])
        #expect(try readJSON(dumped) == Self.crossCheckValue)
        // Our compact form is byte for byte json.dumps with sorted keys and no spaces.
        let canonical = try Python.run(python, script: Self.crossCheckScript, arguments: ["canonical"])
        #expect(try JSONPlistWriter.write(Self.crossCheckValue, pretty: false) == canonical)
        // json.loads reads what we write, compact and pretty.
        for pretty in [false, true] {
            let ours = try JSONPlistWriter.write(Self.crossCheckValue, pretty: pretty)
            let verdict = try Python.run(python, script: Self.crossCheckScript, arguments: ["check"], input: ours)
            #expect(String(decoding: verdict, as: UTF8.self) == "same")
        }
    }
}

/// Runs python3 for cross-checks. Input and output go through files, not pipes: Foundation's
/// pipe reading traps when a read is interrupted by a signal.
private enum Python {
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Runs `script` with `arguments`; the script finds the input file's path in `sys.argv[2]`.
    static func run(_ executable: String, script: String, arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let directory = try TemporaryDirectory(prefix: "json-cross-check")
        let inputPath = directory.file("input.json")
        let outputPath = directory.file("output.json")
        try Data(input).write(to: URL(fileURLWithPath: inputPath))
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else { throw CocoaError(.fileWriteUnknown) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", script] + arguments + [inputPath]
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        try output.close()
        #expect(process.terminationStatus == 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: outputPath)))
    }
}

/// A small deterministic generator, so random cases are the same on every run.
private struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
