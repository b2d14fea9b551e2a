// SPDX-License-Identifier: Apache-2.0
extension OpenStepPlistReader.Parser {
    /// Reads what starts with `<`: hex data, a GNUstep typed value `<*…>` or GNUstep base64 `<[…]>`.
    mutating func parseAngleBracketValue() throws -> PlistValue {
        let start = position
        position += 1
        switch byte(at: position) {
        case UInt8(ascii: "*"): return try parseGNUstepTypedValue(start: start)
        case UInt8(ascii: "["): return try parseGNUstepBase64(start: start)
        default: return .data(try parseHexData(start: start))
        }
    }

    /// Reads hex digits in pairs up to `>`; space, tab, newlines, U+2028 and U+2029 may separate pairs.
    private mutating func parseHexData(start: Int) throws -> [UInt8] {
        var data: [UInt8] = []
        while position < text.count {
            let current = text[position]
            if let high = Self.hexValue(current) {
                guard let low = byte(at: position + 1).flatMap(Self.hexValue) else {
                    throw failure("data has an odd number of hex digits (a digit pair is split)", at: position)
                }
                data.append(high << 4 | low)
                position += 2
                continue
            }
            switch current {
            case UInt8(ascii: ">"):
                position += 1
                return data
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                position += 1
            case 0xE2 where isLineOrParagraphSeparator(at: position):
                position += 3
            default:
                throw unexpectedCharacter(at: position, expecting: "a hex digit or '>' in data")
            }
        }
        throw failure("the data that starts here has no closing '>'", at: start)
    }

    /// Reads GNUstep base64 data, `<[` base64 `]>`; `position` is at the `[`.
    private mutating func parseGNUstepBase64(start: Int) throws -> PlistValue {
        position += 1
        let contentStart = position
        while position < text.count, text[position] != UInt8(ascii: "]") { position += 1 }
        guard position < text.count, byte(at: position + 1) == UInt8(ascii: ">") else {
            throw failure("the base64 data that starts here has no closing ']>'", at: start)
        }
        let content = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[contentStart..<position]))
        guard let data = Base64.decode(content) else {
            throw failure("the base64 data that starts here is not valid base64", at: start)
        }
        position += 2
        return .data(data)
    }

    /// Reads `<*I…>`, `<*R…>`, `<*B…>` or `<*D…>`; `position` is at the `*`.
    private mutating func parseGNUstepTypedValue(start: Int) throws -> PlistValue {
        position += 1
        guard let type = byte(at: position) else {
            throw failure("the input ends inside a GNUstep typed value", at: start)
        }
        position += 1
        let contentStart = position
        while position < text.count, text[position] != UInt8(ascii: ">") { position += 1 }
        guard position < text.count else {
            throw failure("the GNUstep typed value that starts here has no closing '>'", at: start)
        }
        let content = UnsafeBufferPointer(rebasing: text[contentStart..<position])
        position += 1
        let contentText = String(decoding: content, as: UTF8.self)
        switch type {
        case UInt8(ascii: "I"):
            guard let integer = Self.parseInteger(content) else {
                throw failure("<*I\(contentText)> is not an integer in the 64-bit range", at: start)
            }
            return .integer(integer)
        case UInt8(ascii: "R"):
            guard !content.isEmpty, content.allSatisfy(Self.isRealTextByte), let real = Double(contentText) else {
                throw failure("<*R\(contentText)> is not a real number", at: start)
            }
            return .real(real)
        case UInt8(ascii: "B"):
            switch contentText {
            case "Y": return .bool(true)
            case "N": return .bool(false)
            default: throw failure("<*B\(contentText)> is not a boolean; expected <*BY> or <*BN>", at: start)
            }
        case UInt8(ascii: "D"):
            guard let date = PlistDate(defaultsText: contentText) else {
                throw failure("<*D\(contentText)> is not a date like <*D2011-11-28 09:21:30 +0000>", at: start)
            }
            return .date(date)
        default:
            throw failure("unknown GNUstep typed value '<*\(Unicode.Scalar(type))'; expected I, R, B or D", at: start)
        }
    }

    /// Digits, letters (for `inf`, `nan` and exponents), signs and the decimal point.
    private static func isRealTextByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    /// Parses an optionally signed decimal integer in `Int64.min ... UInt64.max`.
    static func parseInteger(_ digits: UnsafeBufferPointer<UInt8>) -> PlistInteger? {
        var index = 0
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            index = 1
        }
        guard index < digits.count else { return nil }
        var magnitude: UInt64 = 0
        while index < digits.count {
            let digit = digits[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }
        if !negative { return PlistInteger(magnitude) }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return PlistInteger(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
    }
}
