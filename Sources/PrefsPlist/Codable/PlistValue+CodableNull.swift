// SPDX-License-Identifier: Apache-2.0
/// How ``PlistEncoder`` and ``PlistDecoder`` stand in for the `nil` that property lists cannot hold,
/// and which top-level values they call fragments; both as Foundation's property-list coders do.
extension PlistValue {
    /// The string Foundation's `PropertyListEncoder` writes for an encoded `nil` (`_plistNullString`).
    static let codableNullString = "$null"

    /// What an encoded `nil` is stored as: the string `$null`.
    static let codableNull = PlistValue.string(codableNullString)

    /// Whether a decoder reads this value as `nil`: the string `$null`, or the binary format's null.
    var isCodableNull: Bool {
        switch self {
        case .null: true
        case .string(let string): string == Self.codableNullString
        default: false
        }
    }

    /// The kind Foundation names when it refuses this value at the top level ("number property list
    /// fragment"), or `nil` for the values it accepts there: dictionaries, arrays and data.
    var fragmentKind: String? {
        switch self {
        case .bool: "boolean"
        case .integer, .real, .uid: "number"
        case .string: "string"
        case .date: "date"
        case .data, .array, .dictionary, .null: nil
        }
    }
}
