// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsPlist

private func decode(_ text: String) throws -> PlistValue {
    try Array(text.utf8).withUnsafeBytes { try XMLPlistReader.read($0, limits: .default) }
}

/// The error decoding `text` throws; records an issue when it decodes.
private func decodingError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> PlistError? {
    do {
        let value = try decode(text)
        Issue.record("expected an error, decoded \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as PlistError {
        return error
    } catch {
        Issue.record("threw \(type(of: error)), not PlistError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The reader's shortcuts (element ends told by node identity, blank text judged by the reader, keys moved
/// into dictionaries, the 128-bit real path, base64 by quads, the date digit check, the tag table) against
/// what the general paths give.
@Suite("XML reader: fast paths")
struct XMLPlistReaderFastPathTests {
    // MARK: Element boundaries

    @Test func elementsEndWhereTheyClose() throws {
        #expect(try decode("<array><array></array><array/><array><array></array></array></array>") == [[], [], [[]]])
        #expect(
            try decode("<dict><key>a</key><dict></dict><key>b</key><dict><key>a</key><dict/></dict></dict>")
                == ["a": [:], "b": ["a": [:]]])
    }

    @Test func scalarsEndWhereTheyClose() throws {
        #expect(
            try decode("<array><string>a</string><integer>1</integer><string></string><true></true></array>")
                == ["a", 1, "", true])
        #expect(
            try decode("<dict><key></key><string></string><key>k</key><array></array></dict>") == ["": "", "k": []])
        #expect(try decode("<plist><plist><array><plist><real>1.5</real></plist></array></plist></plist>") == [1.5])
    }

    @Test func unbalancedStructureIsStillRefused() throws {
        #expect(decodingError("<array><string>a</array>")?.message.contains("invalid XML") == true)
        #expect(decodingError("<dict><key>a</key></dict>")?.message.contains("the key \"a\" has no value") == true)
        #expect(decodingError("<array><true/></array><array/>") != nil)
    }

    // MARK: Blank text

    /// A carriage return makes libxml2 keep every blank text node, so the reader judges them itself.
    @Test func blanksBetweenElementsAreSkipped() throws {
        let text =
            "<plist>\r\n\t<dict>\r\n\t\t<key>a</key>\r\n\t\t<array> \t<true/>\r\n</array>\r\n\t</dict>\r\n</plist>\r\n"
        #expect(try decode(text) == ["a": [true]])
        #expect(try decode("<array>\r\n  <string> \r\n </string>\r\n</array>") == [" \n "])
    }

    @Test(arguments: [
        "<array>\r\n\u{00A0}<true/></array>", "<dict>x<key>a</key><true/></dict>", "<plist> y <true/></plist>",
        "<array>&#32;z</array>", "<array>\r\n<![CDATA[ ]]><true/></array>",
    ])
    func textOutsideValuesIsRefused(text: String) throws {
        let error = try #require(decodingError(text))
        #expect(error.message.contains("text outside a value element"), "\(error.message)")
    }

    // MARK: Keys and strings

    @Test func keysAreTheirText() throws {
        #expect(
            try decode("<dict><key>Grüße 🐍</key><true/><key>naïve</key><false/></dict>")
                == ["Grüße 🐍": true, "naïve": false])
        #expect(try decode("<dict><key>a&amp;b&#x41;&#66;&lt;</key><integer>1</integer></dict>") == ["a&bAB<": 1])
        #expect(try decode("<dict><key><![CDATA[<k>]]></key><string>v</string></dict>") == ["<k>": "v"])
        #expect(try decode("<dict><key>a<![CDATA[b]]>c</key><string>v</string></dict>") == ["abc": "v"])
        #expect(
            try decode("<dict><key>   </key><string>v</string><key>\n</key><string>w</string></dict>")
                == ["   ": "v", "\n": "w"])
        #expect(try decode("<dict><key></key><string>v</string><key/><string>w</string></dict>") == ["": "w"])
        let long = String(repeating: "long key ", count: 600)
        #expect(try decode("<dict><key>\(long)</key><true/></dict>") == .dictionary([long: true]))
    }

    @Test func stringsAreTheirText() throws {
        let cases = [
            ("", ""), (" ", " "), ("\t\n ", "\t\n "), ("é", "é"), ("short", "short"),
            ("a string longer than fifteen bytes", "a string longer than fifteen bytes"), ("&lt;&amp;&gt;", "<&>"),
        ]
        for (text, expected) in cases {
            #expect(try decode("<array><string>\(text)</string></array>") == [.string(expected)], "\(text)")
        }
    }

    @Test func repeatedKeysKeepTheLastValue() throws {
        var text = "<dict>"
        var expected: PlistDictionary = [:]
        var generator = XMLTestRandom(seed: 0xD1C7)
        for index in 0..<2000 {
            let key = "key number \(Int.random(in: 0..<700, using: &generator))"
            text += "<key>\(key)</key><integer>\(index)</integer>"
            expected[key] = .integer(PlistInteger(Int64(index)))
        }
        #expect(try decode(text + "</dict>") == .dictionary(expected))
    }

    @Test func uidNeedsItsOnlyKeyToBeCFUID() throws {
        #expect(try decode("<dict><key>CF$UID</key><integer>3</integer></dict>") == .uid(3))
        #expect(try decode("<dict><key>CF$UIDs</key><integer>3</integer></dict>") == ["CF$UIDs": 3])
        #expect(
            try decode("<dict><key>CF$UID</key><integer>3</integer><key>CF$UID</key><integer>4</integer></dict>")
                == ["CF$UID": 4])
        #expect(
            try decode("<array><dict><key>CF$UID</key><integer>0</integer></dict><true/></array>") == [.uid(0), true])
    }

    // MARK: Scalars

    @Test("reals of up to nineteen digits agree with strtod")
    func longRealsAreCorrectlyRounded() {
        var generator = XMLTestRandom(seed: 0xDEC1)
        var checked = 0
        for _ in 0..<30_000 {
            let digitCount = Int.random(in: 14...19, using: &generator)
            var digits = String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<digitCount { digits += String(Int.random(in: 0...9, using: &generator)) }
            let point = Int.random(in: 0...digitCount, using: &generator)
            let exponent = Int.random(in: -30...30, using: &generator)
            var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if Bool.random(using: &generator) { text += "e\(exponent)" }
            if Bool.random(using: &generator) { text = "-" + text }
            #expect(
                XMLPlistReader.ScalarParser.real(Array(text.utf8))?.bitPattern == Double(text)?.bitPattern, "\(text)")
            checked += 1
        }
        #expect(checked == 30_000)
    }

    @Test(arguments: [
        // Halfway between two doubles, either way of a tie, and just off one.
        "9007199254740993", "9007199254740995", "9007199254740993.0000001", "18014398509481987",
        "1.0000000000000001", "0.30000000000000004", "2.2250738585072014e-22", "4.9406564584124654e-27",
        "123456789012345678e-27", "9999999999999999999e27", "9999999999999999999e-27", "1e27", "1e-27", "5e-27",
        "0.000000000000000000000000001", "1000000000000000000000000000", "7450580596923828125e-27",
        "18446744073709551615", "1844674407370955161.5", "-0.0000000000000000000000000001e27",
    ])
    func realBoundaries(text: String) {
        #expect(XMLPlistReader.ScalarParser.real(Array(text.utf8))?.bitPattern == Double(text)?.bitPattern)
    }

    @Test func dataWithWhiteSpaceAnywhere() throws {
        var generator = XMLTestRandom(seed: 0xBA5E)
        for length in [0, 1, 2, 3, 4, 5, 31, 32, 33, 100, 3072, 5000, 9000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var text = ""
            for symbol in Base64.encode(bytes) {
                if UInt8.random(in: 0..<8, using: &generator) == 0 {
                    text += [" ", "\t", "\n", "\r\n"][Int(symbol) % 4]
                }
                text.unicodeScalars.append(Unicode.Scalar(symbol))
            }
            #expect(try decode("<data>\n\t\(text)\n\t</data>") == .data(bytes), "\(length) bytes")
        }
    }

    @Test(arguments: ["QUJD=QUJD", "QQ==QQ==", "QQ=x", "Q", "QUJDR", "QUJD!", "QU\u{00E9}J", "QUJDRA===A"])
    func badBase64IsRefused(text: String) throws {
        #expect(decodingError("<data>\(text)</data>")?.message.contains("base64") == true, "\(text)")
    }

    @Test func base64PaddingMayBeSpacedOrLeftOut() throws {
        #expect(try decode("<data>QUJDRA= =</data>") == .data(Array("ABCD".utf8)))
        #expect(try decode("<data>QUJDRA</data>") == .data(Array("ABCD".utf8)))
        #expect(try decode("<data>QUJD RE VG</data>") == .data(Array("ABCDEF".utf8)))
    }

    @Test(arguments: [
        "2024-0a-01T00:00:00Z", "2024-01-01T00:00:0/Z", "2024-01-01T00:00:0:Z", "2024-01-01T00:00:00z",
        "\u{FF12}024-01-01T00:00:00Z", "+024-01-01T00:00:00Z",
    ])
    func datesWithStrayCharactersAreRefused(text: String) throws {
        #expect(XMLPlistReader.ScalarParser.date(Array(text.utf8)) == PlistDate(iso8601: text))
        if PlistDate(iso8601: text) == nil {
            #expect(decodingError("<date>\(text)</date>") != nil)
        }
    }

    @Test func hexadecimalDigitsInEitherCase() throws {
        #expect(try decode("<integer>0xaBcDeF</integer>") == 11_259_375)
        #expect(try decode("<integer>-0XFf</integer>") == -255)
        for text in ["0x@", "0xG", "0x`", "0x:", "0xg", "12a", "0x/"] {
            #expect(decodingError("<integer>\(text)</integer>")?.message.contains("not an integer") == true, "\(text)")
        }
    }

    // MARK: Tags

    @Test(arguments: ["keys", "str", "dat", "datas", "Dict", "true2", "p", "plistx", "rea", "arra", "k", "inte"])
    func lookalikeTagsAreUnknown(name: String) throws {
        let error = try #require(decodingError("<array><\(name)/></array>"))
        #expect(error.message == "unknown tag <\(name)>")
    }

    @Test func everyTagIsRecognised() throws {
        let text = """
            <plist><dict><key>a</key><array><string>s</string><integer>1</integer><real>2</real><true/><false/>\
            <date>2001-01-01T00:00:00Z</date><data>AA==</data><dict/><array/></array></dict></plist>
            """
        let values: [PlistValue] = [
            "s", 1, 2.0, true, false, .date(PlistDate(secondsSinceReferenceDate: 0)), .data([0]), [:], [],
        ]
        #expect(try decode(text) == .dictionary(["a": .array(values)]))
    }
}
