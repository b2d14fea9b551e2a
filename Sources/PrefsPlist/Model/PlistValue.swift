// SPDX-License-Identifier: Apache-2.0
/// A property-list value: the data model shared by every reader, writer and layer above them.
///
/// Property lists hold strings, integers, reals, booleans, dates, data, arrays, dictionaries with
/// string keys, and keyed-archiver UIDs. `null` exists only because the binary format has a marker
/// for it (CoreFoundation reads it as `kCFNull`); only the binary and JSON writers can write it.
///
/// Equality is exact: strings and dictionary keys compare by their UTF-8 bytes (so "é" as U+00E9 and as
/// "e" + U+0301 differ, as they do for CoreFoundation), reals and dates by their bit pattern (so `-0.0`
/// differs from `0.0` and a NaN equals the same NaN). That makes `Hashable` consistent and round trips
/// checkable.
public enum PlistValue: Sendable {
    /// A Unicode string.
    case string(String)
    /// An integer in the range `Int64.min ... UInt64.max`.
    case integer(PlistInteger)
    /// An IEEE-754 binary64 real.
    case real(Double)
    /// A boolean.
    case bool(Bool)
    /// A point in time.
    case date(PlistDate)
    /// Raw bytes.
    case data([UInt8])
    /// An ordered list of values.
    case array([PlistValue])
    /// A dictionary with string keys, compared byte for byte.
    case dictionary(PlistDictionary)
    /// A keyed-archiver object reference (`CF$UID`).
    case uid(UInt64)
    /// The binary format's null marker.
    case null
}

extension PlistValue {
    /// The name of this value's type as Apple's tools spell it (`string`, `integer`, `float`, …).
    ///
    /// `defaults read-type` prints these names; errors use them too.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "float"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "uid"
        case .null: "null"
        }
    }

    /// The string, when this value is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The array, when this value is an array.
    public var arrayValue: [PlistValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The dictionary, when this value is a dictionary.
    public var dictionaryValue: PlistDictionary? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// Accesses the value stored under `key` when this value is a dictionary; `nil` otherwise.
    public subscript(key: String) -> PlistValue? {
        if case .dictionary(let dictionary) = self { return dictionary[key] }
        return nil
    }

    /// The nesting depth: 0 for a scalar, 1 for a container of scalars, and so on.
    public var depth: Int {
        switch self {
        case .array(let elements): 1 + (elements.lazy.map(\.depth).max() ?? 0)
        case .dictionary(let entries): 1 + (entries.values.lazy.map(\.depth).max() ?? 0)
        default: 0
        }
    }
}

extension PlistValue: Equatable {
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): PlistKey(a) == PlistKey(b)
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.bool(let a), .bool(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        case (.uid(let a), .uid(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }
}

extension PlistValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value): hasher.combine(0); hasher.combine(PlistKey(value))
        case .integer(let value): hasher.combine(1); hasher.combine(value)
        case .real(let value): hasher.combine(2); hasher.combine(value.bitPattern)
        case .bool(let value): hasher.combine(3); hasher.combine(value)
        case .date(let value): hasher.combine(4); hasher.combine(value)
        case .data(let value): hasher.combine(5); hasher.combine(value)
        case .array(let value): hasher.combine(6); hasher.combine(value)
        case .dictionary(let value): hasher.combine(7); hasher.combine(value)
        case .uid(let value): hasher.combine(8); hasher.combine(value)
        case .null: hasher.combine(9)
        }
    }
}

extension PlistValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PlistValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(PlistInteger(value)) }
}

extension PlistValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension PlistValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PlistValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
}

extension PlistValue: ExpressibleByDictionaryLiteral {
    /// Creates a dictionary value; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        var entries = PlistDictionary(minimumCapacity: elements.count)
        for (key, value) in elements { entries[key] = value }
        self = .dictionary(entries)
    }
}
