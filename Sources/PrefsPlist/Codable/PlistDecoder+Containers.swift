// SPDX-License-Identifier: Apache-2.0
/// Reads a Codable keyed container from a plist dictionary.
///
/// A missing key, the string `$null` or the binary format's `null` is `nil` to `decodeNil(forKey:)`
/// and `decodeIfPresent`; `decode` of a missing key is an error naming the key.
struct PlistKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: PlistDecodingState
    let entries: PlistDictionary
    let path: PlistCodingPath

    var codingPath: [any CodingKey] { path.codingKeys }

    var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

    private func entry(for key: Key) throws -> PlistValue {
        guard let value = entries[key.stringValue] else {
            throw PlistError(.typeMismatch, "key '\(key.stringValue)' not found", at: path.position)
        }
        return value
    }

    /// The value under `key`, or `nil` when it is missing or an encoded `nil` (`$null` or null).
    private func presentEntry(for key: Key) -> PlistValue? {
        guard let value = entries[key.stringValue], !value.isCodableNull else { return nil }
        return value
    }

    private func decodeScalar<T: PlistCodableScalar>(_ type: T.Type, forKey key: Key) throws -> T {
        try T.decode(from: entry(for: key), at: path.appending(key: key))
    }

    private func decodeScalarIfPresent<T: PlistCodableScalar>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = presentEntry(for: key) else { return nil }
        return try T.decode(from: value, at: path.appending(key: key))
    }

    func decodeNil(forKey key: Key) throws -> Bool { presentEntry(for: key) == nil }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeScalar(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeScalar(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeScalar(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeScalar(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeNested(type, from: entry(for: key), at: path.appending(key: key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = presentEntry(for: key) else { return nil }
        return try decoder.decodeNested(type, from: value, at: path.appending(key: key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try nestedDecoder(for: entry(for: key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nestedDecoder(for: entry(for: key), key: key).unkeyedContainer()
    }

    /// The decoder for the value under `super`; a missing value decodes as null, as in Foundation.
    func superDecoder() throws -> any Decoder {
        nestedDecoder(for: entries[PlistCodingKey.super.stringValue] ?? .null, key: PlistCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        nestedDecoder(for: entries[key.stringValue] ?? .null, key: key)
    }

    private func nestedDecoder(for value: PlistValue, key: some CodingKey) -> PlistDecodingState {
        PlistDecodingState(value: value, path: path.appending(key: key), userInfo: decoder.userInfoValues)
    }
}

/// Reads a Codable unkeyed container from a plist array. The position advances only when a
/// decode succeeds, so a caller may retry the same element as another type.
struct PlistUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: PlistDecodingState
    let elements: [PlistValue]
    let path: PlistCodingPath
    private(set) var currentIndex = 0

    init(decoder: PlistDecodingState, elements: [PlistValue], path: PlistCodingPath) {
        self.decoder = decoder
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingKeys }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    private var elementPath: PlistCodingPath { path.appending(index: currentIndex) }

    /// The current element, or an error naming the element the caller wanted.
    private func currentElement(expecting type: Any.Type) throws -> PlistValue {
        guard currentIndex < elements.count else {
            throw PlistError(
                .typeMismatch,
                "no value for \(type) at index \(currentIndex): the array has \(elements.count) elements",
                at: elementPath.position)
        }
        return elements[currentIndex]
    }

    private mutating func decodeScalar<T: PlistCodableScalar>(_ type: T.Type) throws -> T {
        let decoded = try T.decode(from: currentElement(expecting: type), at: elementPath)
        currentIndex += 1
        return decoded
    }

    /// True, moving on, for an encoded `nil`: the string `$null` or the binary format's null.
    mutating func decodeNil() throws -> Bool {
        guard try currentElement(expecting: Optional<Any>.self).isCodableNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeScalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeScalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeScalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeScalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeScalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeScalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeScalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeScalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeScalar(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeScalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeScalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeScalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeScalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeScalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeScalar(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeScalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoded = try decoder.decodeNested(type, from: currentElement(expecting: type), at: elementPath)
        currentIndex += 1
        return decoded
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try nestedDecoder(expecting: [String: Any].self).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nestedDecoder(expecting: [Any].self).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let superDecoder = try nestedDecoder(expecting: (any Decoder).self)
        currentIndex += 1
        return superDecoder
    }

    private func nestedDecoder(expecting type: Any.Type) throws -> PlistDecodingState {
        PlistDecodingState(
            value: try currentElement(expecting: type), path: elementPath, userInfo: decoder.userInfoValues)
    }
}
