// SPDX-License-Identifier: Apache-2.0
/// A type stored as a native plist value rather than through its Codable form.
///
/// ``PlistEncoder`` and ``PlistDecoder`` check every value for this conformance before they fall
/// back to `Codable`, so a conforming type nested anywhere in a Codable model is stored as the
/// plist value it names: ``PlistValue`` as itself, ``PlistDate`` as a date, ``PlistInteger`` as an
/// integer. Layers that use Foundation conform `Date`, `Data` and `URL` the same way.
public protocol PlistRepresentable {
    /// The plist value that stores this value.
    var plistValue: PlistValue { get }

    /// Creates a value from its plist form.
    /// - Parameter plistValue: The stored value.
    /// - Returns: `nil` when `plistValue` does not hold a value of this type.
    init?(plistValue: PlistValue)
}

extension PlistValue: PlistRepresentable {
    /// The value itself.
    public var plistValue: PlistValue { self }

    /// Creates a copy of `plistValue`; never fails.
    public init?(plistValue: PlistValue) {
        self = plistValue
    }
}

extension PlistDate: PlistRepresentable {
    /// The date as a plist `date`.
    public var plistValue: PlistValue { .date(self) }

    /// Reads a plist `date`; `nil` for any other type.
    public init?(plistValue: PlistValue) {
        guard case .date(let date) = plistValue else { return nil }
        self = date
    }
}

extension PlistInteger: PlistRepresentable {
    /// The integer as a plist `integer`.
    public var plistValue: PlistValue { .integer(self) }

    /// Reads a plist `integer`; `nil` for any other type.
    public init?(plistValue: PlistValue) {
        guard case .integer(let integer) = plistValue else { return nil }
        self = integer
    }
}
