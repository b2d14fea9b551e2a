// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// The type a domain schema gives a key (docs/SCHEMAS.md): the property-list types, and `seconds`, a duration that
/// may be written as an integer or a real.
package enum SchemaType: String, Sendable, Hashable, CaseIterable {
    case string, integer, real, boolean, date, data, array, dictionary, seconds

    /// Whether a value of this type may be bounded by `Minimum` and `Maximum`.
    package var isNumeric: Bool { self == .integer || self == .real || self == .seconds }

    /// Whether `value` has this type: a `real` or `seconds` key takes an integer too, since a person writes `2` for
    /// two; a `seconds` value must be finite.
    package func accepts(_ value: PlistValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.boolean, .bool), (.date, .date), (.data, .data),
            (.array, .array), (.dictionary, .dictionary), (.real, .real), (.real, .integer), (.seconds, .integer):
            true
        case (.seconds, .real(let real)): real.isFinite
        default: false
        }
    }

    /// The type as the requirement of a rule names it: `an integer`, `a number of seconds`.
    package var phrase: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a number"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .seconds: "a number of seconds"
        }
    }
}
