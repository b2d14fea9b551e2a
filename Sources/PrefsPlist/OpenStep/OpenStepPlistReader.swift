// SPDX-License-Identifier: Apache-2.0
/// Reads OpenStep ("old-style ASCII") property lists and `.strings` files.
///
/// The grammar is CoreFoundation's (`CFOldStylePList.c`): `{ key = value; }` dictionaries,
/// `( a, b )` arrays with an optional trailing comma, quoted or unquoted strings, `<0fab12>` data,
/// `//` and `/* */` comments, and a top level without braces (`"k" = "v"; key;`) as `.strings`
/// files have it. Every scalar is a string or data, so the reader never invents numbers. GNUstep's
/// typed extensions (`<*I12>`, `<*R1.5>`, `<*BY>`, `<*D2011-11-28 09:21:30 +0000>`, `<[base64]>`)
/// are read as integers, reals, booleans, dates and data.
///
/// Where Apple's two parsers disagree, this reader follows CoreFoundation, which macOS `defaults`
/// and `plutil` use: `\f` and `\v` are U+000C and U+000B (swift-foundation's Swift parser returns
/// U+0012 and U+0011). Where it is stricter than CoreFoundation, on purpose:
/// - `\U` must be followed by at least one hexadecimal digit, and escaped UTF-16 surrogates must
///   pair up (CoreFoundation silently makes U+0000 or a broken string).
/// - An unterminated `/*` comment, text left over after a `.strings` top level, and bytes that are
///   not UTF-8 are errors (CoreFoundation ignores the first two and may fall back to a legacy
///   encoding for the third).
///
/// Input with no characters at all is an error; input of only white space and comments is an
/// empty dictionary, as CoreFoundation has it for empty `.strings` files. Octal escapes `\NNN`
/// keep the low 8 bits and map bytes of 0x80 and above through the NeXTSTEP character set.
enum OpenStepPlistReader {
    /// Parses OpenStep text.
    ///
    /// The text may be UTF-8 (with or without a byte-order mark) or UTF-16/UTF-32 (the encoding is
    /// found from the byte-order mark or the zero bytes around the first character).
    /// - Parameters:
    ///   - bytes: The whole input.
    ///   - limits: Size, depth and object-count bounds.
    /// - Returns: The top-level value.
    /// - Throws: `PlistError` naming the problem and its line and column.
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded,
                "the input is \(bytes.count) bytes, more than the limit of \(limits.maxInputBytes)",
                at: .text(line: 1, column: 1))
        }
        let (encoding, byteOrderMarkLength) = TextEncodingSniffer.detect(bytes)
        if encoding == .utf8 {
            let body = UnsafeRawBufferPointer(rebasing: bytes[byteOrderMarkLength...])
            var parser = Parser(text: body.assumingMemoryBound(to: UInt8.self), limits: limits)
            return try parser.parseDocument()
        }
        guard let (utf8, _) = TextEncodingSniffer.utf8Bytes(of: bytes) else {
            throw PlistError(
                .invalidEncoding, "the input is not valid \(encoding) text", at: .text(line: 1, column: 1))
        }
        return try utf8.withUnsafeBufferPointer { text in
            var parser = Parser(text: text, limits: limits)
            return try parser.parseDocument()
        }
    }
}

extension OpenStepPlistReader {
    /// A recursive-descent parser over UTF-8 bytes. Every read of `text` is preceded by a check
    /// of `position` against `text.count`.
    struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        let limits: PlistLimits
        var position = 0
        var objectCount = 0
        /// Reused buffer for strings with escapes, so each one does not allocate its own.
        var scratch: [UInt8] = []

        init(text: UnsafeBufferPointer<UInt8>, limits: PlistLimits) {
            self.text = text
            self.limits = limits
        }

        /// The byte at `offset`, or `nil` past the end.
        @inline(__always)
        func byte(at offset: Int) -> UInt8? {
            offset >= 0 && offset < text.count ? text[offset] : nil
        }

        /// The whole document: one value, or the body of a `.strings` file.
        mutating func parseDocument() throws -> PlistValue {
            guard !text.isEmpty else {
                throw PlistError(.malformed, "the input is empty", at: .text(line: 1, column: 1))
            }
            guard try skipWhitespaceAndComments() else { return .dictionary([:]) }
            let value = try parseValue(depth: 0)
            guard try skipWhitespaceAndComments() else { return value }
            guard case .string = value else {
                throw failure("unexpected text after the property list", at: position)
            }
            // A string followed by more text: a `.strings` file, a dictionary without braces.
            position = 0
            objectCount = 0
            try checkDepth(1)
            return .dictionary(try parseDictionaryBody(depth: 1, closedByBrace: false))
        }

        /// Parses the value that starts at `position`, which must be at a non-space character.
        /// `depth` counts the containers around the value.
        mutating func parseValue(depth: Int) throws -> PlistValue {
            try countObject()
            guard let first = byte(at: position) else {
                throw failure("the input ends where a value was expected", at: position)
            }
            switch first {
            case UInt8(ascii: "{"):
                try checkDepth(depth + 1)
                position += 1
                return .dictionary(try parseDictionaryBody(depth: depth + 1, closedByBrace: true))
            case UInt8(ascii: "("):
                try checkDepth(depth + 1)
                position += 1
                return .array(try parseArrayBody(depth: depth + 1))
            case UInt8(ascii: "<"):
                return try parseAngleBracketValue()
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return .string(try parseQuotedString())
            default:
                if Self.isUnquotedStringByte(first) { return .string(parseUnquotedString()) }
                throw unexpectedCharacter(at: position, expecting: "a value")
            }
        }

        /// Parses dictionary entries up to `}` (when `closedByBrace`) or the end of the input.
        mutating func parseDictionaryBody(depth: Int, closedByBrace: Bool) throws -> PlistDictionary {
            let start = position - (closedByBrace ? 1 : 0)
            var dictionary: PlistDictionary = [:]
            while true {
                guard try skipWhitespaceAndComments() else {
                    if closedByBrace {
                        throw failure("the dictionary that starts here has no closing '}'", at: start)
                    }
                    return dictionary
                }
                if closedByBrace, byte(at: position) == UInt8(ascii: "}") {
                    position += 1
                    return dictionary
                }
                let key = try parseKey(closedByBrace: closedByBrace)
                guard try skipWhitespaceAndComments() else {
                    throw failure("the input ends after the key \"\(key)\"; expected '=' or ';'", at: position)
                }
                switch byte(at: position) {
                case UInt8(ascii: ";"):
                    // `key;` means `key = key;`, as in `.strings` files.
                    try countObject()
                    dictionary[key] = .string(key)
                case UInt8(ascii: "="):
                    position += 1
                    guard try skipWhitespaceAndComments() else {
                        throw failure("the input ends where the value for \"\(key)\" was expected", at: position)
                    }
                    let value = try parseValue(depth: depth)
                    dictionary[key] = value
                    guard try skipWhitespaceAndComments() else {
                        throw failure("the input ends after the value for \"\(key)\"; expected ';'", at: position)
                    }
                    guard byte(at: position) == UInt8(ascii: ";") else {
                        throw unexpectedCharacter(at: position, expecting: "';' after the value for \"\(key)\"")
                    }
                default:
                    throw unexpectedCharacter(at: position, expecting: "'=' or ';' after the key \"\(key)\"")
                }
                position += 1
            }
        }

        /// Parses a dictionary key: a quoted or unquoted string.
        private mutating func parseKey(closedByBrace: Bool) throws -> String {
            try countObject()
            guard let first = byte(at: position) else {
                throw failure("the input ends where a key was expected", at: position)
            }
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") { return try parseQuotedString() }
            if Self.isUnquotedStringByte(first) { return parseUnquotedString() }
            throw unexpectedCharacter(at: position, expecting: closedByBrace ? "a key or '}'" : "a key")
        }

        /// Parses array elements up to `)`; a comma may follow the last element.
        mutating func parseArrayBody(depth: Int) throws -> [PlistValue] {
            let start = position - 1
            var elements: [PlistValue] = []
            while true {
                guard try skipWhitespaceAndComments() else {
                    throw failure("the array that starts here has no closing ')'", at: start)
                }
                if byte(at: position) == UInt8(ascii: ")") {
                    position += 1
                    return elements
                }
                elements.append(try parseValue(depth: depth))
                guard try skipWhitespaceAndComments() else {
                    throw failure("the array that starts here has no closing ')'", at: start)
                }
                switch byte(at: position) {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: ")"):
                    position += 1
                    return elements
                default: throw unexpectedCharacter(at: position, expecting: "',' or ')' after an array element")
                }
            }
        }

        private mutating func countObject() throws {
            objectCount += 1
            guard objectCount <= limits.maxObjectCount else {
                throw PlistError(
                    .limitExceeded, "more than \(limits.maxObjectCount) objects (the object-count limit)",
                    at: textPosition(of: position))
            }
        }

        private func checkDepth(_ depth: Int) throws {
            guard depth <= limits.maxDepth else {
                throw PlistError(
                    .limitExceeded, "containers nested more than \(limits.maxDepth) deep (the depth limit)",
                    at: textPosition(of: position))
            }
        }
    }
}

extension OpenStepPlistReader.Parser {
    /// Skips white space (including U+2028 and U+2029) and comments. Returns `false` at the end of
    /// the input, `true` when `position` is at another character.
    mutating func skipWhitespaceAndComments() throws -> Bool {
        while position < text.count {
            let current = text[position]
            switch current {
            case 0x09...0x0D, UInt8(ascii: " "):
                position += 1
            case 0xE2 where isLineOrParagraphSeparator(at: position):
                position += 3
            case UInt8(ascii: "/"):
                switch byte(at: position + 1) {
                case UInt8(ascii: "/"): try skipLineComment()
                case UInt8(ascii: "*"): try skipBlockComment()
                default: return true  // `/` starts an unquoted string such as `/usr/bin`.
                }
            default:
                return true
            }
        }
        return false
    }

    /// True when U+2028 or U+2029 (`E2 80 A8` / `E2 80 A9`) starts at `offset`.
    func isLineOrParagraphSeparator(at offset: Int) -> Bool {
        byte(at: offset) == 0xE2 && byte(at: offset + 1) == 0x80
            && (byte(at: offset + 2) == 0xA8 || byte(at: offset + 2) == 0xA9)
    }

    private mutating func skipLineComment() throws {
        let start = position
        position += 2
        var nonASCII: UInt8 = 0
        while position < text.count {
            let current = text[position]
            if current == UInt8(ascii: "\n") || current == UInt8(ascii: "\r") { break }
            if current == 0xE2, isLineOrParagraphSeparator(at: position) { break }
            nonASCII |= current
            position += 1
        }
        if nonASCII >= 0x80 { try validateUTF8(from: start, to: position) }
    }

    private mutating func skipBlockComment() throws {
        let start = position
        position += 2
        var nonASCII: UInt8 = 0
        while position < text.count {
            let current = text[position]
            if current == UInt8(ascii: "*"), byte(at: position + 1) == UInt8(ascii: "/") {
                position += 2
                if nonASCII >= 0x80 { try validateUTF8(from: start, to: position) }
                return
            }
            nonASCII |= current
            position += 1
        }
        throw failure("the comment that starts here has no closing '*/'", at: start)
    }

    /// Throws `invalidEncoding` at the first byte in `start..<end` that is not part of valid UTF-8.
    func validateUTF8(from start: Int, to end: Int) throws {
        var iterator = UnsafeBufferPointer(rebasing: text[start..<end]).makeIterator()
        var decoder = UTF8()
        var offset = start
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return
            case .error: throw invalidByte(at: offset)
            }
        }
    }

    /// The error for a byte that is not valid UTF-8.
    func invalidByte(at offset: Int) -> PlistError {
        let value = byte(at: offset).map { "0x" + String($0, radix: 16, uppercase: true) } ?? "?"
        return PlistError(
            .invalidEncoding, "byte \(value) is not valid UTF-8", at: textPosition(of: offset))
    }

    /// A `malformed` error at `offset`.
    func failure(_ message: String, at offset: Int) -> PlistError {
        PlistError(.malformed, message, at: textPosition(of: offset))
    }

    /// The error for a character that cannot start what the grammar needs here.
    func unexpectedCharacter(at offset: Int, expecting expected: String) -> PlistError {
        guard let first = byte(at: offset) else {
            return failure("the input ends where \(expected) was expected", at: offset)
        }
        if first < 0x80 {
            let shown = first >= 0x20 && first < 0x7F ? "'\(Unicode.Scalar(first))'" : "control character"
            return failure("unexpected \(shown) (\(Self.codePoint(UInt32(first)))); expected \(expected)", at: offset)
        }
        var iterator = UnsafeBufferPointer(rebasing: text[offset...]).makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return invalidByte(at: offset) }
        let character = "'\(scalar)' (\(Self.codePoint(scalar.value)))"
        return failure(
            "unexpected \(character); expected \(expected) (only ASCII letters, digits and _$/:.- may appear "
                + "outside quotes)", at: offset)
    }

    /// `U+00E9`-style text for a code point.
    static func codePoint(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    func textPosition(of offset: Int) -> PlistError.Position {
        .text(ofByteOffset: offset, in: text)
    }
}
