// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsPlist

private func decode(_ text: String) throws -> PlistValue {
    try decode(Array(text.utf8))
}

private func decode(_ bytes: [UInt8]) throws -> PlistValue {
    try bytes.withUnsafeBytes { try XMLPlistReader.read($0, limits: .default) }
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

/// What reading through libxml2's SAX2 callbacks makes the reader's own business: telling `<x/>` from
/// `<x></x>`, text arriving in pieces, the limits a tree builder enforced, the internal subset's
/// declarations one by one, and reporting the first error in document order.
@Suite("XML reader: SAX events")
struct XMLPlistReaderSAXTests {
    // MARK: Empty elements

    @Test func emptyElementsWithSpaceBeforeTheSlash() throws {
        #expect(
            try decode("<array><true /><false\t/><string\n/><array /><dict /></array>") == [true, false, "", [], [:]])
        #expect(try decode("<dict><key /><string>v</string></dict>") == ["": "v"])
        #expect(decodingError("<integer />")?.message.contains("empty <integer/>") == true)
        #expect(decodingError("<plist version=\"1.0\" />")?.message.contains("empty <plist>") == true)
        #expect(decodingError("<data a=\"/\"/>")?.message.contains("empty <data/>") == true)
    }

    @Test func aSlashInAnAttributeDoesNotMakeAnElementEmpty() throws {
        #expect(try decode("<array><string note=\"a/b\">x</string><data a='/'></data></array>") == ["x", .data([])])
    }

    // MARK: Text in pieces

    /// libxml2 hands over non-ASCII text in pieces of about 300 bytes, each reference on its own, and
    /// `\r\n` as two runs; a value is the whole of them.
    @Test func longTextInManyPiecesIsOneValue() throws {
        let text = String(repeating: "Grüße, 🐍 &amp; &#x41;\r\n", count: 400)
        let expected = String(repeating: "Grüße, 🐍 & A\n", count: 400)
        #expect(
            try decode("<dict><key>\(text)</key><string>\(text)</string></dict>")
                == .dictionary([expected: .string(expected)]))
        let base64 = String(repeating: "QUJD\r\n", count: 5000)
        #expect(try decode("<data>\(base64)</data>") == .data(Array(String(repeating: "ABC", count: 5000).utf8)))
    }

    @Test("one text run of a value holds at most 10,000,000 bytes, as libxml2's text nodes")
    func textRunLimit() throws {
        let limit = XMLPlistReader.ValueBuilder.maxTextRunLength
        #expect(limit == 10_000_000)
        let atLimit = String(repeating: "a", count: limit)
        #expect(try decode("<string>\(atLimit)</string>") == .string(atLimit))
        let error = try #require(decodingError("<array>\n<string>\(atLimit)b</string></array>"))
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("<string>") && error.message.contains("10000000"), "\(error.message)")
        #expect(error.position == .text(line: 2, column: 1))
        // A comment starts a new run, as it starts a new text node.
        let half = String(repeating: "b", count: 6_000_000)
        #expect(try decode("<string>\(half)<!-- c -->\(half)</string>") == .string(half + half))
    }

    // MARK: libxml2's limits without a tree

    @Test("libxml2's nesting limit holds for elements that are not containers")
    func libxml2NestingLimitWithoutContainers() throws {
        let depth = 300
        let text = String(repeating: "<plist>", count: depth) + "<true/>" + String(repeating: "</plist>", count: depth)
        let error = try #require(decodingError(text))
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("depth"), "\(error.message)")
        let shallow = String(repeating: "<plist>", count: 200) + "<true/>" + String(repeating: "</plist>", count: 200)
        #expect(try decode(shallow) == true)
    }

    // MARK: The internal subset, declaration by declaration

    @Test(arguments: [
        "<!DOCTYPE plist [<!-- a comment -->]>\n<plist><true/></plist>",
        "<!DOCTYPE plist [<?pi x?>]>\n<plist><true/></plist>",
        "<!DOCTYPE plist [<!NOTATION n SYSTEM \"x\">]>\n<plist><true/></plist>",
        "<!DOCTYPE plist [<!ENTITY e SYSTEM \"x\" NDATA n>]>\n<plist><true/></plist>",
        "<!DOCTYPE plist [<!ATTLIST plist version (a|b) \"a\">]>\n<plist><true/></plist>",
        "<!DOCTYPE plist [<!ENTITY % p \"\">]>\n<plist><true/></plist>",
    ])
    func everyDeclarationRefusesTheSubset(document: String) throws {
        let error = try #require(decodingError(document))
        #expect(error.message.contains("DOCTYPE"), "\(error.message)")
        #expect(error.position == .text(line: 1, column: 1))
    }

    @Test func anEmptyOrBlankSubsetIsAccepted() throws {
        #expect(try decode("<!DOCTYPE plist []><plist><true/></plist>") == true)
        #expect(try decode("<!DOCTYPE plist [ \n ]>\n<plist><true/></plist>") == true)
        #expect(try decode("<!DOCTYPE plist SYSTEM \"file:///nonexistent.dtd\"><plist><true/></plist>") == true)
    }

    // MARK: Errors in document order

    /// libxml2's reader parsed ahead of the node it reported, so a later XML error could hide an earlier
    /// plist error; events now arrive in order, and the first problem in the document is the one named.
    @Test func theFirstErrorInTheDocumentIsReported() throws {
        let error = try #require(decodingError("<array>\n<integer>x</integer>\n<string>a</strin>\n</array>"))
        #expect(error.message.contains("<integer> holds \"x\""), "\(error.message)")
        #expect(error.position == .text(line: 2, column: 1))
        let xmlFirst = try #require(decodingError("<array>\n<string>a</strin>\n<integer>x</integer>\n</array>"))
        #expect(xmlFirst.message.contains("invalid XML"), "\(xmlFirst.message)")
        #expect(xmlFirst.position.map { "\($0)" }?.hasPrefix("line 2") == true)
    }

    @Test func misplacedCharacterDataIsLocated() throws {
        let error = try #require(decodingError("<dict>\n\t<key>a</key><string>b</string><![CDATA[x]]>\n</dict>"))
        #expect(error.message.contains("text outside a value element"))
        #expect(error.position == .text(line: 2, column: 32))
        let blank = try #require(decodingError("<array>\n<true/>\n<![CDATA[\n\n]]><true/></array>"))
        #expect(blank.position == .text(line: 3, column: 1))
    }

    // MARK: Encodings

    /// With a byte-order mark the text is UTF-8 whatever the declaration says (libxml2 is told to ignore it).
    @Test func byteOrderMarkOverridesTheDeclaredEncoding() throws {
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><string>café</string>".utf8)
        #expect(try decode(bytes) == "café")
    }
}
