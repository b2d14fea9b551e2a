// SPDX-License-Identifier: Apache-2.0
/// Decodes `Decodable` values from native property-list values.
///
/// The mirror of ``PlistEncoder``: a keyed container reads a plist dictionary, an unkeyed
/// container an array, a single value a scalar. Integers are range-checked for the requested
/// width; a `Double` or `Float` also accepts an `integer`, and an integer type also accepts a
/// `float` with an exact integral value. A ``PlistRepresentable`` type, at any depth, is made with
/// ``PlistRepresentable/init(plistValue:)``.
///
/// A missing key decodes as `nil` for an optional. Property lists have no null: the string `$null`
/// (what ``PlistEncoder`` and Foundation's `PropertyListEncoder` write for an encoded `nil`) and the
/// binary format's `null` marker are `nil` to `decodeNil` and `decodeIfPresent`, in every
/// container and at the top level; asked for as a non-optional `String`, `$null` is that string.
///
/// A class is built as the type passed in, not the static type: decoding `Employee.self as
/// Person.Type` makes an `Employee`, as Foundation does. Any value may be the top-level value,
/// fragments (a lone string or number) included, as with Foundation's `PropertyListDecoder`.
public struct PlistDecoder: Sendable {
    /// Values handed to every `init(from:)` through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder with no user info.
    public init() {
        userInfo = [:]
    }

    /// Decodes a value of the given type from a property-list value.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - value: The plist value to read.
    /// - Returns: The decoded value.
    /// - Throws: ``PlistError`` with code `typeMismatch` when a value has the wrong type, a number is
    ///   out of range for its Swift type, or a required key or array element is missing; the
    ///   position names the coding path and the message names what was expected and found. A
    ///   `DecodingError` from a type's own `init(from:)` (a `String` enum meeting an unknown raw
    ///   value, say) becomes a ``PlistError`` too; other errors such a type throws pass through.
    public func decode<T: Decodable>(_ type: T.Type, from value: PlistValue) throws -> T {
        let decoder = PlistDecodingState(value: value, path: .root, userInfo: userInfo)
        do {
            return try decoder.decodeNested(type, from: value, at: .root)
        } catch let error as DecodingError {
            throw Self.plistError(for: error)
        }
    }

    private static func plistError(for error: DecodingError) -> PlistError {
        switch error {
        case .typeMismatch(let type, let context):
            return PlistError(
                .typeMismatch, "type mismatch for \(type): \(context.debugDescription)",
                at: PlistCodingPath(codingKeys: context.codingPath).position)
        case .valueNotFound(let type, let context):
            return PlistError(
                .typeMismatch, "no value for \(type): \(context.debugDescription)",
                at: PlistCodingPath(codingKeys: context.codingPath).position)
        case .keyNotFound(let key, let context):
            return PlistError(
                .typeMismatch, "key '\(key.stringValue)' not found",
                at: PlistCodingPath(codingKeys: context.codingPath).position)
        case .dataCorrupted(let context):
            return PlistError(
                .typeMismatch, context.debugDescription, at: PlistCodingPath(codingKeys: context.codingPath).position)
        @unknown default:
            return PlistError(.typeMismatch, "\(error)")
        }
    }
}

/// The `Decoder` for one plist value; also that value's single-value container.
final class PlistDecodingState: Decoder, SingleValueDecodingContainer {
    let value: PlistValue
    let path: PlistCodingPath
    let userInfoValues: [CodingUserInfoKey: any Sendable]

    init(value: PlistValue, path: PlistCodingPath, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.path = path
        self.userInfoValues = userInfo
    }

    var codingPath: [any CodingKey] { path.codingKeys }

    var userInfo: [CodingUserInfoKey: Any] { userInfoValues }

    /// Decodes a nested value at `path`: scalars and ``PlistRepresentable`` types directly, other
    /// types through a fresh decoder. `type` is used, not `T`: for a class they may differ (a
    /// subclass passed as its superclass's metatype), and the value is built as `type`.
    func decodeNested<T: Decodable>(
        _ type: T.Type, from value: PlistValue, at path: @autoclosure () -> PlistCodingPath
    ) throws -> T {
        if let scalarType = type as? any PlistCodableScalar.Type {
            return try Self.cast(scalarType.decode(from: value, at: path()), at: path())
        }
        if let representableType = type as? any PlistRepresentable.Type {
            guard let decoded = representableType.init(plistValue: value) else {
                throw PlistError(
                    .typeMismatch, "type mismatch: \(type) cannot be read from a \(value.typeName)",
                    at: path().position)
            }
            return try Self.cast(decoded, at: path())
        }
        return try type.init(from: PlistDecodingState(value: value, path: path(), userInfo: userInfoValues))
    }

    /// The value as `T`; it always is one, since it was made from `type`, a `T.Type`.
    private static func cast<T>(_ value: Any, at path: @autoclosure () -> PlistCodingPath) throws -> T {
        guard let typed = value as? T else {
            throw PlistError(.typeMismatch, "type mismatch: could not make a \(T.self)", at: path().position)
        }
        return typed
    }

    /// The error for a container of the wrong kind: `expected` names the plist type it needs.
    static func typeMismatch(expected: String, found value: PlistValue, at path: PlistCodingPath) -> PlistError {
        PlistError(.typeMismatch, "type mismatch: expected \(expected), found \(value.typeName)", at: path.position)
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let entries) = value else {
            throw Self.typeMismatch(expected: "dictionary", found: value, at: path)
        }
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<Key>(decoder: self, entries: entries, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw Self.typeMismatch(expected: "array", found: value, at: path)
        }
        return PlistUnkeyedDecodingContainer(decoder: self, elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { value.isCodableNull }

    func decode(_ type: Bool.Type) throws -> Bool { try Bool.decode(from: value, at: path) }
    func decode(_ type: String.Type) throws -> String { try String.decode(from: value, at: path) }
    func decode(_ type: Double.Type) throws -> Double { try Double.decode(from: value, at: path) }
    func decode(_ type: Float.Type) throws -> Float { try Float.decode(from: value, at: path) }
    func decode(_ type: Int.Type) throws -> Int { try Int.decode(from: value, at: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Int8.decode(from: value, at: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Int16.decode(from: value, at: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Int32.decode(from: value, at: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Int64.decode(from: value, at: path) }
    func decode(_ type: Int128.Type) throws -> Int128 { try Int128.decode(from: value, at: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try UInt.decode(from: value, at: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try UInt8.decode(from: value, at: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try UInt16.decode(from: value, at: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try UInt32.decode(from: value, at: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try UInt64.decode(from: value, at: path) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try UInt128.decode(from: value, at: path) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeNested(type, from: value, at: path)
    }
}
