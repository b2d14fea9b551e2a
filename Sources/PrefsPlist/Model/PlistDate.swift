// SPDX-License-Identifier: Apache-2.0
/// A point in time as property lists store it: seconds since 2001-01-01 00:00:00 UTC.
///
/// This is CoreFoundation's `CFAbsoluteTime`. The binary format stores the same `Double`, so
/// any value, including infinities and NaN, survives a binary round trip. Text formats write
/// whole seconds in the proleptic Gregorian calendar (as CoreFoundation does), in UTC.
///
/// Equality compares the bit pattern, like ``PlistValue``'s reals.
public struct PlistDate: Sendable, Hashable, Comparable {
    /// Seconds since 2001-01-01 00:00:00 UTC.
    public var secondsSinceReferenceDate: Double

    /// Seconds between 1970-01-01 and 2001-01-01.
    public static let unixEpochOffset: Double = 978_307_200

    /// Creates a date from seconds since 2001-01-01 00:00:00 UTC.
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// Creates a date from seconds since 1970-01-01 00:00:00 UTC.
    public init(secondsSince1970: Double) {
        self.secondsSinceReferenceDate = secondsSince1970 - Self.unixEpochOffset
    }

    /// Seconds since 1970-01-01 00:00:00 UTC.
    public var secondsSince1970: Double { secondsSinceReferenceDate + Self.unixEpochOffset }

    public static func == (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate.bitPattern == rhs.secondsSinceReferenceDate.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSinceReferenceDate.bitPattern)
    }

    public static func < (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }
}

extension PlistDate {
    /// A calendar breakdown in UTC, proleptic Gregorian, of the whole second at or before the date.
    public struct Components: Sendable, Hashable {
        /// The year; 0 is 1 BC, negative years continue backwards.
        public var year: Int64
        /// The month, 1–12.
        public var month: Int
        /// The day of the month, 1–31.
        public var day: Int
        /// The hour, 0–23.
        public var hour: Int
        /// The minute, 0–59.
        public var minute: Int
        /// The second, 0–59.
        public var second: Int
    }

    /// The UTC calendar fields, or `nil` when the date is not finite or too far out to name a year.
    public var components: Components? {
        let value = secondsSinceReferenceDate
        // ±2^53 s is ~285 million years: past that, whole seconds are no longer exact anyway.
        guard value.isFinite, abs(value) < 9.0e15 else { return nil }
        let whole = Int64(value.rounded(.down))
        let unixSeconds = whole + Int64(Self.unixEpochOffset)
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = Int(unixSeconds - days * 86_400)
        let (year, month, day) = Self.civilDate(fromDaysSince1970: days)
        return Components(
            year: year, month: month, day: day,
            hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
    }

    /// Creates a date from UTC calendar fields. Out-of-range fields carry over, as Apple's reader
    /// does: day 32 of January is February 1, hour 24 is the next day.
    public init(components: Components) {
        let monthIndex = Int64(components.month) - 1
        let year = components.year + (monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12)
        let month = Int(monthIndex - (year - components.year) * 12) + 1
        let days = Self.daysSince1970(year: year, month: month, day: 1) + Int64(components.day) - 1
        // The day count times 86,400 is added in floating point: for a year of 12 digits, which the text readers
        // accept, it is more seconds than Int64 holds (such a date has no calendar form, as `components` says).
        let secondOfDay = Int64(components.hour) * 3600 + Int64(components.minute) * 60 + Int64(components.second)
        self.init(secondsSince1970: Double(days) * 86_400 + Double(secondOfDay))
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysSince1970(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01.
    static func civilDate(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension PlistDate {
    /// The date as XML property lists write it: `2004-10-26T10:33:33Z` (UTC, whole seconds).
    ///
    /// Returns `nil` for a date that has no calendar form (infinite, NaN, or beyond ±285 million
    /// years); XML and OpenStep cannot hold such a date.
    public var iso8601String: String? {
        guard let c = components else { return nil }
        return "\(Self.yearText(c.year))-\(Self.twoDigits(c.month))-\(Self.twoDigits(c.day))T"
            + "\(Self.twoDigits(c.hour)):\(Self.twoDigits(c.minute)):\(Self.twoDigits(c.second))Z"
    }

    /// The date as macOS `defaults read` prints it: `2004-10-26 10:33:33 +0000`.
    public var defaultsString: String? {
        guard let c = components else { return nil }
        return "\(Self.yearText(c.year))-\(Self.twoDigits(c.month))-\(Self.twoDigits(c.day)) "
            + "\(Self.twoDigits(c.hour)):\(Self.twoDigits(c.minute)):\(Self.twoDigits(c.second)) +0000"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` as Apple's XML reader does: a leading sign on the year is
    /// allowed, fields may carry over (`2024-01-32` is February 1), and the time part may be
    /// shortened (`2024-01-02`, `2024-01-02T03`, `2024-01-02T03:04`). Returns `nil` otherwise.
    public init?(iso8601 text: some StringProtocol) {
        var scanner = DateFieldScanner(text.utf8)
        guard let year = scanner.signedNumber(), year.digits >= 1 else { return nil }
        var fields = [Int64](repeating: 0, count: 5)
        fields[1] = 1  // day defaults to 1 when missing
        fields[0] = 1
        let separators: [UInt8] = [
            UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"),
            UInt8(ascii: ":"), UInt8(ascii: ":"),
        ]
        var index = 0
        while index < 5, scanner.take(separators[index]) {
            guard let field = scanner.unsignedNumber(maxDigits: 2) else { return nil }
            fields[index] = field
            index += 1
        }
        guard index >= 2 else { return nil }
        if index == 5, scanner.take(UInt8(ascii: ".")) {
            _ = scanner.unsignedNumber(maxDigits: 18)  // fractional seconds are dropped, as Apple does
        }
        _ = scanner.take(UInt8(ascii: "Z"))
        guard scanner.isAtEnd else { return nil }
        self.init(
            components: Components(
                year: year.value, month: Int(fields[0]), day: Int(fields[1]),
                hour: Int(fields[2]), minute: Int(fields[3]), second: Int(fields[4])))
    }

    /// Parses the `defaults` form `YYYY-MM-DD HH:MM:SS +0000` (any `±HHMM` offset).
    public init?(defaultsText text: some StringProtocol) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 || parts.count == 3,
            let base = PlistDate(iso8601: "\(parts[0])T\(parts[1])Z")
        else { return nil }
        var offsetSeconds = 0.0
        if parts.count == 3 {
            let zone = Array(parts[2].utf8)
            guard zone.count == 5, zone[0] == UInt8(ascii: "+") || zone[0] == UInt8(ascii: "-"),
                zone[1...].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            let digits = zone[1...].map { Int($0 - 0x30) }
            offsetSeconds = Double((digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60)
            if zone[0] == UInt8(ascii: "-") { offsetSeconds = -offsetSeconds }
        }
        self.init(secondsSinceReferenceDate: base.secondsSinceReferenceDate - offsetSeconds)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }

    private static func yearText(_ year: Int64) -> String {
        let magnitude = String(year.magnitude)
        let padded = String(repeating: "0", count: max(0, 4 - magnitude.count)) + magnitude
        return year < 0 ? "-" + padded : padded
    }
}

/// Reads the numeric fields of a date string.
private struct DateFieldScanner<Bytes: Collection<UInt8>> {
    private let bytes: Bytes
    private var index: Bytes.Index

    init(_ bytes: Bytes) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var isAtEnd: Bool { index == bytes.endIndex }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index != bytes.endIndex, bytes[index] == byte else { return false }
        bytes.formIndex(after: &index)
        return true
    }

    mutating func unsignedNumber(maxDigits: Int) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        while index != bytes.endIndex, digits < maxDigits, case let byte = bytes[index], byte >= 0x30, byte <= 0x39 {
            value = value * 10 + Int64(byte - 0x30)
            digits += 1
            bytes.formIndex(after: &index)
        }
        return digits == 0 ? nil : value
    }

    mutating func signedNumber() -> (value: Int64, digits: Int)? {
        let negative = take(UInt8(ascii: "-"))
        if !negative { _ = take(UInt8(ascii: "+")) }
        var value: Int64 = 0
        var digits = 0
        while index != bytes.endIndex, digits < 12, case let byte = bytes[index], byte >= 0x30, byte <= 0x39 {
            value = value * 10 + Int64(byte - 0x30)
            digits += 1
            bytes.formIndex(after: &index)
        }
        return digits == 0 ? nil : (negative ? -value : value, digits)
    }
}
