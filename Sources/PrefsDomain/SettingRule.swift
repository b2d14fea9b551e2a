// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// What one setting of a domain may hold: a number of seconds in a range, an integer in a range, or one of a few
/// words. ``DomainRules`` keeps a domain's rules in one table, which the store checks on every write and the program
/// that reads the settings parses with.
package struct SettingRule: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// An integer or a real, in seconds; `zeroMeansNever` when 0 turns the setting off.
        case seconds(ClosedRange<Double>, zeroMeansNever: Bool)
        /// An integer.
        case integer(ClosedRange<Int>)
        /// A string, one of these words in any case.
        case word([String])
    }

    package let kind: Kind

    /// A number of seconds within `range`; with `zeroMeansNever`, 0 is allowed too and means never.
    package static func seconds(_ range: ClosedRange<Double>, zeroMeansNever: Bool = false) -> SettingRule {
        SettingRule(kind: .seconds(range, zeroMeansNever: zeroMeansNever))
    }

    /// An integer within `range`.
    package static func integer(_ range: ClosedRange<Int>) -> SettingRule { SettingRule(kind: .integer(range)) }

    /// One of `words`, in any case.
    package static func word(_ words: [String]) -> SettingRule { SettingRule(kind: .word(words)) }

    /// The integers the setting may take, for an integer rule.
    package var integerRange: ClosedRange<Int>? {
        if case .integer(let range) = kind { return range }
        return nil
    }

    /// What the rule asks, completing "it …": `must be a number of seconds from 0.001 to 3600`.
    package var requirement: String {
        switch kind {
        case .seconds(let range, zeroMeansNever: true) where range.lowerBound == 0:
            "must be a number of seconds from 0 (never) to \(Self.text(range.upperBound))"
        case .seconds(let range, zeroMeansNever: true):
            "must be 0 (never) or a number of seconds from \(Self.text(range.lowerBound)) to "
                + Self.text(range.upperBound)
        case .seconds(let range, zeroMeansNever: false):
            "must be a number of seconds from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound))"
        case .integer(let range):
            "must be an integer from \(range.lowerBound) to \(range.upperBound)"
        case .word(let words):
            "must be one of \(words.joined(separator: ", "))"
        }
    }

    /// Whether `value` is one the setting may hold.
    package func accepts(_ value: PlistValue) -> Bool {
        switch kind {
        case .seconds(let range, let zeroMeansNever):
            guard let seconds = Self.seconds(value) else { return false }
            return range.contains(seconds) || (zeroMeansNever && seconds == 0)
        case .integer(let range):
            guard case .integer(let integer) = value, let number = integer.int64Value else { return false }
            return number >= range.lowerBound && number <= range.upperBound
        case .word(let words):
            guard case .string(let text) = value else { return false }
            return words.contains(text.lowercased())
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

    /// A bound as people write it: `3600`, `0.001`.
    private static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
