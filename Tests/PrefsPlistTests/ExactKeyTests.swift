// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

/// Keys and strings are exact: two texts that differ only in Unicode normalization stay two, as they do for
/// CoreFoundation, CPython's plistlib and GNUstep.
@Suite("byte-exact keys and strings")
struct ExactKeyTests {
    /// "é" as one scalar (NFC) and as "e" + a combining acute accent (NFD): equal as Swift `String`s.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// String values, which every format (OpenStep too) keeps as they are.
    static let bothKeys: PlistValue = [composed: "1", decomposed: "2"]

    @Test func theTwoFormsAreEqualStringsButDifferentKeys() {
        #expect(Self.composed == Self.decomposed, "Swift compares by canonical equivalence")
        #expect(PlistKey(Self.composed) != PlistKey(Self.decomposed))
        #expect(PlistValue.string(Self.composed) != PlistValue.string(Self.decomposed))
        var hasherA = Hasher()
        var hasherB = Hasher()
        hasherA.combine(PlistKey(Self.composed))
        hasherB.combine(PlistKey(Self.composed))
        #expect(hasherA.finalize() == hasherB.finalize())
        #expect(Self.bothKeys.dictionaryValue?.count == 2)
        #expect(Self.bothKeys[Self.composed] == "1")
        #expect(Self.bothKeys[Self.decomposed] == "2")
    }

    @Test("both keys survive a round trip through each format", arguments: PlistFormat.allCases)
    func bothKeysSurviveEachFormat(format: PlistFormat) throws {
        let bytes = try PlistSerialization.encode(Self.bothKeys, format: format)
        let back = try PlistSerialization.decode(bytes)
        #expect(back == Self.bothKeys)
        #expect(back[Self.composed] == "1")
        #expect(back[Self.decomposed] == "2")
    }

    @Test("each reader keeps both keys of a file written elsewhere")
    func readersKeepBothKeys() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>\(Self.composed)</key><string>1</string>\
            <key>\(Self.decomposed)</key><string>2</string></dict></plist>
            """
        let openStep = "{ \"\(Self.composed)\" = 1; \"\(Self.decomposed)\" = 2; }"
        let json = "{\"\(Self.composed)\": \"1\", \"\(Self.decomposed)\": \"2\"}"
        for text in [xml, openStep, json] {
            let value = try PlistSerialization.decode(Array(text.utf8))
            #expect(value == Self.bothKeys, "\(text)")
        }
    }

    @Test(
        "the text writers order keys by their bytes, which is Unicode scalar order",
        arguments: [PlistFormat.xml, .json])
    func writersOrderByBytes(format: PlistFormat) throws {
        let text = String(decoding: try PlistSerialization.encode(Self.bothKeys, format: format), as: UTF8.self)
        // "cafe" + U+0301 sorts before "caf" + U+00E9, since "e" (0x65) < 0xC3.
        let first = try #require(text.utf8.firstRange(of: Array(Self.decomposed.utf8)))
        let second = try #require(text.utf8.firstRange(of: Array(Self.composed.utf8)))
        #expect(first.lowerBound < second.lowerBound)
    }

    @Test("a string value changed only in its normalization is a change")
    func normalizationChangesAreChanges() {
        let old: PlistValue = ["name": .string(Self.composed)]
        let new: PlistValue = ["name": .string(Self.decomposed)]
        #expect(old != new)
        #expect(Set([old, new]).count == 2)
    }

    @Test("key paths address each of the two keys")
    func keyPathsAreExact() throws {
        var entries = try #require(Self.bothKeys.dictionaryValue)
        try PlistKeyPath(Self.decomposed).set(3, in: &entries)
        #expect(entries[Self.composed] == "1")
        #expect(entries[Self.decomposed] == 3)
        #expect(PlistKeyPath(Self.composed).value(in: entries) == "1")
    }
}
