// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsPlist

private func decode(_ text: String, limits: PlistLimits = .default) throws -> PlistValue {
    try decode(Array(text.utf8), limits: limits)
}

private func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
    try bytes.withUnsafeBytes { try XMLPlistReader.read($0, limits: limits) }
}

/// The error decoding `text` throws; records an issue when it decodes.
private func decodingError(
    _ text: String, limits: PlistLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
) -> PlistError? {
    do {
        let value = try decode(text, limits: limits)
        Issue.record("expected an error, decoded \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as PlistError {
        return error
    } catch {
        Issue.record("threw \(type(of: error)), not PlistError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

private enum XMLCorpus {
    static let corpus: Corpus? = try? Corpus.load()
    static var isPresent: Bool { corpus != nil }
    static let absent = Comment(rawValue: Corpus.absentMessage)

    static func xmlFiles(_ expectation: Corpus.Expectation) -> [Corpus.File] {
        (corpus?.files ?? []).filter { $0.relativePath.hasPrefix("xml/") && $0.expectation == expectation }
    }

    /// Files of `malformed/` that look like XML to the format sniffer.
    static func malformedXMLFiles(_ expectation: Corpus.Expectation) -> [Corpus.File] {
        (corpus?.files ?? []).filter { file in
            guard file.relativePath.hasPrefix("malformed/"), file.expectation == expectation,
                let bytes = try? file.bytes()
            else { return false }
            return bytes.withUnsafeBytes { PlistFormat.sniff($0) } == .xml
        }
    }
}

@Suite("XML reader: conformance corpus", .enabled(if: XMLCorpus.isPresent, XMLCorpus.absent))
struct XMLPlistReaderCorpusTests {
    @Test("accepted files decode to their expected value", arguments: XMLCorpus.xmlFiles(.accept))
    func acceptedFile(_ file: Corpus.File) throws {
        let value = try decode(try file.bytes())
        if let expected = try file.expectedValue() {
            #expect(value == expected)
        }
    }

    /// Implementation-defined here: UTF-16 and UTF-32 without a byte-order mark. The zero bytes give
    /// the encoding away, so this reader accepts them, as dd-plist does.
    @Test("BOM-less UTF-16/UTF-32 files are accepted", arguments: XMLCorpus.xmlFiles(.impl))
    func implementationDefinedFile(_ file: Corpus.File) throws {
        let value = try decode(try file.bytes())
        let expected = try #require(try file.expectedValue())
        #expect(value == expected)
    }

    @Test("rejected XML-looking files throw PlistError", arguments: XMLCorpus.malformedXMLFiles(.reject))
    func rejectedFile(_ file: Corpus.File) throws {
        #expect(throws: PlistError.self) { try decode(try file.bytes()) }
    }

    @Test("hostile XML-looking files finish quickly either way", arguments: XMLCorpus.malformedXMLFiles(.hostile))
    func hostileFile(_ file: Corpus.File) throws {
        let bytes = try file.bytes()
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            do {
                _ = try decode(bytes)
            } catch {
                #expect(error is PlistError)
            }
        }
        #expect(elapsed < .seconds(5))
    }

    @Test func corpusHasXMLFiles() {
        #expect(XMLCorpus.xmlFiles(.accept).count > 60)
        #expect(XMLCorpus.malformedXMLFiles(.reject).count > 30)
    }
}

@Suite("XML reader: CoreFoundation behaviours")
struct XMLPlistReaderBehaviourTests {
    @Test func bareRootsNeedNoPlistElement() throws {
        #expect(try decode("<string>a</string>") == "a")
        #expect(try decode("<integer>7</integer>") == 7)
        #expect(try decode("<array/>") == [])
        #expect(try decode("<dict/>") == [:])
        #expect(try decode("<plist version=\"1.0\"><true/></plist>") == true)
    }

    @Test func plistElementNestedInAValueWrapsItsValue() throws {
        #expect(try decode("<array><plist><string>a</string></plist></array>") == ["a"])
    }

    @Test func singleKeyCFUIDDictionaryIsAUID() throws {
        #expect(try decode("<dict><key>CF$UID</key><integer>7</integer></dict>") == .uid(7))
        #expect(try decode("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>") == .uid(.max))
        // Anything else stays a dictionary.
        #expect(try decode("<dict><key>CF$UID</key><integer>-1</integer></dict>") == ["CF$UID": -1])
        #expect(try decode("<dict><key>CF$UID</key><string>7</string></dict>") == ["CF$UID": "7"])
        #expect(
            try decode("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>")
                == ["CF$UID": 7, "x": true])
    }

    @Test(arguments: [
        (" +\t42", PlistInteger(42)), ("\t-   99", -99), (" -\t0xFACE", -64206), ("0x73709551615", 7_932_961_166_869),
        ("-0xFFFF", -65535), ("0XfF", 255), ("007", 7), ("-0", 0),
        ("9223372036854775807", PlistInteger(Int64.max)), ("-9223372036854775808", PlistInteger(Int64.min)),
        ("18446744073709551615", PlistInteger(UInt64.max)), ("0xFFFFFFFFFFFFFFFF", PlistInteger(UInt64.max)),
        ("-0x8000000000000000", PlistInteger(Int64.min)),
    ])
    func integerSpellings(text: String, expected: PlistInteger) throws {
        #expect(try decode("<integer>\(text)</integer>") == .integer(expected))
    }

    @Test(arguments: [
        "18446744073709551616", "-9223372036854775809", "0x10000000000000000", "42q", "4 2", "42 ", "0x", "",
        "- ", "+", "1.5", "0xG",
    ])
    func integerMistakes(text: String) throws {
        let error = try #require(decodingError("<array>\n <integer>\(text)</integer></array>"))
        #expect(error.code == .malformed)
        #expect(error.position == .text(line: 2, column: 2))
    }

    @Test func integerRangeErrorSaysSo() throws {
        let error = try #require(decodingError("<integer>18446744073709551616</integer>"))
        #expect(error.message.contains("out of range"))
    }

    @Test(arguments: [
        ("2", 2.0), ("  -3.14", -3.14), ("31415.9e-4", 3.14159), ("1.5E+3", 1500.0), (".5", 0.5), ("1.", 1.0),
        ("-iNf", -Double.infinity), ("infInItY", .infinity), ("+infinity", .infinity), ("-infinity", -.infinity),
        ("+inf", .infinity), ("inf", .infinity), ("3.1415926535897932384626433", 3.141592653589793),
        ("1e-300", 1e-300), ("4.9e-324", .leastNonzeroMagnitude), ("1.7976931348623157e308", 1.7976931348623157e308),
        ("2.2250738585072014e-308", 2.2250738585072014e-308), ("123456789012345678901234567890", 1.2345678901234568e29),
    ])
    func realSpellings(text: String, expected: Double) throws {
        #expect(try decode("<real>\(text)</real>") == .real(expected))
    }

    @Test func realNaNAndSignedZero() throws {
        for text in ["nan", "NAN", "nAn"] {
            guard case .real(let value) = try decode("<real>\(text)</real>") else {
                Issue.record("not a real")
                continue
            }
            #expect(value.isNaN)
        }
        #expect(try decode("<real>-0.0</real>") == .real(-0.0))
        #expect(try decode("<real>0</real>") == .real(0.0))
    }

    @Test(arguments: ["0x10", "notanumber", "infinite", "1.2.3", "1.e", "1.5  ", "", "1e", "+", ".", "0x1p3", "1,5"])
    func realMistakes(text: String) throws {
        let error = try #require(decodingError("<real>\(text)</real>"))
        #expect(error.code == .malformed)
    }

    @Test("the exact-decimal fast path agrees with the standard library")
    func realFastPathIsCorrectlyRounded() {
        var generator = XMLTestRandom(seed: 0x5EED)
        var checked = 0
        for round in 0..<20_000 {
            let double: Double
            switch round % 3 {
            case 0: double = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            case 1: double = Double(Int64(bitPattern: generator.next()) % 10_000_000_000) / 10_000
            default: double = Double(generator.next() % 1_000_000_000_000_000) * 1e-7
            }
            let text = double.description
            #expect(XMLPlistReader.ScalarParser.real(Array(text.utf8))?.bitPattern == double.bitPattern, "\(text)")
            checked += 1
        }
        for text in ["9007199254740993", "0.1", "1e22", "1e23", "123.456e-20", "8.9e15", "-0.000001"] {
            #expect(
                XMLPlistReader.ScalarParser.real(Array(text.utf8))?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
        #expect(checked == 20_000)
    }

    @Test func booleans() throws {
        #expect(try decode("<array><true/><false/><true></true></array>") == [true, false, true])
        #expect(decodingError("<true>yes</true>")?.message.contains("must be empty") == true)
        #expect(decodingError("<false> </false>") != nil)
    }

    @Test func stringsKeepTheirWhiteSpace() throws {
        #expect(try decode("<string>  a  </string>") == "  a  ")
        #expect(try decode("<string>   </string>") == "   ")
        #expect(try decode("<string>\n</string>") == "\n")
        #expect(try decode("<string/>") == "")
        #expect(try decode("<string></string>") == "")
        #expect(try decode("<string>a\r\nb\rc</string>") == "a\nb\nc")
        #expect(try decode("<string>a&#13;b</string>") == "a\rb")
    }

    @Test func whiteSpaceNextToCommentsAndCDATAIsKept() throws {
        #expect(try decode("<string>  <![CDATA[x]]>  </string>") == "  x  ")
        #expect(try decode("<string> <!-- c --> </string>") == "  ")
        #expect(try decode("<array><string> <?pi?>a</string></array>") == [" a"])
        #expect(try decode("<dict><key> <!--k--></key><string>v</string></dict>") == [" ": "v"])
        let longBlank = String(repeating: " ", count: 700)
        #expect(try decode("<string>\(longBlank)\r\n\(longBlank)</string>") == .string(longBlank + "\n" + longBlank))
        #expect(try decode("<dict>\r\n\t<key>a</key>\r\n\t<string> \r\n </string>\r\n</dict>") == ["a": " \n "])
    }

    @Test func commentsAndProcessingInstructionsAnywhere() throws {
        let text = """
            <?xml version="1.0"?><!-- before --><?pi before?>
            <plist><!-- in plist --><dict><!-- c --><key>a<!-- in key -->b</key><?pi?><!-- c -->
            <string>x<!-- in string -->y</string><!-- c --></dict><?pi?></plist><!-- after --><?pi after?>
            """
        #expect(try decode(text) == ["ab": "xy"])
    }

    @Test func characterDataAndReferences() throws {
        #expect(try decode("<string><![CDATA[<&>]]></string>") == "<&>")
        #expect(try decode("<string>a<![CDATA[b]]>c</string>") == "abc")
        #expect(try decode("<string>&amp;&apos;&lt;&gt;&quot;</string>") == "&'<>\"")
        #expect(try decode("<string>&#169;&#xA9;&#128664;</string>") == "©©🚘")
    }

    @Test func emptyKeysAndDuplicateKeys() throws {
        #expect(try decode("<dict><key/><string>a</string></dict>") == ["": "a"])
        #expect(try decode("<dict><key></key><string>b</string></dict>") == ["": "b"])
        #expect(
            try decode("<dict><key>k</key><integer>1</integer><key>k</key><integer>2</integer></dict>") == ["k": 2])
    }

    @Test func dates() throws {
        #expect(
            try decode("<date>2004-10-26T10:33:33Z</date>") == .date(PlistDate(secondsSinceReferenceDate: 120_479_613)))
        #expect(
            try decode("<date>2024-01-32T20:43:14Z</date>")
                == .date(try #require(PlistDate(iso8601: "2024-02-01T20:43:14Z"))))
        #expect(
            try decode("<date>0000-12-30T00:00:00Z</date>")
                == .date(PlistDate(secondsSinceReferenceDate: -63_114_076_800)))
        #expect(
            try decode("<date>2024-01-02</date>") == .date(try #require(PlistDate(iso8601: "2024-01-02T00:00:00Z"))))
        for text in ["", "yesterday", "2004-10-26 10:33:33", "2004-13-2x"] {
            #expect(decodingError("<date>\(text)</date>") != nil, "\(text)")
        }
    }

    /// The reader fuzz harness crashed on a 12-digit year (libFuzzer minimised the input to the first one below):
    /// its seconds overflowed Int64. Such a date decodes to the number of seconds it names, which has no calendar
    /// form, so the XML writer refuses it instead of printing a wrong year.
    @Test func aDateTooFarOutForInt64SecondsDecodes() throws {
        #expect(decodingError("<plist><date>999999999999-1-0</date><t>") != nil)
        let late = try decode("<date>999999999999-01-01T00:00:00Z</date>")
        guard case .date(let date) = late else {
            Issue.record("decoded \(late), not a date")
            return
        }
        #expect((3.1556e19...3.1557e19).contains(date.secondsSince1970))
        #expect(date.components == nil)
        #expect(throws: PlistError.self) { try PlistSerialization.encode(late, format: .xml) }
        guard case .date(let early) = try decode("<date>-999999999999-12-31T23:59:59Z</date>") else {
            Issue.record("a date with a negative 12-digit year did not decode as a date")
            return
        }
        #expect((-3.1557e19 ... -3.1556e19).contains(early.secondsSince1970))
    }

    @Test func canonicalDateFastPathMatchesPlistDate() throws {
        var generator = XMLTestRandom(seed: 7)
        for _ in 0..<2000 {
            let seconds = Double(Int64(bitPattern: generator.next()) % 100_000_000_000)
            let text = try #require(PlistDate(secondsSinceReferenceDate: seconds).iso8601String)
            #expect(XMLPlistReader.ScalarParser.date(Array(text.utf8)) == PlistDate(iso8601: text), "\(text)")
        }
    }

    @Test func data() throws {
        #expect(try decode("<data>\n\tPGJpbmFyeSBndW5rPg==\n\t</data>") == .data(Array("<binary gunk>".utf8)))
        #expect(try decode("<data>PGJp bmFy\teSBn dW5r Pg</data>") == .data(Array("<binary gunk>".utf8)))
        #expect(try decode("<data></data>") == .data([]))
        #expect(decodingError("<data>!!!!</data>")?.message.contains("base64") == true)
        #expect(decodingError("<data/>") != nil)
    }

    @Test func attributesAreIgnored() throws {
        #expect(try decode("<plist version=\"9\"><string lang=\"en\">x</string></plist>") == "x")
    }

    @Test(arguments: [
        ("<array><foo/></array>", "unknown tag <foo>", 1, 8),
        ("<array>\n  junk\n</array>", "text outside a value element", 2, 3),
        ("<plist><true/><false/></plist>", "<plist> holds more than one value", 1, 15),
        ("<plist></plist>", "empty <plist>", 1, 1),
        ("<plist/>", "empty <plist>", 1, 1),
        ("<dict>\n<key>a</key>\n</dict>", "the key \"a\" has no value", 2, 1),
        ("<dict><key>a</key><key>b</key><true/></dict>", "the key \"a\" has no value", 1, 7),
        ("<dict><string>a</string></dict>", "expected a <key> in <dict>, found <string>", 1, 7),
        ("<array><key>a</key></array>", "<key> outside a dictionary", 1, 8),
        ("<key>a</key>", "<key> outside a dictionary", 1, 1),
        ("<string><string>a</string></string>", "<string> is not allowed inside <string>", 1, 9),
        ("<integer/>", "empty <integer/>", 1, 1),
        ("<x:string xmlns:x=\"u\">a</x:string>", "unknown tag <x:string>", 1, 1),
    ])
    func plistStructureErrors(text: String, message: String, line: Int, column: Int) throws {
        let error = try #require(decodingError(text))
        #expect(error.code == .malformed)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.position == .text(line: line, column: column))
    }

    @Test(arguments: [
        "<string>a</strin>", "<array><string>a</string>", "<string>a</string><string>b</string>",
        "<string>a</string> junk", "", "   ", "<array", "<string>&amp</string>", "<string>&#12866411;</string>",
        "<array><!-- x", "<!foobar plist><string/>",
    ])
    func xmlErrors(text: String) throws {
        let error = try #require(decodingError(text))
        #expect(error.code == .malformed)
        guard case .text(let line, let column)? = error.position else {
            Issue.record("no line and column: \(error)")
            return
        }
        #expect(line >= 1 && column >= 1)
    }

    @Test func xmlErrorNamesLineAndColumn() throws {
        let error = try #require(decodingError("<dict>\n  <key>a</key>\n  <string>b</strin>\n</dict>"))
        #expect(error.message.contains("mismatch"))
        #expect(error.position == .text(line: 3, column: 20))
    }
}

@Suite("XML reader: encodings")
struct XMLPlistReaderEncodingTests {
    private static let document =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><array><string>Mäßig 🐍 ✓</string>"
        + "<integer>1</integer></array></plist>"
    private static let expected: PlistValue = ["Mäßig 🐍 ✓", 1]

    private static func utf16(bigEndian: Bool, bom: Bool) -> [UInt8] {
        var bytes: [UInt8] = bom ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
        for unit in document.utf16 {
            let pair = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            bytes += bigEndian ? pair : pair.reversed()
        }
        return bytes
    }

    private static func utf32(bigEndian: Bool, bom: Bool) -> [UInt8] {
        var bytes: [UInt8] = bom ? (bigEndian ? [0, 0, 0xFE, 0xFF] : [0xFF, 0xFE, 0, 0]) : []
        for scalar in document.unicodeScalars {
            let value = scalar.value
            let quad = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            bytes += bigEndian ? quad : quad.reversed()
        }
        return bytes
    }

    @Test(arguments: [true, false])
    func wideEncodings(bom: Bool) throws {
        #expect(try decode(Self.utf16(bigEndian: true, bom: bom)) == Self.expected)
        #expect(try decode(Self.utf16(bigEndian: false, bom: bom)) == Self.expected)
        #expect(try decode(Self.utf32(bigEndian: true, bom: bom)) == Self.expected)
        #expect(try decode(Self.utf32(bigEndian: false, bom: bom)) == Self.expected)
    }

    @Test func utf8WithByteOrderMark() throws {
        #expect(try decode([0xEF, 0xBB, 0xBF] + Array(Self.document.utf8)) == Self.expected)
    }

    @Test func declaredLatin1IsHonoured() throws {
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><string>caf".utf8) + [0xE9]
            + Array("</string>".utf8)
        #expect(try decode(bytes) == "café")
    }

    @Test func invalidUTF16IsAnEncodingError() throws {
        // "<a" then a lone high surrogate.
        let bytes: [UInt8] = [0xFF, 0xFE, 0x3C, 0x00, 0x61, 0x00, 0x00, 0xD8, 0x3E, 0x00]
        do {
            _ = try decode(bytes)
            Issue.record("decoded invalid UTF-16")
        } catch let error as PlistError {
            #expect(error.code == .invalidEncoding)
            #expect(error.position == .byteOffset(6))
        }
    }

    @Test func invalidUTF8IsRejected() throws {
        let bytes = Array("<string>a".utf8) + [0xFF, 0xFE] + Array("</string>".utf8)
        #expect(throws: PlistError.self) { try decode(bytes) }
    }
}

@Suite("XML reader: limits and hostile input")
struct XMLPlistReaderSafetyTests {
    private static func nested(_ depth: Int) -> String {
        String(repeating: "<array>", count: depth) + "<true/>" + String(repeating: "</array>", count: depth)
    }

    @Test func depthLimit() throws {
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 3, maxObjectCount: 100)
        #expect(try decode(Self.nested(3), limits: limits).depth == 3)
        let error = try #require(decodingError(Self.nested(4), limits: limits))
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("depth limit of 3"))
        #expect(error.position == .text(line: 1, column: 22))
    }

    @Test func objectCountLimit() throws {
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 10, maxObjectCount: 5)
        let four = "<array><true/><true/><true/><true/></array>"
        #expect(try decode(four, limits: limits) == [true, true, true, true])
        let error = try #require(decodingError("<array><true/><true/><true/><true/><true/></array>", limits: limits))
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("object count limit of 5"))
    }

    @Test func inputSizeLimit() throws {
        let limits = PlistLimits(maxInputBytes: 10, maxDepth: 10, maxObjectCount: 10)
        let error = try #require(decodingError("<string>abcdef</string>", limits: limits))
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("input size limit of 10 bytes"))
    }

    @Test("libxml2's own nesting limit (256 elements) is reported as a limit")
    func libxml2NestingLimit() throws {
        #expect(try decode(Self.nested(200)).depth == 200)
        let error = try #require(decodingError(Self.nested(300)))
        #expect(error.code == .limitExceeded)
    }

    @Test func externalEntityFileIsNeverRead() throws {
        let directory = try TemporaryDirectory(prefix: "xml-entity")
        let secret = "TOP-SECRET-\(UInt64.random(in: 0...UInt64.max))"
        let secretPath = directory.file("secret.txt")
        try Data(secret.utf8).write(to: URL(fileURLWithPath: secretPath))
        let dtdPath = directory.file("evil.dtd")
        try Data("<!ENTITY leak SYSTEM \"file://\(secretPath)\">".utf8).write(to: URL(fileURLWithPath: dtdPath))
        let documents = [
            // A general external entity.
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file://\(secretPath)\">]><plist><string>&xxe;</string></plist>",
            // A parameter entity pulling in a DTD that declares one.
            "<!DOCTYPE plist [<!ENTITY % dtd SYSTEM \"file://\(dtdPath)\"> %dtd;]>"
                + "<plist><string>&leak;</string></plist>",
            // An external DTD subset.
            "<!DOCTYPE plist SYSTEM \"file://\(dtdPath)\"><plist><string>&leak;</string></plist>",
            // The entity used where text is not expected.
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file://\(secretPath)\">]><plist><array>&xxe;</array></plist>",
        ]
        for document in documents {
            do {
                let value = try decode(document)
                Issue.record("decoded \(value)")
                #expect(!"\(value)".contains(secret))
            } catch {
                let error = try #require(error as? PlistError)
                #expect(!error.description.contains(secret))
            }
        }
    }

    @Test func billionLaughsFailsFast() throws {
        var document = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            document += " <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        document += "]>\n<plist><string>&lol9;</string></plist>"
        let clock = ContinuousClock()
        var error: PlistError?
        let elapsed = clock.measure { error = decodingError(document) }
        // Expanding it would take hours; the bound only has to tell that from failing at once on a loaded machine.
        #expect(elapsed < .seconds(30))
        #expect(error?.code == .malformed)
    }

    @Test(
        "a DOCTYPE with an internal subset is refused, as CoreFoundation refuses inline DTDs",
        arguments: [
            "<!DOCTYPE plist [<!ENTITY e \"x\">]>\n<plist><string>&e;</string></plist>",
            "<!DOCTYPE plist [<!ELEMENT foo (#PCDATA)>]>\n<plist><string>x</string></plist>",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [<!ATTLIST plist version CDATA \"1.0\">]><plist><true/></plist>",
        ])
    func internalSubsetIsRefused(document: String) throws {
        let error = try #require(decodingError(document))
        #expect(error.message.contains("DOCTYPE"), "\(error)")
        #expect(error.position == .text(line: document.hasPrefix("<?xml") ? 2 : 1, column: 1))
    }

    @Test func undeclaredEntityIsRejected() throws {
        let document = """
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist><string>a&nbsp;b</string></plist>
            """
        let error = try #require(decodingError(document))
        #expect(error.message.contains("nbsp"))
    }

    @Test("errors reach the caller, not standard error")
    func nothingIsPrintedToStandardError() throws {
        let directory = try TemporaryDirectory(prefix: "xml-stderr")
        let capturePath = directory.file("stderr.txt")
        let capture = open(capturePath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(capture >= 0)
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        dup2(capture, STDERR_FILENO)
        let error = decodingError("<plist><string>a</strung-unique-9431></plist>")
        let warning = try? decode("<array xmlns=\"relative-uri-unique-9431\"><true/></array>")
        fflush(nil)
        dup2(saved, STDERR_FILENO)
        close(saved)
        close(capture)
        #expect(error?.message.contains("strung-unique-9431") == true)
        #expect(warning == [true])
        let captured = try String(contentsOfFile: capturePath, encoding: .utf8)
        #expect(!captured.contains("unique-9431"))
    }

    @Test("readers on many threads keep their errors apart")
    func concurrentReadersKeepTheirErrors() async throws {
        let messages = await withTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<32 {
                group.addTask {
                    let text =
                        index.isMultiple(of: 2)
                        ? "<array><string>\(index)</wrong\(index)></array>"
                        : "<array><integer>\(index)x</integer></array>"
                    do {
                        _ = try decode(text)
                        return (index, nil)
                    } catch {
                        return (index, (error as? PlistError)?.message)
                    }
                }
            }
            var results: [Int: String] = [:]
            for await (index, message) in group { results[index] = message ?? "decoded without an error" }
            return results
        }
        #expect(messages.count == 32)
        for (index, message) in messages {
            let expected = index.isMultiple(of: 2) ? "wrong\(index)" : "\"\(index)x\""
            #expect(message.contains(expected), "\(index): \(message)")
        }
    }
}

/// A small deterministic generator, so test inputs are the same on every run.
struct XMLTestRandom: RandomNumberGenerator {
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
