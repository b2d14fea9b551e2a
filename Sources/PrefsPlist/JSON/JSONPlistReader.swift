// SPDX-License-Identifier: Apache-2.0
/// Reads JSON text (RFC 8259, strictly) into a property-list value, as `plutil` converts JSON.
///
/// Objects become dictionaries (a repeated key keeps its last value), arrays arrays, strings
/// strings, `true`/`false` booleans and `null` the ``PlistValue/null`` marker. A number without a
/// fraction or exponent that fits `Int64.min ... UInt64.max` becomes an integer; any other number
/// becomes a real, and a number too large for a real is an error.
///
/// The text is UTF-8, optionally after a byte-order mark; UTF-16 and UTF-32 (told apart by their
/// byte-order mark or zero bytes) are transcoded first. Positions in errors are lines and columns,
/// counting characters, so they do not depend on the encoding.
enum JSONPlistReader {
    /// Parses a JSON document.
    /// - Parameters:
    ///   - bytes: The whole document.
    ///   - limits: The size, depth and value-count bounds to enforce.
    /// - Returns: The document's value.
    /// - Throws: ``PlistError``: `malformed` for a syntax error, `invalidEncoding` for bytes that are
    ///   not valid text, `limitExceeded` when a limit is crossed; each with its line and column.
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded, "the input is \(bytes.count) bytes, more than the limit of \(limits.maxInputBytes)")
        }
        let (encoding, byteOrderMarkLength) = TextEncodingSniffer.detect(bytes)
        if encoding == .utf8 {
            var parser = JSONPlistParser(
                input: UnsafeRawBufferPointer(rebasing: bytes[byteOrderMarkLength...]), limits: limits)
            return try parser.parseDocument()
        }
        guard let transcoded = TextEncodingSniffer.utf8Bytes(of: bytes) else {
            throw invalidEncodingError(in: bytes, encoding: encoding, byteOrderMarkLength: byteOrderMarkLength)
        }
        return try transcoded.bytes.withUnsafeBytes { utf8 in
            var parser = JSONPlistParser(input: utf8, limits: limits)
            return try parser.parseDocument()
        }
    }

    /// The error for UTF-16 or UTF-32 text that does not decode, at the line and column where it
    /// stops decoding.
    private static func invalidEncodingError(
        in bytes: UnsafeRawBufferPointer, encoding: TextEncodingSniffer.Encoding, byteOrderMarkLength: Int
    ) -> PlistError {
        var line = 1
        var column = 1
        var previous: UInt32 = 0
        func advance(past scalar: UInt32) {
            switch scalar {
            case 0x0D,
                0x0A where previous != 0x0D:
                line += 1
                column = 1
            case 0x0A:
                break
            default:
                column += 1
            }
            previous = scalar
        }
        let unitSize = encoding.codeUnitSize
        var offset = byteOrderMarkLength
        let bigEndian = encoding == .utf16BigEndian || encoding == .utf32BigEndian
        func unit(at position: Int) -> UInt32 {
            (0..<unitSize).reduce(0) { value, index in
                value << 8 | UInt32(bytes[position + (bigEndian ? index : unitSize - 1 - index)])
            }
        }
        var reason = "a code unit is cut off at the end"
        decoding: while offset + unitSize <= bytes.count {
            let first = unit(at: offset)
            if unitSize == 4 {
                guard Unicode.Scalar(first) != nil else {
                    reason = "0x\(String(first, radix: 16, uppercase: true)) is not a Unicode scalar"
                    break decoding
                }
                advance(past: first)
                offset += 4
            } else if (0xD800...0xDBFF).contains(first) {
                guard offset + 4 <= bytes.count, (0xDC00...0xDFFF).contains(unit(at: offset + 2)) else {
                    reason = "a high surrogate is not followed by a low surrogate"
                    break decoding
                }
                advance(past: 0x10000)
                offset += 4
            } else if (0xDC00...0xDFFF).contains(first) {
                reason = "a low surrogate does not follow a high surrogate"
                break decoding
            } else {
                advance(past: first)
                offset += 2
            }
        }
        return PlistError(
            .invalidEncoding, "the input is not valid \(name(of: encoding)) text: \(reason)",
            at: .text(line: line, column: column))
    }

    private static func name(of encoding: TextEncodingSniffer.Encoding) -> String {
        switch encoding {
        case .utf8: "UTF-8"
        case .utf16BigEndian: "UTF-16 (big-endian)"
        case .utf16LittleEndian: "UTF-16 (little-endian)"
        case .utf32BigEndian: "UTF-32 (big-endian)"
        case .utf32LittleEndian: "UTF-32 (little-endian)"
        }
    }
}

/// A recursive-descent parser over UTF-8 bytes; recursion is bounded by `limits.maxDepth`.
private struct JSONPlistParser {
    private let input: UnsafeBufferPointer<UInt8>
    private let limits: PlistLimits
    private var index = 0
    private var depth = 0
    private var valueCount = 0
    /// Reused buffer for strings with escapes.
    private var scratch: [UInt8] = []

    init(input: UnsafeRawBufferPointer, limits: PlistLimits) {
        self.input = input.assumingMemoryBound(to: UInt8.self)
        self.limits = limits
    }

    mutating func parseDocument() throws -> PlistValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == input.count else { throw unexpected(at: index, expected: "the end of the input") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws -> PlistValue {
        guard index < input.count else { throw unexpected(at: index, expected: "a value") }
        try countValue()
        switch input[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpected(at: index, expected: "a value")
        }
    }

    private mutating func parseObject() throws -> PlistValue {
        let opening = index
        try enterContainer()
        index += 1
        var entries: PlistDictionary = [:]
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .dictionary(entries)
        }
        while true {
            guard index < input.count, input[index] == UInt8(ascii: "\"") else {
                if index < input.count, input[index] == UInt8(ascii: "}") {
                    throw PlistError(
                        .malformed, "a trailing comma is not allowed in an object", at: position(of: index))
                }
                throw unexpected(at: index, expected: "a string key", opening: opening)
            }
            try countValue()
            let key = try parseString()
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: ":") else {
                throw unexpected(at: index, expected: "':' after the key", opening: opening)
            }
            index += 1
            skipWhitespace()
            entries[key] = try parseValue()
            skipWhitespace()
            guard index < input.count else { throw unexpected(at: index, expected: "',' or '}'", opening: opening) }
            switch input[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .dictionary(entries)
            default:
                throw unexpected(at: index, expected: "',' or '}'", opening: opening)
            }
        }
    }

    private mutating func parseArray() throws -> PlistValue {
        let opening = index
        try enterContainer()
        index += 1
        var elements: [PlistValue] = []
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            if index < input.count, input[index] == UInt8(ascii: "]") {
                throw PlistError(.malformed, "a trailing comma is not allowed in an array", at: position(of: index))
            }
            elements.append(try parseValue())
            skipWhitespace()
            guard index < input.count else { throw unexpected(at: index, expected: "',' or ']'", opening: opening) }
            switch input[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw unexpected(at: index, expected: "',' or ']'", opening: opening)
            }
        }
    }

    private mutating func parseLiteral(_ word: StaticString) throws {
        let length = word.utf8CodeUnitCount
        let matches =
            input.count - index >= length
            && (0..<length).allSatisfy { input[index + $0] == word.utf8Start[$0] }
        guard matches else {
            throw PlistError(.malformed, "invalid literal: expected '\(word)'", at: position(of: index))
        }
        index += length
    }

    // MARK: Strings

    /// Parses the string starting at the opening quote at `index`.
    private mutating func parseString() throws -> String {
        let bodyStart = index + 1
        var cursor = bodyStart
        var hasEscapes = false
        var hasNonASCII = false
        while true {
            guard cursor < input.count else {
                throw PlistError(.malformed, "unterminated string", at: position(of: index))
            }
            let byte = input[cursor]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                cursor += 2  // the escaped character is checked when the escape is decoded
                continue
            }
            if byte < 0x20 {
                throw PlistError(
                    .malformed, "unescaped control character \(Self.scalarName(UInt32(byte))) in a string",
                    at: position(of: cursor))
            }
            if byte >= 0x80 { hasNonASCII = true }
            cursor += 1
        }
        let body = UnsafeBufferPointer(rebasing: input[bodyStart..<cursor])
        index = cursor + 1
        if hasEscapes { return try unescape(body, at: bodyStart) }
        if !hasNonASCII { return String(decoding: body, as: UTF8.self) }
        guard let string = String(validating: body, as: UTF8.self) else { throw invalidUTF8(in: body, at: bodyStart) }
        return string
    }

    /// Decodes the escapes of a string body that starts at input offset `offset`.
    private mutating func unescape(_ body: UnsafeBufferPointer<UInt8>, at offset: Int) throws -> String {
        scratch.removeAll(keepingCapacity: true)
        var cursor = 0
        while cursor < body.count {
            if body[cursor] != UInt8(ascii: "\\") {
                var runEnd = cursor + 1
                while runEnd < body.count, body[runEnd] != UInt8(ascii: "\\") { runEnd += 1 }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: body[cursor..<runEnd]))
                cursor = runEnd
                continue
            }
            guard cursor + 1 < body.count else {
                throw PlistError(.malformed, "unterminated escape in a string", at: position(of: offset + cursor))
            }
            let simple: UInt8? =
                switch body[cursor + 1] {
                case UInt8(ascii: "\""): UInt8(ascii: "\"")
                case UInt8(ascii: "\\"): UInt8(ascii: "\\")
                case UInt8(ascii: "/"): UInt8(ascii: "/")
                case UInt8(ascii: "b"): 0x08
                case UInt8(ascii: "f"): 0x0C
                case UInt8(ascii: "n"): 0x0A
                case UInt8(ascii: "r"): 0x0D
                case UInt8(ascii: "t"): 0x09
                default: nil
                }
            if let simple {
                scratch.append(simple)
                cursor += 2
                continue
            }
            guard body[cursor + 1] == UInt8(ascii: "u") else {
                throw PlistError(
                    .malformed,
                    "invalid escape in a string: \(describe(at: offset + cursor + 1)) cannot follow a backslash",
                    at: position(of: offset + cursor))
            }
            cursor = try decodeUnicodeEscape(body, at: cursor, offset: offset)
        }
        guard let string = String(validating: scratch, as: UTF8.self) else {
            // Escapes always produce whole scalars, so invalid output means invalid raw bytes.
            throw invalidUTF8(in: body, at: offset)
        }
        return string
    }

    /// Decodes `\uXXXX` (or a surrogate pair of them) at `cursor` into `scratch`; returns the
    /// position after it.
    private mutating func decodeUnicodeEscape(
        _ body: UnsafeBufferPointer<UInt8>, at cursor: Int, offset: Int
    ) throws -> Int {
        let unit = try hexQuad(body, at: cursor + 2, offset: offset)
        var scalarValue = UInt32(unit)
        var next = cursor + 6
        switch unit {
        case 0xD800...0xDBFF:
            guard next + 1 < body.count, body[next] == UInt8(ascii: "\\"), body[next + 1] == UInt8(ascii: "u"),
                case let low = try hexQuad(body, at: next + 2, offset: offset), (0xDC00...0xDFFF).contains(low)
            else {
                throw PlistError(
                    .malformed,
                    "lone surrogate \(Self.scalarName(UInt32(unit))) in a string: a high surrogate "
                        + "must be followed by a \\u escape of a low surrogate", at: position(of: offset + cursor))
            }
            scalarValue = 0x10000 + (UInt32(unit) - 0xD800) << 10 + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw PlistError(
                .malformed,
                "lone surrogate \(Self.scalarName(UInt32(unit))) in a string: a low surrogate "
                    + "must follow a high surrogate", at: position(of: offset + cursor))
        default:
            break
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw PlistError(.malformed, "invalid \\u escape in a string", at: position(of: offset + cursor))
        }
        UTF8.encode(scalar) { scratch.append($0) }
        return next
    }

    /// The value of four hex digits at `start` of `body`.
    private func hexQuad(_ body: UnsafeBufferPointer<UInt8>, at start: Int, offset: Int) throws -> UInt16 {
        var value: UInt16 = 0
        for position in start..<(start + 4) {
            let digit: UInt8? =
                if position >= body.count {
                    nil
                } else {
                    switch body[position] {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): body[position] - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): body[position] - UInt8(ascii: "a") + 10
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): body[position] - UInt8(ascii: "A") + 10
                    default: nil
                    }
                }
            guard let digit else {
                throw PlistError(
                    .malformed, "invalid \\u escape in a string: expected four hex digits",
                    at: self.position(of: offset + start - 2))
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// The error for the first invalid UTF-8 sequence in `bytes`, which start at input offset `offset`.
    private func invalidUTF8(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> PlistError {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var consumed = 0
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): consumed += encoded.count
            case .error: break loop
            case .emptyInput: break loop
            }
        }
        let byte = consumed < bytes.count ? bytes[consumed] : 0
        return PlistError(
            .invalidEncoding, "invalid UTF-8 byte 0x\(Self.hex(byte)) in a string", at: position(of: offset + consumed))
    }

    // MARK: Numbers

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }

    private mutating func parseNumber() throws -> PlistValue {
        let start = index
        var cursor = index
        let negative = input[cursor] == UInt8(ascii: "-")
        if negative { cursor += 1 }

        // Every digit goes into `significand` while it fits, for the exact fast paths below.
        var significand: UInt64 = 0
        var significantDigits = 0
        var significandInexact = false
        var fractionDigits = 0

        guard cursor < input.count, Self.isDigit(input[cursor]) else {
            throw unexpected(at: cursor, expected: "a digit in the number")
        }
        if input[cursor] == UInt8(ascii: "0") {
            cursor += 1
            if cursor < input.count, Self.isDigit(input[cursor]) {
                throw PlistError(.malformed, "a number cannot start with a leading zero", at: position(of: start))
            }
        } else {
            while cursor < input.count, Self.isDigit(input[cursor]) {
                let digit = UInt64(input[cursor] - UInt8(ascii: "0"))
                let (times10, overflow1) = significand.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(digit)
                if overflow1 || overflow2 {
                    significandInexact = true
                } else {
                    significand = sum
                    significantDigits += 1
                }
                cursor += 1
            }
        }
        var isInteger = true
        if cursor < input.count, input[cursor] == UInt8(ascii: ".") {
            isInteger = false
            cursor += 1
            guard cursor < input.count, Self.isDigit(input[cursor]) else {
                throw unexpected(at: cursor, expected: "a digit after the decimal point")
            }
            while cursor < input.count, Self.isDigit(input[cursor]) {
                if significantDigits < 19, !significandInexact {
                    significand = significand * 10 + UInt64(input[cursor] - UInt8(ascii: "0"))
                    if significand != 0 { significantDigits += 1 }
                    fractionDigits += 1
                } else {
                    significandInexact = true
                }
                cursor += 1
            }
        }
        var exponent = 0
        if cursor < input.count, input[cursor] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            cursor += 1
            var exponentNegative = false
            if cursor < input.count, input[cursor] == UInt8(ascii: "+") || input[cursor] == UInt8(ascii: "-") {
                exponentNegative = input[cursor] == UInt8(ascii: "-")
                cursor += 1
            }
            guard cursor < input.count, Self.isDigit(input[cursor]) else {
                throw unexpected(at: cursor, expected: "a digit in the exponent")
            }
            while cursor < input.count, Self.isDigit(input[cursor]) {
                exponent = min(exponent * 10 + Int(input[cursor] - UInt8(ascii: "0")), 1_000_000)
                cursor += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        index = cursor

        if isInteger, !significandInexact {
            if !negative { return .integer(PlistInteger(significand)) }
            if significand <= UInt64(Int64.max) { return .integer(PlistInteger(-Int64(significand))) }
            if significand == UInt64(Int64.max) + 1 { return .integer(PlistInteger(Int64.min)) }
        }
        // Exact when the significand and the power of ten are both exact doubles (Clinger's fast path).
        let decimalExponent = exponent - fractionDigits
        if !significandInexact, significand <= 1 << 53, decimalExponent.magnitude <= 22 {
            let power = Self.exactPowersOfTen[Int(decimalExponent.magnitude)]
            let magnitude = decimalExponent < 0 ? Double(significand) / power : Double(significand) * power
            return .real(negative ? -magnitude : magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<cursor]), as: UTF8.self)
        guard let real = Double(text), real.isFinite else {
            throw PlistError(.malformed, "the number \(text) is too large for a real", at: position(of: start))
        }
        return .real(real)
    }

    // MARK: Helpers

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private mutating func countValue() throws {
        valueCount += 1
        guard valueCount <= limits.maxObjectCount else {
            throw PlistError(
                .limitExceeded, "the document has more than \(limits.maxObjectCount) values and keys",
                at: position(of: index))
        }
    }

    private mutating func enterContainer() throws {
        depth += 1
        guard depth <= limits.maxDepth else {
            throw PlistError(
                .limitExceeded, "arrays and objects are nested deeper than \(limits.maxDepth) levels",
                at: position(of: index))
        }
    }

    /// The error for an unexpected character (or end of input) at `offset`.
    private func unexpected(
        at offset: Int, expected: String, opening: Int? = nil
    ) -> PlistError {
        guard offset < input.count else {
            var message = "unexpected end of input: expected \(expected)"
            if let opening {
                let kind = input[opening] == UInt8(ascii: "{") ? "object" : "array"
                message += "; the \(kind) opened at \(position(of: opening)) is not closed"
            }
            return PlistError(.malformed, message, at: position(of: offset))
        }
        return PlistError(
            .malformed, "unexpected \(describe(at: offset)): expected \(expected)", at: position(of: offset))
    }

    /// Names the character at `offset` for an error message.
    private func describe(at offset: Int) -> String {
        let byte = input[offset]
        if byte >= 0x20, byte < 0x7F { return "'\(Unicode.Scalar(byte))'" }
        if byte < 0x80 { return "control character \(Self.scalarName(UInt32(byte)))" }
        var iterator = UnsafeBufferPointer(rebasing: input[offset...]).makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        if case .valid(let encoded) = parser.parseScalar(from: &iterator) {
            let scalar = UTF8.decode(encoded)
            return "character '\(scalar)' (\(Self.scalarName(scalar.value)))"
        }
        return "byte 0x\(Self.hex(byte))"
    }

    private static func scalarName(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    private func position(of offset: Int) -> PlistError.Position {
        .text(ofByteOffset: offset, in: input)
    }
}
