// SPDX-License-Identifier: Apache-2.0
/// Reads GLib's GVariant text format as `g_variant_parse` does, in two steps: the text becomes a tree of ``Node``s
/// (this file), whose types are then inferred and whose values are built (`GVariantParser+Values.swift`).
///
/// The tokens, the grammar, the escapes and the type inference follow GLib's `gvariant-parser.c`, so that what
/// `g_variant_print` writes reads back as the same value of the same type. The differences: no `%` positional
/// parameters (they exist only for `g_variant_new_parsed`), a NUL byte in the text is an error rather than its end,
/// a string escape that names no Unicode scalar (a surrogate, beyond U+10FFFF) is an error rather than invalid
/// UTF-8, and a subnormal double is accepted. Nesting is bounded by ``GVariantType/maxDepth``, as in GLib, so a
/// deeply nested text is an error, never a stack overflow.
struct GVariantParser {
    /// A parsed value before its type is known.
    struct Node {
        indirect enum Kind {
            case array([Node])
            case tuple([Node])
            case variant(Node)
            /// A dictionary, `{k: v, …}` or `{}`.
            case dictionary(keys: [Node], values: [Node])
            /// A dictionary entry alone, `{k, v}`.
            case entry(key: Node, value: Node)
            /// A string's decoded text (for `s`, `o` or `g`).
            case string(String)
            /// A byte string's bytes, with the terminating NUL `b'…'` stands for.
            case byteString([UInt8])
            /// A number's token, read when its type is known.
            case number([UInt8])
            case boolean(Bool)
            /// `just <value>` or `nothing`.
            case maybe(Node?)
            /// `@type value` or `keyword value`.
            case typeDeclaration(GVariantType, Node)
        }

        var kind: Kind
        /// Where the node is in the text, from its first token to its last.
        var range: Range<Int>
    }

    let bytes: [UInt8]
    /// Where the next token is looked for.
    var position = 0
    /// The token at hand, once looked at; `nil` after it is consumed. An empty range is the end of the text.
    var token: Range<Int>?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses the whole text as one value.
    mutating func parseWhole() throws(GVariantError) -> GVariant {
        if let nul = bytes.firstIndex(of: 0) { throw GVariantError(.syntax, "NUL character in the text", at: nul) }
        let node = try parse(depthLeft: GVariantType.maxDepth)
        let value = try resolve(node)
        var end = token?.lowerBound ?? position
        while end < bytes.count, Self.isSpace(bytes[end]) { end += 1 }
        if end < bytes.count { throw GVariantError(.syntax, "expected end of input", at: end) }
        return value
    }

    // MARK: Tokens

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool { isAlpha(byte) || isDigit(byte) }

    /// Finds the token at hand (GLib's `token_stream_prepare`).
    /// - Returns: Whether there is one before the end of the text.
    @discardableResult
    mutating func prepare() -> Bool {
        if let token { return !token.isEmpty }
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        let start = position
        guard start < bytes.count else {
            token = start..<start
            return false
        }
        var end = start + 1
        let first = bytes[start]
        switch first {
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            end = start
            while end < bytes.count,
                Self.isAlphanumeric(bytes[end]) || bytes[end] == UInt8(ascii: "-") || bytes[end] == UInt8(ascii: "+")
                    || bytes[end] == UInt8(ascii: ".")
            {
                end += 1
            }
        case UInt8(ascii: "b")
        where start + 1 < bytes.count
            && (bytes[start + 1] == UInt8(ascii: "'") || bytes[start + 1] == UInt8(ascii: "\"")):
            end = Self.endOfQuoted(bytes, from: start + 2, quote: bytes[start + 1])
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            end = start
            while end < bytes.count, Self.isAlphanumeric(bytes[end]) { end += 1 }
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            end = Self.endOfQuoted(bytes, from: start + 1, quote: first)
        case UInt8(ascii: "@"), UInt8(ascii: "%"):
            // A type declaration ends at a space, a comma, a colon, '>' or ']', or a bracket it did not open.
            var brackets = 0
            while end < bytes.count {
                let byte = bytes[end]
                if Self.isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "]")
                {
                    break
                }
                if byte == UInt8(ascii: "(") || byte == UInt8(ascii: "{") {
                    brackets += 1
                } else if byte == UInt8(ascii: ")") || byte == UInt8(ascii: "}") {
                    if brackets == 0 { break }
                    brackets -= 1
                }
                end += 1
            }
        default:
            break
        }
        token = start..<end
        position = end
        return true
    }

    /// The end of a quoted token whose text starts at `start`: past the closing quote, or the end of the text
    /// when it is not closed (which the string's decoding reports).
    static func endOfQuoted(_ bytes: [UInt8], from start: Int, quote: UInt8) -> Int {
        var end = start
        while end < bytes.count {
            if bytes[end] == quote { return end + 1 }
            if bytes[end] == UInt8(ascii: "\\") {
                end += 1
                if end == bytes.count { break }
            }
            end += 1
        }
        return bytes.count
    }

    /// The token at hand's bytes (empty at the end of the text).
    mutating func tokenBytes() -> ArraySlice<UInt8> {
        prepare()
        return bytes[token!]
    }

    /// Where the token at hand starts.
    mutating func tokenStart() -> Int {
        prepare()
        return token!.lowerBound
    }

    mutating func next() { token = nil }

    /// Whether the token at hand starts with `character` (GLib's `token_stream_peek`).
    mutating func starts(with character: Unicode.Scalar) -> Bool {
        tokenBytes().first == UInt8(ascii: character)
    }

    /// Whether the token at hand is `text` (GLib's `token_stream_peek_string`).
    mutating func peek(_ text: String) -> Bool {
        tokenBytes().elementsEqual(text.utf8)
    }

    mutating func consume(_ text: String) -> Bool {
        guard peek(text) else { return false }
        next()
        return true
    }

    mutating func require(_ text: String, _ purpose: String) throws(GVariantError) {
        guard consume(text) else {
            throw GVariantError(.syntax, "expected '\(text)'\(purpose)", at: tokenStart())
        }
    }

    /// A word of two letters or more: a keyword, or an unknown one.
    mutating func isKeyword() -> Bool {
        let token = tokenBytes()
        return token.count >= 2 && Self.isAlpha(token[token.startIndex]) && Self.isAlpha(token[token.startIndex + 1])
    }

    /// `b'…'` or `b"…"`.
    mutating func isByteString() -> Bool {
        let token = tokenBytes()
        guard token.count >= 2, token[token.startIndex] == UInt8(ascii: "b") else { return false }
        let quote = token[token.startIndex + 1]
        return quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"")
    }

    mutating func isNumeric() -> Bool {
        guard let first = tokenBytes().first else { return false }
        return Self.isDigit(first) || first == UInt8(ascii: "-") || first == UInt8(ascii: "+")
            || first == UInt8(ascii: ".")
    }

    // MARK: Grammar

    /// Parses one value (GLib's `parse`).
    /// - Parameter depthLeft: How many levels of nesting may still follow; at 0 the text is too deep.
    mutating func parse(depthLeft: Int) throws(GVariantError) -> Node {
        let start = tokenStart()
        guard depthLeft > 0 else {
            throw GVariantError(
                .tooDeep, "value nested too deeply (more than \(GVariantType.maxDepth) levels)", at: start)
        }
        let kind: Node.Kind
        if starts(with: "[") {
            kind = try parseArray(depthLeft: depthLeft)
        } else if starts(with: "(") {
            kind = try parseTuple(depthLeft: depthLeft)
        } else if starts(with: "<") {
            next()
            let value = try parse(depthLeft: depthLeft - 1)
            try require(">", " to follow variant value")
            kind = .variant(value)
        } else if starts(with: "{") {
            kind = try parseDictionary(depthLeft: depthLeft)
        } else if consume("true") {
            kind = .boolean(true)
        } else if consume("false") {
            kind = .boolean(false)
        } else if isNumeric() || peek("inf") || peek("nan") {
            kind = .number(Array(tokenBytes()))
            next()
        } else if starts(with: "n") || starts(with: "j") {
            kind = try parseMaybe(depthLeft: depthLeft)
        } else if starts(with: "@") || isKeyword() {
            kind = try parseTypeDeclaration(depthLeft: depthLeft)
        } else if starts(with: "'") || starts(with: "\"") {
            kind = .string(try decodeString())
            next()
        } else if isByteString() {
            kind = .byteString(try decodeByteString())
            next()
        } else {
            throw GVariantError(.syntax, "expected value", at: start)
        }
        return Node(kind: kind, range: start..<position)
    }

    mutating func parseArray(depthLeft: Int) throws(GVariantError) -> Node.Kind {
        next()
        var children: [Node] = []
        while !consume("]") {
            if !children.isEmpty { try require(",", " or ']' to follow array element") }
            children.append(try parse(depthLeft: depthLeft - 1))
        }
        return .array(children)
    }

    mutating func parseTuple(depthLeft: Int) throws(GVariantError) -> Node.Kind {
        next()
        var children: [Node] = []
        while !consume(")") {
            if children.count > 1 { try require(",", " or ')' to follow tuple element") }
            children.append(try parse(depthLeft: depthLeft - 1))
            // The first element needs a comma after it, even alone: `(1,)`.
            if children.count == 1 { try require(",", " after first tuple element") }
        }
        return .tuple(children)
    }

    mutating func parseDictionary(depthLeft: Int) throws(GVariantError) -> Node.Kind {
        next()
        if consume("}") { return .dictionary(keys: [], values: []) }
        var keys = [try parse(depthLeft: depthLeft - 1)]
        let alone = consume(",")
        if !alone { try require(":", " or ',' to follow dictionary entry key") }
        var values = [try parse(depthLeft: depthLeft - 1)]
        if alone {
            try require("}", " at end of dictionary entry")
            return .entry(key: keys[0], value: values[0])
        }
        while !consume("}") {
            try require(",", " or '}' to follow dictionary entry")
            keys.append(try parse(depthLeft: depthLeft - 1))
            try require(":", " to follow dictionary entry key")
            values.append(try parse(depthLeft: depthLeft - 1))
        }
        return .dictionary(keys: keys, values: values)
    }

    mutating func parseMaybe(depthLeft: Int) throws(GVariantError) -> Node.Kind {
        if consume("just") { return .maybe(try parse(depthLeft: depthLeft - 1)) }
        if consume("nothing") { return .maybe(nil) }
        throw unknownKeyword()
    }

    mutating func unknownKeyword() -> GVariantError {
        let word = String(decoding: tokenBytes().prefix(40), as: UTF8.self)
        return GVariantError(.unknownKeyword, "unknown keyword '\(word)'", at: tokenStart())
    }

    static let keywordTypes: [(String, GVariantType)] = [
        ("boolean", .boolean), ("byte", .byte), ("int16", .int16), ("uint16", .uint16), ("int32", .int32),
        ("handle", .handle), ("uint32", .uint32), ("int64", .int64), ("uint64", .uint64), ("double", .double),
        ("string", .string), ("objectpath", .objectPath), ("signature", .signature),
    ]

    mutating func parseTypeDeclaration(depthLeft: Int) throws(GVariantError) -> Node.Kind {
        let type: GVariantType
        if starts(with: "@") {
            let text = tokenBytes().dropFirst()
            var index = text.startIndex
            var tooDeep = false
            let scanned = GVariantType.scan(
                text, at: &index, depthLimit: GVariantType.maxDepth, tooDeep: &tooDeep)
            guard let scanned, index == text.endIndex else {
                let shown = String(decoding: text.prefix(40), as: UTF8.self)
                if tooDeep {
                    throw GVariantError(.tooDeep, "type declaration @\(shown)… recurses too deeply", at: tokenStart())
                }
                throw GVariantError(
                    .typeMismatch, "invalid type declaration @\(shown) (a definite type is expected)",
                    at: tokenStart())
            }
            guard scanned.depth <= depthLeft else {
                throw GVariantError(.tooDeep, "type declaration recurses too deeply", at: tokenStart())
            }
            type = scanned
            next()
        } else if let match = Self.keywordTypes.first(where: { peek($0.0) }) {
            type = match.1
            next()
        } else {
            throw unknownKeyword()
        }
        return .typeDeclaration(type, try parse(depthLeft: depthLeft - 1))
    }

    // MARK: Strings

    /// The text of the string token at hand, its escapes decoded (GLib's `string_parse`): `\n` and the other C
    /// letters, `\uXXXX` and `\UXXXXXXXX`, a backslash before a line break joins the lines, and a backslash before
    /// anything else stands for that character.
    mutating func decodeString() throws(GVariantError) -> String {
        let start = tokenStart()
        let token = Array(tokenBytes())
        let quote = token[0]
        var decoded: [UInt8] = []
        decoded.reserveCapacity(token.count)
        var index = 1
        while true {
            guard index < token.count else {
                throw GVariantError(.syntax, "unterminated string constant", at: start)
            }
            let byte = token[index]
            if byte == quote { break }
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < token.count else { throw GVariantError(.syntax, "unterminated string constant", at: start) }
            let escaped = token[index]
            if escaped == UInt8(ascii: "u") || escaped == UInt8(ascii: "U") {
                let length = escaped == UInt8(ascii: "u") ? 4 : 8
                index += 1
                let digits = token[index..<min(index + length, token.count)]
                var scalarValue: UInt32 = 0
                var valid = digits.count == length
                for digit in digits {
                    guard let value = Self.hexValue(digit) else {
                        valid = false
                        break
                    }
                    scalarValue = scalarValue << 4 | UInt32(value)
                }
                guard valid, scalarValue != 0, let scalar = Unicode.Scalar(scalarValue) else {
                    throw GVariantError(
                        .syntax, "invalid \(length)-character unicode escape", at: start + index - 2)
                }
                decoded.append(contentsOf: String(Character(scalar)).utf8)
                index += length
                continue
            }
            if let control = Self.controlEscape(escaped) {
                decoded.append(control)
            } else if escaped != UInt8(ascii: "\n") {
                decoded.append(escaped)
            }
            index += 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else {
            throw GVariantError(.syntax, "a string that is not valid UTF-8", at: start)
        }
        return text
    }

    /// The bytes of the byte-string token at hand (GLib's `bytestring_parse`): the C letter escapes, up to three
    /// octal digits, and the NUL that ends a byte string; an escaped NUL ends it early, as in GLib.
    mutating func decodeByteString() throws(GVariantError) -> [UInt8] {
        let start = tokenStart()
        let token = Array(tokenBytes())
        let quote = token[1]
        var decoded: [UInt8] = []
        var index = 2
        while true {
            guard index < token.count else {
                throw GVariantError(.syntax, "unterminated string constant", at: start)
            }
            let byte = token[index]
            if byte == quote { break }
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < token.count else { throw GVariantError(.syntax, "unterminated string constant", at: start) }
            let escaped = token[index]
            if let octal = Self.octalValue(escaped) {
                var value = octal
                index += 1
                for _ in 0..<2 {
                    guard index < token.count, let more = Self.octalValue(token[index]) else { break }
                    value = value << 3 | more
                    index += 1
                }
                decoded.append(value)
                continue
            }
            if let control = Self.controlEscape(escaped) {
                decoded.append(control)
            } else if escaped != UInt8(ascii: "\n") {
                decoded.append(escaped)
            }
            index += 1
        }
        // `g_variant_new_bytestring` keeps the bytes up to the first NUL, and the NUL.
        if let nul = decoded.firstIndex(of: 0) { decoded.removeSubrange(nul...) }
        decoded.append(0)
        return decoded
    }

    /// The byte a C escape letter stands for (`n` → line feed, …), or `nil`.
    static func controlEscape(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "a"): 0x07
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        case UInt8(ascii: "v"): 0x0B
        default: nil
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func octalValue(_ byte: UInt8) -> UInt8? {
        (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte) ? byte - UInt8(ascii: "0") : nil
    }
}
