// SPDX-License-Identifier: Apache-2.0
extension XMLPlistReader {
    /// A tokenizer in Swift for the XML that real writers produce, handing the same events as libxml2's SAX2 parser
    /// to a ``ValueBuilder``, so that what an element means stays defined once.
    ///
    /// Loading libxml2 (and ICU, zlib and liblzma with it) costs a process about as many instructions as a whole
    /// `defaults read`, and its parser was two thirds of an XML decode. This reads UTF-8 (the byte-order mark is
    /// already gone), the XML declaration (version 1.0, encoding UTF-8 or none, standalone), a DOCTYPE without an
    /// internal subset, comments, processing instructions, the plist elements with their attributes, text with
    /// the five predefined entities and character references, CDATA sections, and XML's line ends (CR LF and a lone
    /// CR are LF), over the buffer's bytes (eight at a time where it can), with no `String` work.
    ///
    /// It is conservative: whatever it does not handle exactly as libxml2 would (another encoding, an internal
    /// subset, another entity, a name it does not know, anything malformed, invalid UTF-8, a character outside
    /// XML's `Char`, a value the plist rules refuse) makes it return `nil`, and libxml2 reads the document, so every
    /// error and every unusual document it accepts stays libxml2's. It must never accept a document libxml2
    /// refuses, nor read another value from one both accept: the tests and the fuzz harness compare the two.
    struct FastReader {
        /// Deeper documents go to libxml2, whose own limit (256 elements) this stays clear of.
        static let maxElementDepth = 250
        /// Comments, processing instructions and attribute values longer than this go to libxml2, which refuses
        /// them past 10,000,000 bytes; names and DOCTYPE literals past ``maxNameLength`` (libxml2: 50,000).
        static let maxMarkupLength = 1 << 20
        static let maxNameLength = 1_000

        let bytes: UnsafePointer<UInt8>
        let count: Int
        var index = 0
        let builder: ValueBuilder
        /// The open elements, innermost last: ``maxElementDepth`` slots.
        private let openTags: UnsafeMutablePointer<Tag>
        private var depth = 0

        /// The document's value, or `nil` when libxml2 must read it.
        static func read(_ text: UnsafeRawBufferPointer, limits: PlistLimits) -> PlistValue? {
            guard let base = text.baseAddress, !text.isEmpty, text.count <= Int(Int32.max) else { return nil }
            // Positions only name errors, and an error sends the document to libxml2, which names its own.
            let builder = ValueBuilder(source: text, limits: limits) { .text(line: 1, column: 1) }
            return withUnsafeTemporaryAllocation(of: Tag.self, capacity: maxElementDepth) { openTags in
                var reader = FastReader(
                    bytes: base.assumingMemoryBound(to: UInt8.self), count: text.count, builder: builder,
                    openTags: openTags.baseAddress.unsafelyUnwrapped)
                guard reader.readDocument(), !builder.hasFailed else { return nil }
                return try? builder.finish()
            }
        }

        private init(
            bytes: UnsafePointer<UInt8>, count: Int, builder: ValueBuilder, openTags: UnsafeMutablePointer<Tag>
        ) {
            self.bytes = bytes
            self.count = count
            self.builder = builder
            self.openTags = openTags
        }

        /// `document ::= prolog element Misc*`, the whole input.
        private mutating func readDocument() -> Bool {
            // The declaration only at the very start: anywhere else `<?xml` is a processing instruction libxml2
            // refuses, and `<?xml-stylesheet …?>` one it warns about; both go to libxml2 (readProcessingInstruction).
            if has("<?xml", at: 0), count > 5, Self.isSpace(bytes[5]) {
                guard readDeclaration() else { return false }
            }
            guard readMisc() else { return false }
            if has("<!DOCTYPE", at: index) {
                guard readDocumentType(), readMisc() else { return false }
            }
            guard index < count, bytes[index] == UInt8(ascii: "<"), readElements() else { return false }
            return readMisc() && index == count
        }

        // MARK: Elements

        /// The root element and everything in it, without recursion: the open elements are on ``openTags``.
        private mutating func readElements() -> Bool {
            guard readStartTag() else { return false }
            while depth > 0 {
                let open = openTags[depth - 1]
                if open.holdsText {
                    guard readText(of: open) else { return false }
                } else {
                    // Only white space stands between the elements of a container; the builder would refuse
                    // other text, and a reference there (even to a space) is left to libxml2. (Locals, for
                    // registers: `self` is in memory.)
                    let bytes = bytes
                    let count = count
                    var position = index
                    while position < count, Self.isSpace(bytes[position]) { position &+= 1 }
                    index = position
                    guard position &+ 1 < count, bytes[position] == UInt8(ascii: "<") else { return false }
                    switch bytes[position &+ 1] {
                    case UInt8(ascii: "/"):
                        guard readEndTag(of: open) else { return false }
                    case UInt8(ascii: "!"):
                        // A comment; a CDATA section here is text outside a value, which the builder refuses.
                        guard has("<!--", at: index), readComment() else { return false }
                    case UInt8(ascii: "?"):
                        guard readProcessingInstruction() else { return false }
                    default:
                        guard readStartTag() else { return false }
                    }
                }
                if builder.hasFailed { return false }
            }
            return true
        }

        /// `'<' Name (S Attribute)* S? ('>' | '/>')` for a plist element, at its `<`.
        @inline(__always)
        private mutating func readStartTag() -> Bool {
            let nameStart = index &+ 1
            guard depth < Self.maxElementDepth, let tag = tagName(at: nameStart) else { return false }
            let nameEnd = nameStart &+ tag.nameLength
            var isEmpty = false
            if bytes[nameEnd] == UInt8(ascii: ">") {  // The name ends before the input does (tagName checked).
                index = nameEnd &+ 1
            } else {
                index = nameEnd
                guard readAttributes(isEmpty: &isEmpty) else { return false }
            }
            builder.startElement(tag, isEmpty: isEmpty, line: 0)
            if isEmpty {
                // libxml2 reports the end of `<x/>` right after its start.
                builder.endElement()
            } else {
                openTags[depth] = tag
                depth += 1
            }
            return true
        }

        /// The attributes of a start tag (which the plist elements ignore, but which must be well formed and
        /// distinct), up to and past its `>` or `/>`.
        private mutating func readAttributes(isEmpty: inout Bool) -> Bool {
            // The first attribute's name, for the uniqueness rule; a third attribute sends the document to libxml2.
            var first = (start: 0, length: 0)
            var attributes = 0
            while true {
                let spaced = skipSpace()
                guard index < count else { return false }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    return true
                }
                if bytes[index] == UInt8(ascii: "/") {
                    guard index + 1 < count, bytes[index + 1] == UInt8(ascii: ">") else { return false }
                    index += 2
                    isEmpty = true
                    return true
                }
                guard spaced, attributes < 2 else { return false }
                let nameStart = index
                // `xmlns` and `xmlns:x` declare namespaces, `xml:` names have rules of their own: libxml2's.
                guard readName(), !hasXMLPrefix(at: nameStart) else { return false }
                let name = (start: nameStart, length: index - nameStart)
                if attributes == 1, sameBytes(first, name) { return false }
                skipSpace()
                guard index < count, bytes[index] == UInt8(ascii: "=") else { return false }
                index += 1
                skipSpace()
                guard readAttributeValue() else { return false }
                if attributes == 0 { first = name }
                attributes += 1
            }
        }

        /// `'"' [^<&"]* '"' | "'" [^<&']* "'"`: a value without references (libxml2 reads those).
        private mutating func readAttributeValue() -> Bool {
            guard index < count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                return false
            }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < count, bytes[index] != quote {
                let byte = bytes[index]
                if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { return false }
                guard skipCharacter() else { return false }
            }
            guard index < count, index - start <= Self.maxMarkupLength else { return false }
            index += 1
            return true
        }

        /// `'</' Name S? '>'` closing `open`, at its `<`, without telling the builder.
        @inline(__always)
        private mutating func skipEndTag(of open: Tag) -> Bool {
            let nameStart = index &+ 2
            guard hasName(of: open, at: nameStart) else { return false }
            let nameEnd = nameStart &+ open.nameLength
            if bytes[nameEnd] == UInt8(ascii: ">") {  // The name ends before the input does (hasName checked).
                index = nameEnd &+ 1
            } else {
                index = nameEnd
                skipSpace()
                guard index < count, bytes[index] == UInt8(ascii: ">") else { return false }
                index += 1
            }
            depth -= 1
            return true
        }

        /// `'</' Name S? '>'` closing `open`, at its `<`.
        private mutating func readEndTag(of open: Tag) -> Bool {
            guard skipEndTag(of: open) else { return false }
            builder.endElement()
            return true
        }

        /// The input's eight bytes from `offset`, the first in the lowest byte; `offset + 8` must not pass the end.
        @inline(__always)
        private func word(at offset: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(bytes + offset).loadUnaligned(as: UInt64.self))
        }

        /// Whether `tag`'s name is at `offset`, followed by what ends a name in a tag (white space, `/` or `>`).
        @inline(__always)
        private func hasName(of tag: Tag, at offset: Int) -> Bool {
            guard offset + 8 <= count else { return tagNameNearTheEnd(at: offset) == tag }
            let word = word(at: offset)
            let length = tag.nameLength
            // Names have at most seven letters, so the byte after one is in the word too.
            guard word & (1 << UInt64(8 * length) - 1) == tag.packedName else { return false }
            return Self.endsName(UInt8(truncatingIfNeeded: word >> UInt64(8 * length)))
        }

        /// The plist element whose name starts at `offset` and ends where a tag allows (white space, `/` or `>`).
        @inline(__always)
        private func tagName(at offset: Int) -> Tag? {
            guard offset + 8 <= count else { return tagNameNearTheEnd(at: offset) }
            let word = word(at: offset)
            let tag: Tag
            switch UInt8(truncatingIfNeeded: word) {
            case UInt8(ascii: "k"): tag = .key
            case UInt8(ascii: "s"): tag = .string
            case UInt8(ascii: "d"):
                // dict, date, data: the second letter, then the fourth.
                if UInt8(truncatingIfNeeded: word >> 8) == UInt8(ascii: "i") {
                    tag = .dict
                } else {
                    tag = UInt8(truncatingIfNeeded: word >> 24) == UInt8(ascii: "e") ? .date : .data
                }
            case UInt8(ascii: "i"): tag = .integer
            case UInt8(ascii: "r"): tag = .real
            case UInt8(ascii: "t"): tag = .true
            case UInt8(ascii: "f"): tag = .false
            case UInt8(ascii: "a"): tag = .array
            case UInt8(ascii: "p"): tag = .plist
            default: return nil
            }
            let length = tag.nameLength
            guard word & (1 << UInt64(8 * length) - 1) == tag.packedName,
                Self.endsName(UInt8(truncatingIfNeeded: word >> UInt64(8 * length)))
            else { return nil }
            return tag
        }

        /// ``tagName(at:)`` where fewer than eight bytes are left.
        private func tagNameNearTheEnd(at offset: Int) -> Tag? {
            for tag in Tag.allCases {
                let length = tag.nameLength
                guard offset + length < count else { continue }
                var packed: UInt64 = 0
                for position in 0..<length { packed |= UInt64(bytes[offset + position]) << UInt64(8 * position) }
                if packed == tag.packedName, Self.endsName(bytes[offset + length]) { return tag }
            }
            return nil
        }

        @inline(__always)
        private static func endsName(_ byte: UInt8) -> Bool {
            isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
        }

        // MARK: Text

        /// The content of a value element, up to and past its end tag: pieces of text to the builder (a run in one
        /// piece, a reference's text on its own, as libxml2 hands them over), CDATA sections, comments and
        /// processing instructions. Text in one piece, the usual case, goes with the end tag, uncopied.
        private mutating func readText(of open: Tag) -> Bool {
            let classes = Self.textClasses.utf8Start
            let bytes = bytes
            let count = count
            // Every event takes at least a byte, so the piece starts here only while there has been none.
            let contentStart = index
            var pieceStart = index
            // The cursor in a local, so that it stays in a register; `index` is set from it before any other call.
            var position = index
            while true {
                // Plain text (ASCII but markup, references, CR and `]`), eight bytes at a time while none is
                // anything else, then byte by byte.
                while position &+ 8 <= count, !Self.mayHoldMarkup(bytes + position) { position &+= 8 }
                while position < count, classes[Int(bytes[position])] == UInt8(ascii: "0") { position &+= 1 }
                guard position < count else { return false }
                if bytes[position] == UInt8(ascii: "<"), position &+ 1 < count,
                    bytes[position &+ 1] == UInt8(ascii: "/")
                {
                    let text = UnsafeBufferPointer(start: bytes + pieceStart, count: position &- pieceStart)
                    index = position
                    guard skipEndTag(of: open) else { return false }
                    if pieceStart == contentStart {
                        builder.endElement(text: text)
                    } else {
                        if !text.isEmpty { builder.characters(text, line: 0) }
                        builder.endElement()
                    }
                    return true
                }
                index = position
                switch classes[Int(bytes[position])] {
                case UInt8(ascii: "1"):  // `<`, not of the end tag
                    deliver(from: pieceStart)
                    if has("<!--", at: index) {
                        guard readComment() else { return false }
                    } else if has("<![CDATA[", at: index) {
                        guard readCharacterData() else { return false }
                    } else if has("<?", at: index) {
                        guard readProcessingInstruction() else { return false }
                    } else {
                        // An element inside a value, which the builder refuses.
                        return false
                    }
                    pieceStart = index
                case UInt8(ascii: "2"):  // `&`
                    deliver(from: pieceStart)
                    guard readReference() else { return false }
                    pieceStart = index
                case UInt8(ascii: "3"):  // CR: CR LF becomes LF, as does a lone CR.
                    deliver(from: pieceStart)
                    index += 1
                    if !(index < count && bytes[index] == UInt8(ascii: "\n")) {
                        builder.characters(Self.staticBytes("\n"), line: 0)
                    }
                    pieceStart = index
                case UInt8(ascii: "4"):  // `]`: `]]>` is not allowed in text.
                    if has("]]>", at: index) { return false }
                    index += 1
                case UInt8(ascii: "5"):  // The lead byte of a multi-byte sequence.
                    let length = Self.sequenceLength(bytes, at: index, count: count)
                    guard length > 0 else { return false }
                    index += length
                default:  // Not a character of XML, or not UTF-8.
                    return false
                }
                if builder.hasFailed { return false }
                position = index
            }
        }

        /// Whether any of the eight bytes at `start` is other than plain text: not ASCII, a control character (tab
        /// and LF too, which the byte-wise loop then takes), `<`, `&` or `]`.
        @inline(__always)
        private static func mayHoldMarkup(_ start: UnsafePointer<UInt8>) -> Bool {
            let word = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            @inline(__always) func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
            // A byte below 0x20, once none has its high bit set.
            let control = (word &- 0x20 &* ones) & ~word & highs
            return word & highs != 0 || control != 0 || hasZeroByte(word ^ (0x3C &* ones))
                || hasZeroByte(word ^ (0x26 &* ones)) || hasZeroByte(word ^ (0x5D &* ones))
        }

        private func deliver(from start: Int) {
            guard index > start else { return }
            builder.characters(UnsafeBufferPointer(start: bytes + start, count: index - start), line: 0)
        }

        /// `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`, `&#N;` or `&#xN;`, at its `&`, handed to the builder as the
        /// text it stands for.
        private mutating func readReference() -> Bool {
            if let predefined = Self.predefinedEntities.first(where: { has($0.reference, at: index) }) {
                index += predefined.reference.utf8CodeUnitCount
                builder.characters(Self.staticBytes(predefined.text), line: 0)
            } else if has("&#", at: index) {
                guard let scalar = readCharacterReference() else { return false }
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { buffer in
                    var length = 0
                    for unit in UTF8.encode(scalar).unsafelyUnwrapped {
                        buffer[length] = unit
                        length += 1
                    }
                    builder.characters(UnsafeBufferPointer(rebasing: buffer[..<length]), line: 0)
                }
            } else {
                // Another entity: libxml2 refuses it, as the plist rules do.
                return false
            }
            return true
        }

        /// XML's five predefined entities, and the text each stands for.
        private static let predefinedEntities: [(reference: StaticString, text: StaticString)] = [
            ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"), ("&apos;", "'"), ("&quot;", "\""),
        ]

        /// `&#` digits `;` or `&#x` hex digits `;`, at its `&`: the character, when it is one XML allows.
        private mutating func readCharacterReference() -> Unicode.Scalar? {
            var position = index + 2
            let hexadecimal = position < count && bytes[position] == UInt8(ascii: "x")
            if hexadecimal { position += 1 }
            let digitsStart = position
            var value: UInt32 = 0
            while position < count, bytes[position] != UInt8(ascii: ";") {
                // libxml2 counts the digits of a long reference oddly (hex letters are refused past ten of them):
                // a longer one is left to it. Eight digits cannot overflow.
                guard position - digitsStart < 8 else { return nil }
                let byte = bytes[position]
                let digit: UInt32
                if byte &- UInt8(ascii: "0") < 10 {
                    digit = UInt32(byte &- UInt8(ascii: "0"))
                } else if hexadecimal, (byte | 0x20) &- UInt8(ascii: "a") < 6 {
                    digit = UInt32((byte | 0x20) &- UInt8(ascii: "a")) + 10
                } else {
                    return nil
                }
                value = value * (hexadecimal ? 16 : 10) + digit
                position += 1
            }
            guard position < count, position > digitsStart, Self.isCharacter(value) else { return nil }
            index = position + 1
            return Unicode.Scalar(value)
        }

        /// `<![CDATA[ … ]]>`, at its `<`: handed to the builder whole, its line ends made LF.
        private mutating func readCharacterData() -> Bool {
            index += 9
            let start = index
            var hasCarriageReturn = false
            while true {
                guard index + 2 < count else { return false }
                let byte = bytes[index]
                if byte == UInt8(ascii: "]"), bytes[index + 1] == UInt8(ascii: "]"),
                    bytes[index + 2] == UInt8(ascii: ">")
                {
                    break
                }
                if byte == 0x0D { hasCarriageReturn = true }
                guard skipCharacter() else { return false }
            }
            let content = UnsafeBufferPointer(start: bytes + start, count: index - start)
            index += 3
            if hasCarriageReturn {
                var normalized: [UInt8] = []
                normalized.reserveCapacity(content.count)
                var position = 0
                while position < content.count {
                    if content[position] == 0x0D {
                        normalized.append(0x0A)
                        if position + 1 < content.count, content[position + 1] == 0x0A { position += 1 }
                    } else {
                        normalized.append(content[position])
                    }
                    position += 1
                }
                normalized.withUnsafeBufferPointer { builder.characterData($0, line: 0) }
            } else {
                builder.characterData(content, line: 0)
            }
            return true
        }

        // MARK: Characters

        /// Steps over one character that XML allows (`Char`), at `index`; false for anything else.
        @inline(__always)
        mutating func skipCharacter() -> Bool {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x80 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
                return true
            }
            let length = Self.sequenceLength(bytes, at: index, count: count)
            index += length
            return length > 0
        }

        /// The length of the UTF-8 sequence at `offset` when it is valid (shortest form, no surrogate) and encodes a
        /// character XML allows (not U+FFFE or U+FFFF), else 0. libxml2 refuses every other sequence.
        static func sequenceLength(_ bytes: UnsafePointer<UInt8>, at offset: Int, count: Int) -> Int {
            let lead = bytes[offset]
            @inline(__always) func continues(_ position: Int) -> Bool {
                offset + position < count && bytes[offset + position] & 0xC0 == 0x80
            }
            switch lead {
            case 0xC2...0xDF:
                return continues(1) ? 2 : 0
            case 0xE0...0xEF:
                guard continues(1), continues(2) else { return 0 }
                let second = bytes[offset + 1]
                if lead == 0xE0, second < 0xA0 { return 0 }  // overlong
                if lead == 0xED, second >= 0xA0 { return 0 }  // a surrogate
                if lead == 0xEF, second == 0xBF, bytes[offset + 2] >= 0xBE { return 0 }  // U+FFFE, U+FFFF
                return 3
            case 0xF0...0xF4:
                guard continues(1), continues(2), continues(3) else { return 0 }
                let second = bytes[offset + 1]
                if lead == 0xF0, second < 0x90 { return 0 }  // overlong
                if lead == 0xF4, second >= 0x90 { return 0 }  // past U+10FFFF
                return 4
            default:
                return 0
            }
        }

        /// XML's `Char`: tab, LF, CR, and U+0020 to U+10FFFF but the surrogates, U+FFFE and U+FFFF.
        static func isCharacter(_ value: UInt32) -> Bool {
            switch value {
            case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }

        /// Per byte of text inside a value, as the digit at its position: 0 plain (tab, LF, and ASCII from the
        /// space on but the next ones), 1 `<`, 2 `&`, 3 CR, 4 `]`, 5 the lead byte of a multi-byte UTF-8 sequence,
        /// 6 never in XML text (other control characters, continuation bytes, 0xC0, 0xC1, 0xF5 and above). Text in
        /// the executable, so no process builds the table at run time; a test checks it against that rule.
        static let textClasses: StaticString = """
            6666666660066366666666666666666600000020000000000000000000001000\
            0000000000000000000000000000040000000000000000000000000000000000\
            6666666666666666666666666666666666666666666666666666666666666666\
            6655555555555555555555555555555555555555555555555555566666666666
            """

        // MARK: Scanning

        /// Whether the input holds `literal` at `offset`.
        @inline(__always)
        func has(_ literal: StaticString, at offset: Int) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard offset >= 0, offset + length <= count else { return false }
            for position in 0..<length where bytes[offset + position] != literal.utf8Start[position] {
                return false
            }
            return true
        }

        /// Skips `S` (space, tab, LF, CR); whether there was any.
        @discardableResult
        @inline(__always)
        mutating func skipSpace() -> Bool {
            let start = index
            while index < count, Self.isSpace(bytes[index]) { index += 1 }
            return index > start
        }

        @inline(__always)
        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
        }

        /// `[A-Za-z_] [A-Za-z0-9._-]*`, ending where no name character follows: the ASCII names libxml2 reads the
        /// same way with or without namespaces. A name going on with `:` or a non-ASCII letter is libxml2's.
        mutating func readName() -> Bool {
            let start = index
            guard index < count, Self.isNameStart(bytes[index]) else { return false }
            index += 1
            while index < count,
                Self.isNameStart(bytes[index]) || bytes[index] &- UInt8(ascii: "0") < 10
                    || bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: ".")
            {
                index += 1
            }
            guard index < count, index - start <= Self.maxNameLength else { return false }
            return bytes[index] != UInt8(ascii: ":") && bytes[index] < 0x80
        }

        private static func isNameStart(_ byte: UInt8) -> Bool {
            (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte == UInt8(ascii: "_")
        }

        /// Whether the name at `offset` starts with `xml` in any case, which XML reserves.
        func hasXMLPrefix(at offset: Int) -> Bool {
            offset + 3 <= count && bytes[offset] | 0x20 == UInt8(ascii: "x")
                && bytes[offset + 1] | 0x20 == UInt8(ascii: "m")
                && bytes[offset + 2] | 0x20 == UInt8(ascii: "l")
        }

        private func sameBytes(_ first: (start: Int, length: Int), _ second: (start: Int, length: Int)) -> Bool {
            guard first.length == second.length else { return false }
            for position in 0..<first.length where bytes[first.start + position] != bytes[second.start + position] {
                return false
            }
            return true
        }

        static func staticBytes(_ text: StaticString) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        }
    }
}

extension XMLPlistReader.Tag {
    /// The elements whose content is text: every scalar and `<key>`.
    fileprivate var holdsText: Bool {
        // plist, dict and array come first.
        rawValue > Self.array.rawValue
    }

    /// The length of ``name``.
    var nameLength: Int {
        switch self {
        case .key: 3
        case .dict, .real, .true, .date, .data: 4
        case .plist, .array, .false: 5
        case .string: 6
        case .integer: 7
        }
    }

    /// The bytes of ``name``, the first in the lowest byte; a test checks them.
    var packedName: UInt64 {
        switch self {
        case .plist: 0x74_73_69_6C_70
        case .dict: 0x74_63_69_64
        case .array: 0x79_61_72_72_61
        case .key: 0x79_65_6B
        case .string: 0x67_6E_69_72_74_73
        case .integer: 0x72_65_67_65_74_6E_69
        case .real: 0x6C_61_65_72
        case .true: 0x65_75_72_74
        case .false: 0x65_73_6C_61_66
        case .date: 0x65_74_61_64
        case .data: 0x61_74_61_64
        }
    }
}
