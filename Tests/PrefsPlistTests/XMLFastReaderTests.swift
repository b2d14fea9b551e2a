// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsPlist

/// What reading a document gives: a value, or an error's code, message and position.
enum XMLReadOutcome: Equatable, CustomStringConvertible {
    case value(PlistValue)
    case failure(code: PlistError.Code, message: String, position: PlistError.Position?)

    /// The outcome of the XML reader, with or without its fast path.
    init(_ bytes: [UInt8], usingFastPath: Bool, limits: PlistLimits = .default) {
        do {
            let value = try bytes.withUnsafeBytes {
                try XMLPlistReader.read($0, limits: limits, usingFastPath: usingFastPath)
            }
            self = .value(value)
        } catch let error as PlistError {
            self = .failure(code: error.code, message: error.message, position: error.position)
        } catch {
            self = .failure(code: .malformed, message: "not a PlistError: \(error)", position: nil)
        }
    }

    var description: String {
        switch self {
        case .value(let value): "value \(value)"
        case .failure(let code, let message, let position):
            "\(code) error \"\(message)\" at \(String(describing: position))"
        }
    }
}

/// The fast path's value, or `nil` when it leaves the document to libxml2.
func fastPathValue(_ bytes: [UInt8], limits: PlistLimits = .default) -> PlistValue? {
    bytes.withUnsafeBytes { XMLPlistReader.readWithFastPath($0, limits: limits) }
}

/// One document of a parameterised test, named for the report.
struct XMLCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]

    init(_ name: String, _ text: String) {
        self.name = name
        bytes = Array(text.utf8)
    }

    init(_ name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    var testDescription: String { name }
}

private let header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
private let doctype =
    "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"

/// The text of these Unicode scalars.
private func scalars(_ values: UInt32...) -> String {
    String(String.UnicodeScalarView(values.compactMap(Unicode.Scalar.init)))
}

/// A document of `body` inside `<plist version="1.0">`, with the usual declaration and DOCTYPE.
private func plist(_ body: String) -> String {
    header + doctype + "<plist version=\"1.0\">\n" + body + "\n</plist>\n"
}

/// The Swift tokenizer against libxml2: every construct it reads gives libxml2's value, and everything else is left
/// to libxml2, so that the reader's result (value or error, message and position) is exactly libxml2's.
@Suite("XML reader: the fast path")
struct XMLFastReaderTests {
    // MARK: What the fast path reads

    static let readConstructs: [XMLCase] = [
        // The declaration.
        XMLCase("no declaration", "<plist version=\"1.0\"><string>a</string></plist>"),
        XMLCase("version only", "<?xml version=\"1.0\"?><plist><true/></plist>"),
        XMLCase("encoding UTF-8", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist><true/></plist>"),
        XMLCase("encoding utf-8", "<?xml version=\"1.0\" encoding=\"utf-8\"?><plist><true/></plist>"),
        XMLCase("single quotes", "<?xml version='1.0' encoding='UTF-8' standalone='no'?><plist><true/></plist>"),
        XMLCase("standalone yes", "<?xml version=\"1.0\" standalone=\"yes\"?><plist><true/></plist>"),
        XMLCase(
            "spaces everywhere", "<?xml \t version = \"1.0\"\n encoding\r\n=\"UTF-8\"   standalone = 'yes' ?>\n<true/>"),
        XMLCase("declaration after a byte-order mark", "\u{FEFF}" + header + "<plist><string>é</string></plist>"),
        XMLCase("byte-order mark without declaration", "\u{FEFF}<plist><string>é</string></plist>"),
        // The DOCTYPE.
        XMLCase("Apple's DOCTYPE", plist("<dict/>")),
        XMLCase("SYSTEM only", "<!DOCTYPE plist SYSTEM \"file.dtd\"><plist><false/></plist>"),
        XMLCase("name only", "<!DOCTYPE plist><plist><false/></plist>"),
        XMLCase("single-quoted literals", "<!DOCTYPE plist PUBLIC '-//Apple//DTD PLIST 1.0//EN' 'x.dtd' ><array/>"),
        XMLCase("DOCTYPE between comments", "<!-- a --><!DOCTYPE plist><!-- b --><array/>"),
        XMLCase("another root name", "<!DOCTYPE whatever PUBLIC \"x\" \"y\"><array/>"),
        // Comments and processing instructions.
        XMLCase(
            "comments around", "<!-- before -->\n<plist><!-- in --><true/><!-- after value --></plist>\n<!-- end -->"),
        XMLCase("comment splitting text", "<plist><string>ab<!-- x -->cd</string></plist>"),
        XMLCase("empty comment", "<plist><!----><string><!---->x</string></plist>"),
        XMLCase("dashes in a comment", "<plist><!-- a-b - c ->  --><true/></plist>"),
        XMLCase("non-ASCII comment", "<plist><!-- żółw 🐢 --><true/></plist>"),
        XMLCase("comment in true", "<plist><true><!-- x --></true></plist>"),
        XMLCase("processing instructions", "<?app data?>\n<plist><?app?><string>a<?x y z?>b</string></plist><?end ?>"),
        XMLCase("processing instruction before the DOCTYPE", "<?xml version=\"1.0\"?><?p q?><!DOCTYPE plist><true/>"),
        // Elements and attributes.
        XMLCase(
            "attributes",
            "<plist version=\"1.0\"><dict a='1' b=\"2\"><key x='>'>k</key><string z=\"é\">v</string></dict></plist>"),
        XMLCase("space around the equals sign", "<plist version = \"1.0\" ><array\tc\n=\n'd'/></plist>"),
        XMLCase("empty elements", "<plist><array><true/><false /><string/><dict/><array\n/></array></plist>"),
        XMLCase("empty key", "<plist><dict><key/><string>x</string></dict></plist>"),
        XMLCase("space before the end tag's >", "<plist ><string >a</string ></plist\n>"),
        XMLCase("bare root", "<dict><key>a</key><integer>1</integer></dict>"),
        XMLCase("plist in plist", "<plist><array><plist><string>a</string></plist></array></plist>"),
        XMLCase(
            "every type",
            plist(
                "<dict><key>a</key><array><integer>-5</integer><integer> 0x1F</integer><real>2.5</real><real>nan</real>"
                    + "<date>2004-10-26T10:33:33Z</date><data>\n\tAAEC\n\t/w==\n</data><true/><false/></array>"
                    + "<key>u</key><dict><key>CF$UID</key><integer>3</integer></dict></dict>")),
        XMLCase("duplicate keys", "<dict><key>a</key><string>1</string><key>a</key><string>2</string></dict>"),
        XMLCase(
            "200 levels of arrays", String(repeating: "<array>", count: 200) + String(repeating: "</array>", count: 200)
        ),
        // Text.
        XMLCase("predefined entities", "<plist><string>&lt;&gt;&amp;&apos;&quot;</string></plist>"),
        XMLCase("entities in a key", "<dict><key>a&amp;b</key><string>x&lt;y</string></dict>"),
        XMLCase(
            "character references",
            "<plist><string>&#65;&#x42;&#x0043;&#0068;&#xe9;&#xE9;&#x1F600;&#10;</string></plist>"),
        XMLCase("carriage return by reference", "<plist><string>a&#13;b&#xD;</string></plist>"),
        XMLCase("eight-digit references", "<plist><string>&#00000065;&#x0000004A;</string></plist>"),
        XMLCase("brackets in text", "<plist><string>] ]] ]]] a]b >]]</string></plist>"),
        XMLCase("blank text in a value", "<plist><string> \t\n </string></plist>"),
        XMLCase("integer with space", "<plist><array><integer>\n 42</integer><real> 1e3</real></array></plist>"),
        // Line ends.
        XMLCase("CR LF in text", "<plist><string>a\r\nb\r\n</string></plist>"),
        XMLCase("lone CR in text", "<plist><string>a\rb\r</string></plist>"),
        XMLCase("CR CR LF", "<plist><string>a\r\r\nb</string></plist>"),
        XMLCase(
            "CR LF between elements",
            "<?xml version=\"1.0\"?>\r\n<plist>\r\n<dict>\r\n\t<key>k</key>\r\n\t<true/>\r\n</dict>\r\n</plist>\r\n"),
        XMLCase("CR in data", "<plist><data>AA\r\nEC\r</data></plist>"),
        // CDATA sections.
        XMLCase("CDATA", "<plist><string><![CDATA[<a> & b]]></string></plist>"),
        XMLCase("empty CDATA", "<plist><string><![CDATA[]]></string></plist>"),
        XMLCase("CDATA and text", "<plist><string>x<![CDATA[y]]>z<![CDATA[]]]>w</string></plist>"),
        XMLCase("CDATA with line ends", "<plist><string><![CDATA[a\r\nb\rc\n]]></string></plist>"),
        XMLCase("CDATA in a key", "<dict><key><![CDATA[k&]]></key><true/></dict>"),
        XMLCase("CDATA integer", "<plist><integer><![CDATA[12]]></integer></plist>"),
        // UTF-8.
        XMLCase("two, three and four bytes", "<dict><key>é€😀</key><string>ßü漢字🇫🇷</string></dict>"),
        XMLCase(
            "edges of Char",
            "<plist><string>" + scalars(0x7F, 0x80, 0x9F, 0xD7FF, 0xE000, 0xFDD0, 0xFFFD, 0x10000, 0x10FFFF)
                + "</string></plist>"),
        XMLCase("tab", "<plist><string>\ta\t</string></plist>"),
    ]

    @Test("reads the construct as libxml2 does", arguments: readConstructs)
    func readsAsLibXML2(_ document: XMLCase) throws {
        let fast = try #require(fastPathValue(document.bytes), "the fast path declined \(document.name)")
        #expect(XMLReadOutcome(document.bytes, usingFastPath: false) == .value(fast))
        #expect(XMLReadOutcome(document.bytes, usingFastPath: true) == .value(fast))
    }

    @Test func readsTheValuesItShould() throws {
        #expect(fastPathValue(Array("<plist><string>a\r\nb\rc</string></plist>".utf8)) == "a\nb\nc")
        #expect(fastPathValue(Array("<plist><string>&#13;</string></plist>".utf8)) == "\r")
        #expect(fastPathValue(Array("<plist><string>x<![CDATA[<&>]]>y</string></plist>".utf8)) == "x<&>y")
        #expect(fastPathValue(Array("<plist><string>&#x1F600;</string></plist>".utf8)) == "😀")
        #expect(fastPathValue(Array("<plist><true/></plist>".utf8)) == true)
    }

    // MARK: What it leaves to libxml2

    /// Documents libxml2 refuses: the fast path must leave every one to it, so that the error is libxml2's.
    static let refused: [XMLCase] = [
        XMLCase("empty", ""),
        XMLCase("blank", " \n"),
        XMLCase("no version", "<?xml encoding=\"UTF-8\"?><plist/>"),
        XMLCase("version 2.0", "<?xml version=\"2.0\"?><plist><true/></plist>"),
        XMLCase("declaration not first", " <?xml version=\"1.0\"?><plist><true/></plist>"),
        XMLCase("declaration without space", "<?xml version=\"1.0\"encoding=\"UTF-8\"?><plist><true/></plist>"),
        XMLCase(
            "declaration in the wrong order", "<?xml version=\"1.0\" standalone=\"yes\" encoding=\"UTF-8\"?><true/>"),
        XMLCase("standalone maybe", "<?xml version=\"1.0\" standalone=\"maybe\"?><true/>"),
        XMLCase("unknown encoding", "<?xml version=\"1.0\" encoding=\"no-such\"?><true/>"),
        XMLCase("unterminated declaration", "<?xml version=\"1.0\" <true/>"),
        XMLCase("declaration again", "<?xml version=\"1.0\"?><?xml version=\"1.0\"?><true/>"),
        XMLCase("DOCTYPE without a name", "<!DOCTYPE><true/>"),
        XMLCase("DOCTYPE twice", "<!DOCTYPE plist><!DOCTYPE plist><true/>"),
        XMLCase("DOCTYPE after the root", "<true/><!DOCTYPE plist>"),
        XMLCase("PUBLIC without a system literal", "<!DOCTYPE plist PUBLIC \"x\"><true/>"),
        XMLCase("bad public identifier", "<!DOCTYPE plist PUBLIC \"a{b\" \"c\"><true/>"),
        XMLCase("unterminated literal", "<!DOCTYPE plist SYSTEM \"x><true/>"),
        XMLCase("internal subset with an entity", "<!DOCTYPE plist [<!ENTITY e \"x\">]><string>&e;</string>"),
        XMLCase("undeclared entity", plist("<string>&nbsp;</string>")),
        XMLCase("entity without a semicolon", "<plist><string>&lt</string></plist>"),
        XMLCase("empty character reference", "<plist><string>&#;</string></plist>"),
        XMLCase("empty hex reference", "<plist><string>&#x;</string></plist>"),
        XMLCase("reference to NUL", "<plist><string>&#0;</string></plist>"),
        XMLCase("reference to a control character", "<plist><string>&#1;</string></plist>"),
        XMLCase("reference to a surrogate", "<plist><string>&#xD800;</string></plist>"),
        XMLCase("reference to U+FFFE", "<plist><string>&#xFFFE;</string></plist>"),
        XMLCase("reference past U+10FFFF", "<plist><string>&#x110000;</string></plist>"),
        XMLCase("huge reference", "<plist><string>&#99999999999999999999;</string></plist>"),
        XMLCase("huge hex reference", "<plist><string>&#xFFFFFFFFFFFF;</string></plist>"),
        XMLCase("capital X reference", "<plist><string>&#X41;</string></plist>"),
        XMLCase("unclosed element", "<plist><string>a</plist>"),
        XMLCase("mismatched end tag", "<plist><string>a</strin></plist>"),
        XMLCase("end tag with more", "<plist><string>a</string x></plist>"),
        XMLCase("end tag that goes on", "<plist><string>a</stringy></plist>"),
        XMLCase("truncated", plist("<dict><key>a</key><string>b</str")),
        XMLCase("missing >", "<plist><string a=\"1\"</string></plist>"),
        XMLCase("attribute without a value", "<plist version><true/></plist>"),
        XMLCase("attribute without quotes", "<plist version=1.0><true/></plist>"),
        XMLCase("duplicate attribute", "<plist a=\"1\" a=\"2\"><true/></plist>"),
        XMLCase("attributes without space", "<plist a=\"1\"b=\"2\"><true/></plist>"),
        XMLCase("< in an attribute", "<plist a=\"<\"><true/></plist>"),
        XMLCase("bad reference in an attribute", "<plist a=\"&x;\"><true/></plist>"),
        XMLCase("empty namespace prefix", "<plist xmlns:x=\"\"><true/></plist>"),
        XMLCase("undeclared prefix", "<plist><x:string>a</x:string></plist>"),
        XMLCase("unknown element", "<plist><strong>a</strong></plist>"),
        XMLCase("capitalised element", "<plist><String>a</String></plist>"),
        XMLCase("element in a value", "<plist><string><true/></string></plist>"),
        XMLCase("text outside a value", "<plist>hello<true/></plist>"),
        XMLCase("reference outside a value", "<plist>&amp;<true/></plist>"),
        XMLCase("CDATA outside a value", "<plist><![CDATA[ ]]><true/></plist>"),
        XMLCase("]]> in text", "<plist><string>a]]>b</string></plist>"),
        XMLCase("double hyphen in a comment", "<plist><!-- a -- b --><true/></plist>"),
        XMLCase("comment ending with a hyphen", "<plist><!-- a ---><true/></plist>"),
        XMLCase("unterminated comment", "<plist><!-- a <true/></plist>"),
        XMLCase("processing instruction named xml", "<plist><?xml x?><true/></plist>"),
        XMLCase("processing instruction without space", "<plist><?target\"x\"?><true/></plist>"),
        XMLCase("processing instruction with a colon", "<plist><?a:b?><true/></plist>"),
        XMLCase("unterminated CDATA", "<plist><string><![CDATA[abc</string></plist>"),
        XMLCase("text after the root", "<plist><true/></plist>x"),
        XMLCase("two roots", "<true/><false/>"),
        XMLCase("NUL byte", "<plist><string>a\u{0}b</string></plist>"),
        XMLCase("control character", "<plist><string>a\u{1}b</string></plist>"),
        XMLCase("control character in a comment", "<plist><!-- \u{1B} --><true/></plist>"),
        XMLCase(
            "lone continuation byte", bytes: Array("<plist><string>a".utf8) + [0x80] + Array("</string></plist>".utf8)),
        XMLCase("overlong NUL", bytes: Array("<plist><string>".utf8) + [0xC0, 0x80] + Array("</string></plist>".utf8)),
        XMLCase(
            "overlong three bytes",
            bytes: Array("<plist><string>".utf8) + [0xE0, 0x80, 0xAF] + Array("</string></plist>".utf8)),
        XMLCase(
            "encoded surrogate",
            bytes: Array("<plist><string>".utf8) + [0xED, 0xA0, 0x80] + Array("</string></plist>".utf8)),
        XMLCase("U+FFFE", bytes: Array("<plist><string>".utf8) + [0xEF, 0xBF, 0xBE] + Array("</string></plist>".utf8)),
        XMLCase(
            "U+FFFF in a key",
            bytes: Array("<dict><key>".utf8) + [0xEF, 0xBF, 0xBF] + Array("</key><true/></dict>".utf8)),
        XMLCase(
            "past U+10FFFF",
            bytes: Array("<plist><string>".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("</string></plist>".utf8)),
        XMLCase(
            "F5 lead byte",
            bytes: Array("<plist><string>".utf8) + [0xF5, 0x80, 0x80, 0x80] + Array("</string></plist>".utf8)),
        XMLCase(
            "truncated sequence", bytes: Array("<plist><string>".utf8) + [0xE2, 0x82] + Array("</string></plist>".utf8)),
        XMLCase(
            "invalid UTF-8 in an attribute",
            bytes: Array("<plist a=\"".utf8) + [0xFF] + Array("\"><true/></plist>".utf8)),
        XMLCase(
            "300 levels of elements",
            String(repeating: "<plist>", count: 300) + "<true/>" + String(repeating: "</plist>", count: 300)),
        // Plist rules: the builder refuses these, and the fast path leaves them to libxml2 for its positions.
        XMLCase("key without a value", "<dict><key>a</key></dict>"),
        XMLCase("value without a key", "<dict><string>a</string></dict>"),
        XMLCase("two values in plist", "<plist><true/><false/></plist>"),
        XMLCase("empty plist", "<plist></plist>"),
        XMLCase("text in true", "<plist><true>yes</true></plist>"),
        XMLCase("CDATA in false", "<plist><false><![CDATA[]]></false></plist>"),
        XMLCase("empty integer", "<plist><integer/></plist>"),
        XMLCase("bad integer", "<plist><integer>12a</integer></plist>"),
        XMLCase("bad real", "<plist><real>1.5 </real></plist>"),
        XMLCase("bad date", "<plist><date>yesterday</date></plist>"),
        XMLCase("bad data", "<plist><data>!!!</data></plist>"),
        XMLCase("key outside a dictionary", "<plist><key>a</key></plist>"),
    ]

    @Test("leaves a document libxml2 refuses to it, with its error", arguments: refused)
    func leavesRefusedDocumentsToLibXML2(_ document: XMLCase) {
        #expect(fastPathValue(document.bytes) == nil)
        let libxml2 = XMLReadOutcome(document.bytes, usingFastPath: false)
        guard case .failure = libxml2 else {
            Issue.record("libxml2 accepts \(document.name): \(libxml2)")
            return
        }
        #expect(XMLReadOutcome(document.bytes, usingFastPath: true) == libxml2)
    }

    /// Documents libxml2 accepts that the fast path does not read: libxml2 reads them as before.
    static let leftToLibXML2: [XMLCase] = [
        XMLCase(
            "another spelling of UTF-8", "<?xml version=\"1.0\" encoding=\"Utf-8\"?><plist><string>é</string></plist>"),
        XMLCase(
            "ISO-8859-1",
            bytes: Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>".utf8) + [0xE9]
                + Array("</string></plist>".utf8)),
        XMLCase(
            "UTF-16 declared after a UTF-8 byte-order mark",
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-16\"?><true/>"),
        XMLCase(
            "UTF-16 with a byte-order mark",
            bytes: [0xFF, 0xFE]
                + "<plist><true/></plist>".utf16.flatMap {
                    [UInt8($0 & 0xFF), UInt8($0 >> 8)]
                }),
        XMLCase(
            "UTF-16 without a byte-order mark",
            bytes: "<plist><true/></plist>".utf16.flatMap {
                [UInt8($0 >> 8), UInt8($0 & 0xFF)]
            }),
        XMLCase("version 1.1", "<?xml version=\"1.1\"?><plist><true/></plist>"),
        XMLCase("empty internal subset", "<!DOCTYPE plist []><plist><true/></plist>"),
        XMLCase("reference in an attribute", "<plist version=\"1&#46;0\" a=\"&amp;\"><true/></plist>"),
        XMLCase("three attributes", "<plist a=\"1\" b=\"2\" c=\"3\"><true/></plist>"),
        XMLCase("default namespace", "<plist xmlns=\"http://www.apple.com\"><true/></plist>"),
        XMLCase("xml:space", "<plist xml:space=\"preserve\"><true/></plist>"),
        XMLCase("a space by reference between elements", "<plist>&#32;<true/></plist>"),
        XMLCase("xml-stylesheet", "<?xml-stylesheet href=\"a.css\"?><plist><true/></plist>"),
        XMLCase("catalog", "<?oasis-xml-catalog catalog=\"x\"?><plist><true/></plist>"),
        XMLCase("non-ASCII DOCTYPE literal", "<!DOCTYPE plist SYSTEM \"é.dtd\"><plist><true/></plist>"),
        XMLCase("DOCTYPE without space", "<!DOCTYPEplist><plist><true/></plist>"),
        XMLCase("long reference", "<plist><string>&#x0000000041;</string></plist>"),
        XMLCase("non-ASCII processing target", "<?café x?><plist><true/></plist>"),
        // libxml2 stops reading at a NUL byte after the root element, as at the end of its buffer.
        XMLCase("NUL after the root", "<plist><true/></plist>\u{0}"),
    ]

    @Test("leaves an unusual document to libxml2, which reads it as before", arguments: leftToLibXML2)
    func leavesUnusualDocumentsToLibXML2(_ document: XMLCase) {
        #expect(fastPathValue(document.bytes) == nil)
        #expect(
            XMLReadOutcome(document.bytes, usingFastPath: true) == XMLReadOutcome(document.bytes, usingFastPath: false))
    }

    @Test func limitsAreLibXML2s() {
        let document = Array(plist("<array><array><true/><true/><true/></array></array>").utf8)
        for limits in [
            PlistLimits(maxInputBytes: 1 << 20, maxDepth: 1, maxObjectCount: 100),
            PlistLimits(maxInputBytes: 1 << 20, maxDepth: 10, maxObjectCount: 3),
            PlistLimits(maxInputBytes: 100, maxDepth: 10, maxObjectCount: 100),
        ] {
            #expect(fastPathValue(document, limits: limits) == nil)
            let libxml2 = XMLReadOutcome(document, usingFastPath: false, limits: limits)
            guard case .failure(let code, _, _) = libxml2 else {
                Issue.record("libxml2 accepts it under \(limits)")
                continue
            }
            #expect(code == .limitExceeded)
            #expect(XMLReadOutcome(document, usingFastPath: true, limits: limits) == libxml2)
        }
    }

    // MARK: Its tables

    @Test(arguments: XMLPlistReader.Tag.allCases)
    func tagNamesArePackedAsTheirBytes(_ tag: XMLPlistReader.Tag) {
        #expect(tag.nameLength == tag.name.utf8.count)
        #expect(tag.packedName == tag.name.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) })
    }

    @Test func textClassesFollowTheirRule() {
        let table = XMLPlistReader.FastReader.textClasses
        #expect(table.utf8CodeUnitCount == 256)
        for byte in 0...255 {
            let expected: Character =
                switch byte {
                case 0x3C: "1"
                case 0x26: "2"
                case 0x0D: "3"
                case 0x5D: "4"
                case 0x09, 0x0A, 0x20...0x7F: "0"
                case 0xC2...0xF4: "5"
                default: "6"
                }
            #expect(Character(Unicode.Scalar(table.utf8Start[byte])) == expected, "byte \(byte)")
        }
    }

    /// Every sequence of one to four bytes (the lead byte, and the bytes after it that decide), against the
    /// standard library's UTF-8 decoder and XML's `Char`.
    @Test func sequenceLengthIsValidUTF8OfACharacter() {
        let followers: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBD, 0xBE, 0xBF, 0xC0, 0xFF]
        for lead in UInt8(0x80)...UInt8(0xFF) {
            for second in followers {
                for third in followers {
                    for fourth in [UInt8(0x80), 0xBF, 0x41] {
                        let bytes = [lead, second, third, fourth]
                        let length = bytes.withUnsafeBufferPointer {
                            XMLPlistReader.FastReader.sequenceLength($0.baseAddress!, at: 0, count: 4)
                        }
                        var decoder = UTF8()
                        var iterator = bytes.makeIterator()
                        var expected = 0
                        if case .scalarValue(let scalar) = decoder.decode(&iterator),
                            XMLPlistReader.FastReader.isCharacter(scalar.value)
                        {
                            expected = UTF8.width(scalar)
                        }
                        #expect(length == expected, "\(bytes)")
                    }
                }
            }
        }
    }

    @Test func sequenceLengthStopsAtTheEndOfTheInput() {
        let bytes: [UInt8] = [0xF0, 0x9F, 0x98, 0x80]
        for count in 1...3 {
            #expect(
                bytes.withUnsafeBufferPointer {
                    XMLPlistReader.FastReader.sequenceLength($0.baseAddress!, at: 0, count: count)
                } == 0)
        }
        #expect(
            bytes.withUnsafeBufferPointer { XMLPlistReader.FastReader.sequenceLength($0.baseAddress!, at: 0, count: 4) }
                == 4)
    }
}
