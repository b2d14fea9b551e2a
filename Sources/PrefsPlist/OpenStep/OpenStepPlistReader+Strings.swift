// SPDX-License-Identifier: Apache-2.0
extension OpenStepPlistReader.Parser {
    /// Bit `n` is set when ASCII byte `n` (0–63) may appear in an unquoted string: `$ - . / 0-9 :`.
    private static let unquotedLowBits: UInt64 = 0x07FF_E010_0000_0000
    /// Bit `n` is set when ASCII byte `64 + n` may appear in an unquoted string: `A-Z _ a-z`.
    private static let unquotedHighBits: UInt64 = 0x07FF_FFFE_87FF_FFFE

    /// True for ASCII letters, digits and `_ $ / : . -`, the characters of an unquoted string.
    @inline(__always)
    static func isUnquotedStringByte(_ byte: UInt8) -> Bool {
        if byte < 64 { return unquotedLowBits >> UInt64(byte) & 1 != 0 }
        if byte < 128 { return unquotedHighBits >> UInt64(byte - 64) & 1 != 0 }
        return false
    }

    /// Reads an unquoted string; `position` is at its first character.
    mutating func parseUnquotedString() -> String {
        let start = position
        while position < text.count, Self.isUnquotedStringByte(text[position]) { position += 1 }
        // The bytes are ASCII, so decoding cannot fail or substitute anything.
        return String(decoding: UnsafeBufferPointer(rebasing: text[start..<position]), as: UTF8.self)
    }

    /// Reads a string in double or single quotes with its escapes; `position` is at the quote.
    mutating func parseQuotedString() throws -> String {
        let openingQuote = position
        let quote = text[position]
        position += 1
        let start = position
        var combined: UInt8 = 0
        // Fast path: no escapes, so the string is the bytes between the quotes.
        while position < text.count {
            let current = text[position]
            if current == quote {
                position += 1
                let bytes = UnsafeBufferPointer(rebasing: text[start..<position - 1])
                if combined < 0x80 { return String(decoding: bytes, as: UTF8.self) }
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    try validateUTF8(from: start, to: position - 1)
                    throw invalidByte(at: start)
                }
                return string
            }
            if current == UInt8(ascii: "\\") { break }
            combined |= current
            position += 1
        }
        guard position < text.count else { throw unterminatedString(at: openingQuote) }
        return try parseEscapedString(quote: quote, openingQuote: openingQuote, start: start)
    }

    private func unterminatedString(at offset: Int) -> PlistError {
        failure("the quoted string that starts here has no closing quote", at: offset)
    }

    /// Continues a quoted string at its first backslash, collecting the text in `scratch`.
    private mutating func parseEscapedString(quote: UInt8, openingQuote: Int, start: Int) throws -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<position]))
        while true {
            guard position < text.count else { throw unterminatedString(at: openingQuote) }
            let current = text[position]
            if current == quote {
                position += 1
                break
            }
            if current != UInt8(ascii: "\\") {
                scratch.append(current)
                position += 1
                continue
            }
            let escapeStart = position
            position += 1
            guard position < text.count else { throw unterminatedString(at: openingQuote) }
            let escaped = text[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "a"): scratch.append(0x07)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "v"): scratch.append(0x0B)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                appendScalar(NeXTSTEPEncoding.scalar(for: readOctalEscape(firstDigit: escaped)))
            case UInt8(ascii: "U"):
                appendScalar(try readUnicodeEscape(escapeStart: escapeStart))
            default:
                // Any other escaped character stands for itself (`\"`, `\\`, `\'`, `\d`, a newline,
                // or the first byte of a non-ASCII character whose other bytes follow as usual).
                scratch.append(escaped)
            }
        }
        guard let string = String(validating: scratch, as: UTF8.self) else {
            try validateUTF8(from: openingQuote, to: position)
            throw invalidByte(at: openingQuote)
        }
        return string
    }

    /// Reads up to two more octal digits after `firstDigit`. The value wraps to 8 bits, as
    /// CoreFoundation's does (`\777` is byte 0xFF).
    private mutating func readOctalEscape(firstDigit: UInt8) -> UInt8 {
        var value = firstDigit &- UInt8(ascii: "0")
        for _ in 0..<2 {
            guard let digit = byte(at: position), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { break }
            value = value &<< 3 &+ (digit &- UInt8(ascii: "0"))
            position += 1
        }
        return value
    }

    /// Reads the 1–4 hexadecimal digits of a `\U` escape; `position` is just after the `U`.
    private mutating func readUTF16Unit(escapeStart: Int) throws -> UInt16 {
        var value: UInt16 = 0
        var digits = 0
        while digits < 4, let digit = byte(at: position).flatMap(Self.hexValue) {
            value = value << 4 | UInt16(digit)
            digits += 1
            position += 1
        }
        guard digits > 0 else {
            throw failure("'\\U' must be followed by 1 to 4 hexadecimal digits", at: escapeStart)
        }
        return value
    }

    /// Reads a `\U` escape, and a second one when the first is a high surrogate.
    private mutating func readUnicodeEscape(escapeStart: Int) throws -> Unicode.Scalar {
        let unit = try readUTF16Unit(escapeStart: escapeStart)
        if let scalar = Unicode.Scalar(unit) { return scalar }
        guard UTF16.isLeadSurrogate(unit), byte(at: position) == UInt8(ascii: "\\"),
            byte(at: position + 1) == UInt8(ascii: "U")
        else {
            throw failure(
                "the escape \\U\(String(unit, radix: 16)) is half of a UTF-16 surrogate pair with no other half",
                at: escapeStart)
        }
        let secondStart = position
        position += 2
        let trail = try readUTF16Unit(escapeStart: secondStart)
        guard UTF16.isTrailSurrogate(trail) else {
            throw failure(
                "the escape \\U\(String(unit, radix: 16)) is not followed by the low half of a surrogate pair",
                at: escapeStart)
        }
        let value = 0x10000 + (UInt32(unit - 0xD800) << 10 | UInt32(trail - 0xDC00))
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    private mutating func appendScalar(_ scalar: Unicode.Scalar) {
        if scalar.value < 0x80 {
            scratch.append(UInt8(scalar.value))
        } else {
            UTF8.encode(scalar) { scratch.append($0) }
        }
    }

    /// The value of an ASCII hexadecimal digit.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        default: nil
        }
    }
}
