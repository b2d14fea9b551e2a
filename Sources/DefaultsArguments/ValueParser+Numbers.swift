// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The strict readings of `-date` and `-float`: a date that names a real instant, a finite double.
extension ValueParser {
    /// The example dates a `-date` usage error shows.
    static let dateExamples = "'2024-05-01 12:30:00 +0000', '2024-05-01T12:30:00Z' or '2024-05-01'"

    /// Reads a `-date` argument: `YYYY-MM-DD HH:MM:SS ±HHMM` (as `defaults read` prints dates), ISO 8601
    /// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or `±HH:MM` (or `±HHMM`), or `YYYY-MM-DD` (midnight UTC).
    ///
    /// Every field must be in range: years 0001–9999, months 01–12, a day the month has (February 29 only in a
    /// leap year), hours 00–23, minutes and seconds 00–59, an offset of at most 18 hours. A time without an offset
    /// is refused, since it names no instant.
    /// - Returns: The date, or the problem with the text.
    static func date(_ text: String) -> Result<PlistDate, ValueProblem> {
        let unknownFormat = ValueProblem("it is not in one of the formats")
        var scanner = FieldScanner(bytes: Array(trimmed(text).utf8))
        let yearDigits = scanner.bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        if yearDigits.count > 4, scanner.bytes.dropFirst(yearDigits.count).first == UInt8(ascii: "-") {
            return .failure(ValueProblem("year \(String(decoding: yearDigits, as: UTF8.self)) is not 0001–9999"))
        }
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2)
        else { return .failure(unknownFormat) }
        if let problem = checkDay(year: year, month: month, day: day) { return .failure(problem) }
        var secondOfDay = 0
        var offset = 0
        if !scanner.isAtEnd {
            // `T` starts an ISO 8601 time; one or more spaces the time `defaults read` prints.
            let isISO = scanner.take("T")
            guard isISO || scanner.skipSpaces(), let hour = scanner.digits(2), scanner.take(":"),
                let minute = scanner.digits(2)
            else { return .failure(unknownFormat) }
            var second = 0
            if scanner.take(":") {
                guard let seconds = scanner.digits(2) else { return .failure(unknownFormat) }
                second = seconds
                // Fractions of a second are dropped, as Apple's readers drop them.
                if isISO, scanner.take("."), !scanner.skipDigits() { return .failure(unknownFormat) }
            } else if !isISO {
                return .failure(unknownFormat)
            }
            if hour > 23 { return .failure(ValueProblem("hour \(hour) is not 00–23")) }
            if minute > 59 { return .failure(ValueProblem("minute \(minute) is not 00–59")) }
            if second > 59 { return .failure(ValueProblem("second \(second) is not 00–59")) }
            secondOfDay = hour * 3600 + minute * 60 + second
            if !isISO { _ = scanner.skipSpaces() }
            if scanner.isAtEnd { return .failure(ValueProblem("the time has no offset from UTC (+0000, or Z)")) }
            if !(isISO && scanner.take("Z")) {
                // `±HHMM`; ISO 8601 also writes `±HH:MM`.
                guard let sign = scanner.sign(), let hours = scanner.digits(2) else { return .failure(unknownFormat) }
                if isISO { _ = scanner.take(":") }
                guard let minutes = scanner.digits(2) else { return .failure(unknownFormat) }
                if minutes > 59 || hours * 60 + minutes > 18 * 60 {
                    return .failure(ValueProblem("the offset is not within ±18:00"))
                }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard scanner.isAtEnd else { return .failure(unknownFormat) }
        // The first ten bytes are a valid `YYYY-MM-DD`, which the plist reader takes as midnight UTC.
        guard let midnight = PlistDate(iso8601: String(decoding: scanner.bytes.prefix(10), as: UTF8.self)) else {
            return .failure(unknownFormat)
        }
        return .success(
            PlistDate(
                secondsSinceReferenceDate: midnight.secondsSinceReferenceDate + Double(secondOfDay - offset)))
    }

    /// Why a `-date` or `-float` argument was refused.
    struct ValueProblem: Error, Sendable {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The problem with a calendar date, or `nil` when the day exists.
    private static func checkDay(year: Int, month: Int, day: Int) -> ValueProblem? {
        if year < 1 { return ValueProblem("year \(year) is not 0001–9999") }
        if month < 1 || month > 12 { return ValueProblem("month \(month) is not 01–12") }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        let length = lengths[month - 1]
        if day < 1 || day > length {
            return ValueProblem("day \(day) is not 01–\(length) in that month")
        }
        return nil
    }

    /// Reads a `-float` argument: decimal digits with an optional sign, point and exponent, whose value is a finite
    /// double; `nan`, `inf`, hexadecimal and numbers beyond ±1.7976931348623157e308 (which would be stored as
    /// infinity) or too small to be told from 0 are refused.
    /// - Returns: The number, or why it was refused.
    static func real(_ text: String) -> Result<Double, ValueProblem> {
        let digits = trimmed(text)
        var scanner = FieldScanner(bytes: Array(digits.utf8))
        _ = scanner.sign()
        var mantissaIsZero = true
        var sawDigit = false
        while let digit = scanner.digit() {
            sawDigit = true
            if digit != 0 { mantissaIsZero = false }
        }
        if scanner.take(".") {
            while let digit = scanner.digit() {
                sawDigit = true
                if digit != 0 { mantissaIsZero = false }
            }
        }
        guard sawDigit else { return .failure(ValueProblem("it is not a decimal number")) }
        if scanner.take("e") || scanner.take("E") {
            _ = scanner.sign()
            guard scanner.skipDigits() else { return .failure(ValueProblem("it is not a decimal number")) }
        }
        guard scanner.isAtEnd, let value = Double(digits) else {
            return .failure(ValueProblem("it is not a decimal number"))
        }
        guard value.isFinite else {
            return .failure(ValueProblem("it is beyond the largest double, ±1.7976931348623157e308"))
        }
        if value == 0, !mantissaIsZero {
            return .failure(ValueProblem("it is too small for a double and would be stored as 0"))
        }
        return .success(value)
    }
}

/// Reads the fields of a date or number, byte by byte.
private struct FieldScanner {
    let bytes: [UInt8]
    var index = 0

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// One decimal digit.
    mutating func digit() -> Int? {
        guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
            return nil
        }
        index += 1
        return Int(bytes[index - 1] - UInt8(ascii: "0"))
    }

    /// One or more decimal digits; whether there was one.
    mutating func skipDigits() -> Bool {
        var any = false
        while digit() != nil { any = true }
        return any
    }

    /// One or more spaces; whether there was one.
    mutating func skipSpaces() -> Bool {
        var any = false
        while take(" ") { any = true }
        return any
    }

    /// `+` (1) or `-` (-1), or `nil` without a sign.
    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }
}
