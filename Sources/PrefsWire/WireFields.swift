// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// Reads the fields of one message dictionary strictly: each accessor checks presence and type, and
/// ``finish()`` rejects any field nobody read, so a misspelt optional field (`bytHost`) is an error instead of
/// a silently ignored default.
///
/// Errors are `badRequest` ``WireError``s whose ``WireError/field`` is the field's path inside the message.
struct WireFields {
    private let dictionary: PlistDictionary
    private let path: String
    /// Names read so far; few per message, so an array beats a set.
    private var readNames: [String] = []

    init(_ dictionary: PlistDictionary, path: String = "") {
        self.dictionary = dictionary
        self.path = path
    }

    /// The path of a field, for error messages: `name` at top level, `parent.name` below it.
    func path(of name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }

    /// Whether the field is present, without reading it.
    func contains(_ name: String) -> Bool { dictionary[name] != nil }

    // MARK: - Raw access

    mutating func optionalValue(_ name: String) -> PlistValue? {
        guard let value = dictionary[name] else { return nil }
        if !readNames.contains(name) { readNames.append(name) }
        return value
    }

    mutating func value(_ name: String) throws(WireError) -> PlistValue {
        guard let value = optionalValue(name) else { throw WireError.badField(path(of: name), "is missing") }
        return value
    }

    private func mistyped(_ name: String, _ value: PlistValue, expected: String) -> WireError {
        WireError.badField(path(of: name), "must be \(expected), not \(Self.article(value.typeName))")
    }

    private static func article(_ typeName: String) -> String {
        let vowels: Set<Character> = ["a", "e", "i", "o", "u"]
        return (typeName.first.map { vowels.contains($0) } ?? false ? "an " : "a ") + typeName
    }

    // MARK: - Strings

    mutating func optionalString(_ name: String) throws(WireError) -> String? {
        guard let value = optionalValue(name) else { return nil }
        guard case .string(let string) = value else { throw mistyped(name, value, expected: "a string") }
        return string
    }

    mutating func string(_ name: String) throws(WireError) -> String {
        guard let string = try optionalString(name) else { throw WireError.badField(path(of: name), "is missing") }
        return string
    }

    mutating func optionalStringArray(_ name: String) throws(WireError) -> [String]? {
        guard let value = optionalValue(name) else { return nil }
        guard case .array(let elements) = value else { throw mistyped(name, value, expected: "an array of strings") }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let string) = element else {
                throw WireError.badField(
                    "\(path(of: name))[\(index)]", "must be a string, not \(Self.article(element.typeName))")
            }
            strings.append(string)
        }
        return strings
    }

    // MARK: - Scalars

    mutating func optionalBool(_ name: String) throws(WireError) -> Bool? {
        guard let value = optionalValue(name) else { return nil }
        guard case .bool(let bool) = value else { throw mistyped(name, value, expected: "a boolean") }
        return bool
    }

    mutating func optionalUInt64(_ name: String) throws(WireError) -> UInt64? {
        guard let value = optionalValue(name) else { return nil }
        guard case .integer(let integer) = value else { throw mistyped(name, value, expected: "an integer") }
        guard let unsigned = integer.uint64Value else {
            throw WireError.badField(path(of: name), "must not be negative (got \(integer))")
        }
        return unsigned
    }

    mutating func optionalDate(_ name: String) throws(WireError) -> PlistDate? {
        guard let value = optionalValue(name) else { return nil }
        guard case .date(let date) = value else { throw mistyped(name, value, expected: "a date") }
        return date
    }

    mutating func uint64(_ name: String) throws(WireError) -> UInt64 {
        guard let value = try optionalUInt64(name) else { throw WireError.badField(path(of: name), "is missing") }
        return value
    }

    /// An integer in `range`, for fields narrower than 64 bits.
    mutating func optionalInt64(_ name: String, in range: ClosedRange<Int64>) throws(WireError) -> Int64? {
        guard let value = optionalValue(name) else { return nil }
        guard case .integer(let integer) = value else { throw mistyped(name, value, expected: "an integer") }
        guard let signed = integer.int64Value, range.contains(signed) else {
            throw WireError.badField(
                path(of: name), "must be between \(range.lowerBound) and \(range.upperBound) (got \(integer))")
        }
        return signed
    }

    mutating func positiveInt(_ name: String) throws(WireError) -> Int {
        guard let value = try optionalInt64(name, in: 1...Int64(Int.max)) else {
            throw WireError.badField(path(of: name), "is missing")
        }
        return Int(value)
    }

    // MARK: - Containers

    mutating func optionalDictionary(_ name: String) throws(WireError) -> PlistDictionary? {
        guard let value = optionalValue(name) else { return nil }
        guard case .dictionary(let dictionary) = value else {
            throw mistyped(name, value, expected: "a dictionary")
        }
        return dictionary
    }

    mutating func dictionary(_ name: String) throws(WireError) -> PlistDictionary {
        guard let dictionary = try optionalDictionary(name) else {
            throw WireError.badField(path(of: name), "is missing")
        }
        return dictionary
    }

    /// An array whose elements are all dictionaries, each returned with its path for nested reading.
    mutating func optionalDictionaryArray(
        _ name: String
    ) throws(WireError) -> [(dictionary: PlistDictionary, path: String)]? {
        guard let value = optionalValue(name) else { return nil }
        guard case .array(let elements) = value else {
            throw mistyped(name, value, expected: "an array of dictionaries")
        }
        var result: [(dictionary: PlistDictionary, path: String)] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let elementPath = "\(path(of: name))[\(index)]"
            guard case .dictionary(let dictionary) = element else {
                throw WireError.badField(elementPath, "must be a dictionary, not \(Self.article(element.typeName))")
            }
            result.append((dictionary, elementPath))
        }
        return result
    }

    mutating func dictionaryArray(
        _ name: String
    ) throws(WireError) -> [(dictionary: PlistDictionary, path: String)] {
        guard let result = try optionalDictionaryArray(name) else {
            throw WireError.badField(path(of: name), "is missing")
        }
        return result
    }

    // MARK: - Completion

    /// Rejects the first field (in sorted order, so the error is deterministic) that no accessor read.
    func finish() throws(WireError) {
        guard readNames.count < dictionary.count else { return }
        let unknown = dictionary.keys.filter { !readNames.contains($0) }.sorted()
        if let first = unknown.first {
            throw WireError.badField(path(of: first), "is not part of this message")
        }
    }
}

extension PlistDictionary {
    /// Sets `value` under `key` only when it is not `nil`, so optional fields stay absent instead of null.
    mutating func setIfPresent(_ key: String, _ value: PlistValue?) {
        if let value { self[key] = value }
    }
}

extension PlistValue {
    /// An unsigned integer value.
    static func unsigned(_ value: UInt64) -> PlistValue { .integer(PlistInteger(value)) }

    /// A signed integer value.
    static func signed(_ value: Int64) -> PlistValue { .integer(PlistInteger(value)) }

    /// An array of strings.
    static func strings(_ values: [String]) -> PlistValue { .array(values.map(PlistValue.string)) }
}
