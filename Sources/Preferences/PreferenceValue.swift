// SPDX-License-Identifier: Apache-2.0
public import FoundationEssentials
public import PrefsPlist

/// A type that typed keys (``Preferences/Key``) read with the coercion rules of the typed getters and store as a
/// plain property-list value.
///
/// `Bool`, every fixed-width integer type, `Double`, `Float`, `String`, `URL`, `Data`, `Date`, `PlistValue`, and
/// arrays, `[String: …]` dictionaries and optionals of these conform. Any other `Codable` type can still be the
/// value of a key: it is stored through ``/PrefsPlist/PlistEncoder`` as a native dictionary or array.
public protocol PreferenceValue: Codable, Sendable {
    /// Reads a stored value with this type's coercion rule; `nil` when it cannot be read as this type.
    /// - Parameter storedValue: The effective value found for the key.
    init?(storedValue: PlistValue)

    /// The property-list value to store, or `nil` to remove the key (an optional that is `nil`).
    /// - Throws: ``PreferencesError`` with code `invalidValue` when the value holds a `nil` where property lists
    ///   cannot (inside an array or dictionary).
    func storedValue() throws(PreferencesError) -> PlistValue?
}

extension PreferenceValue {
    /// The stored value, with `nil` refused: elements of arrays and dictionaries must be present.
    func requiredStoredValue(at path: String) throws(PreferencesError) -> PlistValue {
        guard let value = try storedValue() else {
            throw PreferencesError(
                .invalidValue, "nil at \(path) cannot be stored: property lists have no null")
        }
        return value
    }
}

/// A typed key's value read with the Boolean rule and stored as a plist `boolean`.
extension Bool: PreferenceValue {
    /// Reads with the Boolean rule: `true`, non-zero numbers, "YES", "true", "1" (any case) are `true`.
    public init?(storedValue: PlistValue) {
        guard let bool = PreferenceCoercion.bool(storedValue) else { return nil }
        self = bool
    }

    /// A plist `boolean`.
    public func storedValue() -> PlistValue? { .bool(self) }
}

/// A typed key's value read with the integer rule and stored as a plist `integer`.
extension Int: PreferenceValue {
    /// Reads with the integer rule (Booleans as 1/0, reals rounded down, numeric strings parsed); `nil` when the
    /// result does not fit `Int`.
    public init?(storedValue: PlistValue) {
        // `Int` is the common case: spelled out so that it does not go through the generic integer conversion.
        guard let value = PreferenceCoercion.int(storedValue) else { return nil }
        self = value
    }

    /// A plist `integer`.
    public func storedValue() -> PlistValue? { .integer(PlistInteger(Int64(self))) }
}

/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension Int8: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension Int16: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension Int32: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension Int64: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension UInt: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension UInt8: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension UInt16: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension UInt32: PreferenceValue {}
/// A typed key's value read with the integer rule (values that do not fit are not read), stored as a plist `integer`.
extension UInt64: PreferenceValue {}

extension PreferenceValue where Self: FixedWidthInteger {
    /// Reads with the integer rule (Booleans as 1/0, reals rounded down, numeric strings parsed); `nil` when the
    /// result does not fit this type.
    public init?(storedValue: PlistValue) {
        guard let integer = PreferenceCoercion.integer(storedValue) else { return nil }
        if let signed = integer.int64Value, let value = Self(exactly: signed) {
            self = value
        } else if let unsigned = integer.uint64Value, let value = Self(exactly: unsigned) {
            self = value
        } else {
            return nil
        }
    }

    /// A plist `integer`.
    public func storedValue() -> PlistValue? {
        // Every fixed-width integer type of the standard library fits Int64.min ... UInt64.max.
        PlistInteger(exactly: self).map { .integer($0) }
    }
}

/// A typed key's value read with the real rule and stored as a plist `real`.
extension Double: PreferenceValue {
    /// Reads with the real rule: reals, integers, Booleans (1.0/0.0), numeric strings.
    public init?(storedValue: PlistValue) {
        guard let double = PreferenceCoercion.double(storedValue) else { return nil }
        self = double
    }

    /// A plist `real`.
    public func storedValue() -> PlistValue? { .real(self) }
}

/// A typed key's value read with the real rule and stored as the plist `real` of its shortest decimal.
extension Float: PreferenceValue {
    /// Reads with the real rule, rounded to the nearest `Float`.
    public init?(storedValue: PlistValue) {
        guard let double = PreferenceCoercion.double(storedValue) else { return nil }
        self = Float(double)
    }

    /// A plist `real`: the double nearest to the float's shortest decimal form, so that `1.65` is stored as 1.65
    /// and not as 1.649999976158142 (and reads back as the same float).
    public func storedValue() -> PlistValue? { .real(shortestDouble) }
}

extension Float {
    /// The double nearest to the shortest decimal that reads back as this float: what a person wrote.
    var shortestDouble: Double {
        guard isFinite else { return Double(self) }
        return Double(description) ?? Double(self)
    }
}

/// A typed key's value read with the string rule and stored as a plist `string`.
extension String: PreferenceValue {
    /// Reads with the string rule: strings, integers and reals in decimal, Booleans as "1"/"0".
    public init?(storedValue: PlistValue) {
        guard let string = PreferenceCoercion.string(storedValue) else { return nil }
        self = string
    }

    /// A plist `string`.
    public func storedValue() -> PlistValue? { .string(self) }
}

/// A typed key's value read with the URL rule and stored as a plist `string`, its absolute string.
extension URL: PreferenceValue {
    /// Reads with the URL rule: a string with a scheme, or an absolute or `~` path as a file URL.
    public init?(storedValue: PlistValue) {
        guard let url = PreferenceCoercion.url(storedValue) else { return nil }
        self = url
    }

    /// The whole absolute string, as a plist `string`.
    public func storedValue() -> PlistValue? { .string(absoluteString) }
}

/// A typed key's value read from plist `data` only, and stored as such.
extension Data: PreferenceValue {
    /// Reads plist `data` only.
    public init?(storedValue: PlistValue) {
        guard let data = PreferenceCoercion.data(storedValue) else { return nil }
        self = data
    }

    /// Plist `data`.
    public func storedValue() -> PlistValue? { .data(Array(self)) }
}

/// A typed key's value read from a plist `date` only, and stored as such.
extension Date: PreferenceValue {
    /// Reads a plist `date` only.
    public init?(storedValue: PlistValue) {
        guard let date = PreferenceCoercion.date(storedValue) else { return nil }
        self = date
    }

    /// A plist `date`.
    public func storedValue() -> PlistValue? { plistValue }
}

/// A typed key's value stored and read as it is, with no coercion.
extension PlistValue: PreferenceValue {
    /// The stored value itself.
    public init?(storedValue: PlistValue) {
        self = storedValue
    }

    /// The value itself.
    public func storedValue() -> PlistValue? { self }
}

/// A typed key's value stored as a plist `array`, read element by element.
extension Array: PreferenceValue where Element: PreferenceValue {
    /// Reads an array whose every element reads as `Element`; `nil` when any does not.
    public init?(storedValue: PlistValue) {
        guard case .array(let elements) = storedValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let converted = Element(storedValue: element) else { return nil }
            result.append(converted)
        }
        self = result
    }

    /// A plist `array`.
    /// - Throws: ``PreferencesError`` with code `invalidValue` when an element is `nil`.
    public func storedValue() throws(PreferencesError) -> PlistValue? {
        var elements: [PlistValue] = []
        elements.reserveCapacity(count)
        for (index, element) in enumerated() { elements.append(try element.requiredStoredValue(at: "[\(index)]")) }
        return .array(elements)
    }
}

/// A typed key's value stored as a plist `dictionary`, read value by value.
extension Dictionary: PreferenceValue where Key == String, Value: PreferenceValue {
    /// Reads a dictionary whose every value reads as `Value`; `nil` when any does not.
    public init?(storedValue: PlistValue) {
        guard case .dictionary(let entries) = storedValue else { return nil }
        var result: [String: Value] = [:]
        result.reserveCapacity(entries.count)
        for (key, entry) in entries {
            guard let converted = Value(storedValue: entry) else { return nil }
            result[key] = converted
        }
        self = result
    }

    /// A plist `dictionary`.
    /// - Throws: ``PreferencesError`` with code `invalidValue` when a value is `nil`.
    public func storedValue() throws(PreferencesError) -> PlistValue? {
        var entries: PlistDictionary = [:]
        entries.reserveCapacity(count)
        for (key, value) in self { entries[key] = try value.requiredStoredValue(at: ".\(key)") }
        return .dictionary(entries)
    }
}

/// A typed key's optional value: `nil` removes the key.
extension Optional: PreferenceValue where Wrapped: PreferenceValue {
    /// Reads the wrapped type; `nil` (use the key's default) when the value cannot be read as it.
    public init?(storedValue: PlistValue) {
        guard let wrapped = Wrapped(storedValue: storedValue) else { return nil }
        self = .some(wrapped)
    }

    /// The wrapped value's plist value, or `nil` (remove the key) for `nil`.
    /// - Throws: ``PreferencesError`` as the wrapped type does.
    public func storedValue() throws(PreferencesError) -> PlistValue? {
        guard let self else { return nil }
        return try self.storedValue()
    }
}
