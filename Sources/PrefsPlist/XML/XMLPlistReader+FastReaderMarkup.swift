// SPDX-License-Identifier: Apache-2.0
extension XMLPlistReader.FastReader {
    // The markup around and between the elements, in the forms libxml2 2.9 reads (parser.c's xmlParseXMLDecl,
    // xmlParseDocTypeDecl, xmlParseComment, xmlParsePI); anything else is left to it.

    /// `<?xml S version="1.0" (S encoding="UTF-8")? (S standalone="yes|no")? S? ?>`, at the start of the input.
    mutating func readDeclaration() -> Bool {
        index = 5
        skipSpace()
        // Another version is a warning or an error in libxml2, and 1.1 has other rules: libxml2's.
        guard readPseudoAttribute("version", value: "1.0") else { return false }
        var spaced = skipSpace()
        if has("encoding", at: index) {
            // With a byte-order mark libxml2 ignores the declared encoding; without one, another one would be
            // honoured. Only UTF-8 is read here either way.
            guard spaced, readPseudoAttribute("encoding", value: "UTF-8", or: "utf-8") else { return false }
            spaced = skipSpace()
        }
        if has("standalone", at: index) {
            guard spaced, readPseudoAttribute("standalone", value: "yes", or: "no") else { return false }
            skipSpace()
        }
        guard has("?>", at: index) else { return false }
        index += 2
        return true
    }

    /// `name S? = S? quoted` where the quoted text is `value` or `other`.
    private mutating func readPseudoAttribute(
        _ name: StaticString, value: StaticString, or other: StaticString? = nil
    ) -> Bool {
        guard has(name, at: index) else { return false }
        index += name.utf8CodeUnitCount
        skipSpace()
        guard index < count, bytes[index] == UInt8(ascii: "=") else { return false }
        index += 1
        skipSpace()
        guard index < count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            return false
        }
        let quote = bytes[index]
        func quoted(_ candidate: StaticString) -> Int? {
            let end = index + 1 + candidate.utf8CodeUnitCount
            return has(candidate, at: index + 1) && end < count && bytes[end] == quote ? end + 1 : nil
        }
        guard let end = quoted(value) ?? other.flatMap(quoted) else { return false }
        index = end
        return true
    }

    /// `Misc*`: white space, comments and processing instructions, before and after the root element.
    mutating func readMisc() -> Bool {
        while true {
            skipSpace()
            if has("<?", at: index) {
                guard readProcessingInstruction() else { return false }
            } else if has("<!--", at: index) {
                guard readComment() else { return false }
            } else {
                return true
            }
        }
    }

    /// `<!DOCTYPE S Name (S ExternalID)? S? >`, at its `<`, with no internal subset (a `[` is libxml2's, which
    /// refuses every declaration in it). Nothing is loaded.
    mutating func readDocumentType() -> Bool {
        index += 9
        guard skipSpace(), readName() else { return false }
        let spaced = skipSpace()
        if has("PUBLIC", at: index) {
            index += 6
            guard spaced, skipSpace(), readLiteral(allowing: Self.isPublicIdentifierCharacter), skipSpace(),
                readLiteral(allowing: Self.isSystemLiteralCharacter)
            else { return false }
            skipSpace()
        } else if has("SYSTEM", at: index) {
            index += 6
            guard spaced, skipSpace(), readLiteral(allowing: Self.isSystemLiteralCharacter) else { return false }
            skipSpace()
        }
        guard index < count, bytes[index] == UInt8(ascii: ">") else { return false }
        index += 1
        return true
    }

    /// A quoted literal of the DOCTYPE whose characters all pass `allowed`.
    private mutating func readLiteral(allowing allowed: (UInt8) -> Bool) -> Bool {
        guard index < count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            return false
        }
        let quote = bytes[index]
        index += 1
        let start = index
        while index < count, bytes[index] != quote {
            guard allowed(bytes[index]) else { return false }
            index += 1
        }
        guard index < count, index - start <= Self.maxNameLength else { return false }
        index += 1
        return true
    }

    /// XML's `PubidChar` (the quote that closes the literal aside).
    private static func isPublicIdentifierCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0D, 0x0A, UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: "/"),
            UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: ";"), UInt8(ascii: "!"),
            UInt8(ascii: "*"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "$"), UInt8(ascii: "_"),
            UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    /// Printable ASCII and the space: a URL as writers put it there. libxml2 takes any character; others are its.
    private static func isSystemLiteralCharacter(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F
    }

    /// `<!-- … -->`, at its `<`, where `--` may only end it.
    mutating func readComment() -> Bool {
        index += 4
        let start = index
        while true {
            guard index < count else { return false }
            if bytes[index] == UInt8(ascii: "-"), index + 1 < count, bytes[index + 1] == UInt8(ascii: "-") {
                guard index + 2 < count, bytes[index + 2] == UInt8(ascii: ">") else { return false }
                break
            }
            guard skipCharacter() else { return false }
        }
        guard index - start <= Self.maxMarkupLength else { return false }
        index += 3
        builder.commentOrProcessingInstruction()
        return true
    }

    /// `<? target (S text)? ?>`, at its `<`, for a target that is neither reserved (`xml…`) nor a catalog.
    mutating func readProcessingInstruction() -> Bool {
        index += 2
        let targetStart = index
        // libxml2 refuses `xml` anywhere but at the start and warns about other `xml…` targets; it may act on an
        // `oasis-xml-catalog` one.
        guard readName(), !hasXMLPrefix(at: targetStart), !isCatalogTarget(from: targetStart) else { return false }
        if !has("?>", at: index) {
            guard skipSpace() else { return false }
            let start = index
            while !has("?>", at: index) {
                guard index < count, skipCharacter() else { return false }
            }
            guard index - start <= Self.maxMarkupLength else { return false }
        }
        index += 2
        builder.commentOrProcessingInstruction()
        return true
    }

    private func isCatalogTarget(from start: Int) -> Bool {
        let target: StaticString = "oasis-xml-catalog"
        return index - start == target.utf8CodeUnitCount && has(target, at: start)
    }
}
