// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// What one key of a domain may hold, and what it means: its type, default, range or choices, summary and
/// description (docs/SCHEMAS.md). ``DomainSchema`` keeps a domain's keys in one table, which the store checks prefsd's
/// settings against on every write, `defaults write` checks any domain's schema file against, and prefsd parses its
/// settings with.
package struct KeySchema: Sendable, Hashable {
    /// The key's type.
    package var type: SchemaType
    /// The value a program uses when no layer sets the key, as the schema documents it.
    package var defaultValue: PlistValue?
    /// The smallest value allowed (an integer or a real), for a numeric type.
    package var minimum: PlistValue?
    /// The largest value allowed (an integer or a real), for a numeric type.
    package var maximum: PlistValue?
    /// The values allowed; with a range too, these are allowed besides the range (0 for "never").
    package var choices: [PlistValue]
    /// Whether string choices match without regard to case.
    package var ignoresCase: Bool
    /// One line on what the key is.
    package var summary: String?
    /// A paragraph on what the key does.
    package var details: String?

    package init(
        _ type: SchemaType, default defaultValue: PlistValue? = nil, minimum: PlistValue? = nil,
        maximum: PlistValue? = nil, choices: [PlistValue] = [], ignoresCase: Bool = false, summary: String? = nil,
        details: String? = nil
    ) {
        self.type = type
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices
        self.ignoresCase = ignoresCase
        self.summary = summary
        self.details = details
    }

    /// A number of seconds, from `lowest` to `highest`; with `zeroMeansNever`, 0 is allowed too and means never.
    package static func seconds(_ range: ClosedRange<Double>, zeroMeansNever: Bool = false) -> KeySchema {
        KeySchema(
            .seconds, minimum: .real(range.lowerBound), maximum: .real(range.upperBound),
            choices: zeroMeansNever && range.lowerBound > 0 ? [0] : [])
    }

    /// An integer within `range`.
    package static func integer(_ range: ClosedRange<Int>) -> KeySchema {
        KeySchema(
            .integer, minimum: .integer(PlistInteger(Int64(range.lowerBound))),
            maximum: .integer(PlistInteger(Int64(range.upperBound))))
    }

    /// One of `words`, in any case.
    package static func word(_ words: [String]) -> KeySchema {
        KeySchema(.string, choices: words.map { .string($0) }, ignoresCase: true)
    }

    /// The same rule (type, range, choices, case), whatever the default and the texts.
    package func hasSameRule(as other: KeySchema) -> Bool {
        type == other.type && Self.sameNumber(minimum, other.minimum) && Self.sameNumber(maximum, other.maximum)
            && choices.count == other.choices.count
            && zip(choices, other.choices).allSatisfy { Self.sameNumber($0, $1) || $0 == $1 }
            && ignoresCase == other.ignoresCase
    }

    /// The integers the key may take, for an integer key with both bounds.
    package var integerRange: ClosedRange<Int>? {
        guard type == .integer, case .integer(let low)? = minimum, case .integer(let high)? = maximum,
            let lowest = low.int64Value, let highest = high.int64Value, lowest <= highest
        else { return nil }
        return Int(lowest)...Int(highest)
    }

    /// Whether `value` is one the key may hold.
    package func accepts(_ value: PlistValue) -> Bool {
        guard type.accepts(value) else { return false }
        if choices.contains(where: { matches(value, choice: $0) }) { return true }
        if minimum == nil && maximum == nil { return choices.isEmpty }
        if let minimum, let order = Self.compare(value, minimum), order < 0 { return false }
        if let maximum, let order = Self.compare(value, maximum), order > 0 { return false }
        return true
    }

    /// What the rule asks, completing "it …": `must be an integer from 1 to 65536`.
    package var requirement: String {
        let range: String? =
            switch (minimum, maximum) {
            case (let low?, let high?): "from \(Self.text(low)) to \(Self.text(high))"
            case (let low?, nil): "of at least \(Self.text(low))"
            case (nil, let high?): "of at most \(Self.text(high))"
            case (nil, nil): nil
            }
        let words = choices.map(Self.text)
        switch (words.isEmpty, range) {
        case (true, nil): return "must be \(type.phrase)"
        case (true, let range?): return "must be \(type.phrase) \(range)"
        case (false, nil) where words.count == 1: return "must be \(words[0])"
        case (false, nil): return "must be one of \(words.joined(separator: ", "))"
        case (false, let range?): return "must be \(words.joined(separator: " or ")) or \(type.phrase) \(range)"
        }
    }

    /// A number of seconds from an integer or a finite real.
    package static func seconds(_ value: PlistValue) -> Double? {
        switch value {
        case .integer(let integer): integer.int64Value.map(Double.init)
        case .real(let real) where real.isFinite: real
        default: nil
        }
    }

    /// Whether `value` is `choice`: equal, or, for strings when ``ignoresCase``, equal without regard to case; a
    /// number equals a choice of the same value whether integer or real.
    func matches(_ value: PlistValue, choice: PlistValue) -> Bool {
        if value == choice || Self.sameNumber(value, choice) { return true }
        guard ignoresCase, case .string(let text) = value, case .string(let word) = choice else { return false }
        return text.lowercased() == word.lowercased()
    }

    /// The order of two numbers (an integer or a real each): negative, 0 or positive; `nil` when either is not a
    /// number or is NaN. Two integers compare exactly.
    static func compare(_ left: PlistValue, _ right: PlistValue) -> Int? {
        if case .integer(let a) = left, case .integer(let b) = right, let x = a.int64Value, let y = b.int64Value {
            return x < y ? -1 : (x == y ? 0 : 1)
        }
        guard let x = number(left), let y = number(right), !x.isNaN, !y.isNaN else { return nil }
        return x < y ? -1 : (x == y ? 0 : 1)
    }

    private static func number(_ value: PlistValue) -> Double? {
        switch value {
        case .integer(let integer): integer.doubleValue
        case .real(let real): real
        default: nil
        }
    }

    /// Whether two values are the same: equal, or the same number whether integer or real (a default of `1` and one
    /// of `1.0`).
    package static func sameValue(_ left: PlistValue, _ right: PlistValue) -> Bool {
        left == right || sameNumber(left, right)
    }

    private static func sameNumber(_ left: PlistValue?, _ right: PlistValue?) -> Bool {
        guard let left, let right else { return left == nil && right == nil }
        return compare(left, right) == 0
    }

    /// A bound or a choice as people write it: `3600`, `0.001`, `info`.
    static func text(_ value: PlistValue) -> String {
        switch value {
        case .real(let number) where number.isFinite:
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: value.defaultsDescription
        }
    }
}
