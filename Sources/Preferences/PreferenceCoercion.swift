// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PrefsPlist

/// The rules by which the typed getters read a stored value as another type (docs/PREFERENCES.md, "Coercion").
///
/// Each rule returns `nil` when the value cannot be read as the type; the `UserDefaults`-style getters turn that
/// into `0`, `false` or `nil`, typed keys into their default. Apple's documented rules are the reference: a Boolean
/// reads as 1 or 0, a real as the greatest integer not above it, a string holding a number as that number, and the
/// strings "YES", "true" and "1" as `true`.
enum PreferenceCoercion {
    /// The integer rule: integers as they are; `true`/`false` as 1/0; a real as the greatest integer not above it;
    /// a string holding a number (after trimming spaces) as that number, rounded down when it has a fraction.
    /// Nothing else, and no value outside `Int64.min ... UInt64.max`.
    static func integer(_ value: PlistValue) -> PlistInteger? {
        switch value {
        case .integer(let integer): return integer
        case .bool(let bool): return bool ? 1 : 0
        case .real(let real): return flooredInteger(real)
        case .string(let string): return integer(parsing: trimmed(Substring(string)))
        default: return nil
        }
    }

    /// The integer rule, as an `Int`.
    static func int(_ value: PlistValue) -> Int? {
        // The common case first, without building an intermediate value.
        if case .integer(let integer) = value { return integer.int64Value.map { Int($0) } }
        return integer(value).flatMap { $0.int64Value }.map { Int($0) }
    }

    /// The real rule: reals as they are; integers converted (rounded to the nearest double beyond 2^53);
    /// `true`/`false` as 1.0/0.0; a string that Swift's `Double(_:)` parses after trimming spaces.
    static func double(_ value: PlistValue) -> Double? {
        switch value {
        case .real(let real): return real
        case .integer(let integer): return integer.doubleValue
        case .bool(let bool): return bool ? 1 : 0
        case .string(let string): return Double(trimmed(Substring(string)))
        default: return nil
        }
    }

    /// The Boolean rule: Booleans as they are; a number is `true` when it is not zero (a NaN is not read);
    /// the strings "YES", "true" (any case) are `true`, "NO", "false" are `false`, and a string holding a number
    /// follows the number's rule. Nothing else.
    static func bool(_ value: PlistValue) -> Bool? {
        switch value {
        case .bool(let bool): return bool
        case .integer(let integer): return integer != 0
        case .real(let real): return real.isNaN ? nil : real != 0
        case .string(let string):
            let text = trimmed(Substring(string))
            switch text.lowercased() {
            case "yes", "true": return true
            case "no", "false": return false
            default:
                if let integer = integer(parsing: text) { return integer != 0 }
                if let real = Double(text), !real.isNaN { return real != 0 }
                return nil
            }
        default: return nil
        }
    }

    /// The string rule: strings as they are; integers in decimal; reals as `defaults read` prints them (`%.16g`:
    /// `2`, `0.5`, `1e+20`); `true`/`false` as "1"/"0", as `defaults read` prints them. Nothing else.
    static func string(_ value: PlistValue) -> String? {
        switch value {
        case .string(let string): return string
        case .integer(let integer): return integer.description
        case .real, .bool: return value.defaultsDescription
        default: return nil
        }
    }

    /// The URL rule: a string with a scheme is the URL it spells, whole (`https://host/a?b#c`); a string that is an
    /// absolute path, or starts with `~` (expanded to the home directory), is a file URL. Nothing else: a relative
    /// path would depend on the current directory.
    static func url(_ value: PlistValue) -> URL? {
        guard case .string(let string) = value, !string.isEmpty else { return nil }
        if string.hasPrefix("/") { return URL(fileURLWithPath: string) }
        if string == "~" || string.hasPrefix("~/") {
            guard let home = SystemInterface.homeDirectory() else { return nil }
            return URL(fileURLWithPath: home + string.dropFirst())
        }
        guard let url = URL(string: string), url.scheme != nil else { return nil }
        return url
    }

    /// The data rule: data only.
    static func data(_ value: PlistValue) -> Data? {
        guard case .data(let bytes) = value else { return nil }
        return Data(bytes)
    }

    /// The date rule: dates only.
    static func date(_ value: PlistValue) -> Date? {
        guard case .date(let date) = value else { return nil }
        return Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
    }

    /// The string-array rule (`stringArray(forKey:)`): an array whose elements are all strings. Numbers are not
    /// converted, as Apple documents.
    static func stringArray(_ value: PlistValue) -> [String]? {
        guard case .array(let elements) = value else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else { return nil }
            strings.append(string)
        }
        return strings
    }

    // MARK: Helpers

    /// The greatest integer not above a real, when it is in range.
    private static func flooredInteger(_ real: Double) -> PlistInteger? {
        guard real.isFinite else { return nil }
        let floored = real.rounded(.down)
        if let signed = Int64(exactly: floored) { return PlistInteger(signed) }
        if let unsigned = UInt64(exactly: floored) { return PlistInteger(unsigned) }
        return nil
    }

    /// Trimmed text as a whole decimal integer (optional sign), else as a real rounded down; `nil` for anything else.
    private static func integer(parsing text: Substring) -> PlistInteger? {
        if let signed = Int64(text) { return PlistInteger(signed) }
        if let unsigned = UInt64(text) { return PlistInteger(unsigned) }
        guard let real = Double(text) else { return nil }
        return flooredInteger(real)
    }

    /// The string without the spaces, tabs and line breaks around it.
    private static func trimmed(_ string: Substring) -> Substring {
        var text = string
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
