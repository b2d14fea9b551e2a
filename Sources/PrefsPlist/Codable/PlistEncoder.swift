// SPDX-License-Identifier: Apache-2.0
/// Encodes `Encodable` values as native property-list values.
///
/// A keyed container becomes a plist dictionary, an unkeyed container an array, and a single
/// value a scalar: integers of every width become `integer` (values above `Int64.max` stay exact),
/// `Double` and `Float` become `float`, `Bool` becomes `boolean`, `String` becomes `string`. A
/// ``PlistRepresentable`` value, at any depth, is stored as its ``PlistRepresentable/plistValue``.
///
/// Property lists have no null. As with Foundation's `PropertyListEncoder`, a `nil` that is encoded
/// (an element of `[Int?]`, a value of `[String: Int?]`, an explicit `encodeNil`) is written as the
/// string `$null`, which ``PlistDecoder`` and Foundation's decoder read back as `nil`; an optional
/// property that is `nil` is left out (`encodeIfPresent`), and a `nil` at the top level is an error.
/// A nested value that encodes nothing becomes an empty dictionary, as with Foundation.
///
/// As with Foundation, the top-level value must be a dictionary, an array or data: a lone boolean,
/// number, string or date is refused unless ``allowsFragments`` is set.
///
/// ```swift
/// struct Window: Codable { var width: Int; var title: String? }
/// let value = try PlistEncoder().encode(Window(width: 640, title: nil))  // ["width": 640]
/// ```
public struct PlistEncoder: Sendable {
    /// Values handed to every `encode(to:)` through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Whether a boolean, number, string or date may be the top-level value. `false` (the default)
    /// refuses them as Foundation's `PropertyListEncoder` does ("property list fragment"); set it to
    /// store such a value on its own, as the value of a preferences key, say.
    public var allowsFragments: Bool

    /// Creates an encoder with no user info that refuses top-level fragments.
    public init() {
        userInfo = [:]
        allowsFragments = false
    }

    /// Encodes a value as a property-list value.
    /// - Parameter value: The value to encode.
    /// - Returns: The plist form of `value`.
    /// - Throws: ``PlistError`` with code `unrepresentable` when `value` is `nil` at the top level,
    ///   is a top-level fragment (see ``allowsFragments``), holds an integer outside
    ///   `Int64.min ... UInt64.max`, encodes nothing at the top level, or misuses its containers (asks
    ///   for two kinds of container for one value or key); the position names the coding path. An
    ///   `EncodingError` from a type's own `encode(to:)` becomes a ``PlistError`` too; other errors
    ///   such a type throws pass through.
    public func encode<T: Encodable>(_ value: T) throws -> PlistValue {
        do {
            return try encodeTopLevel(value)
        } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error else { throw PlistError(.unrepresentable, "\(error)") }
            throw PlistError(
                .unrepresentable, context.debugDescription, at: PlistCodingPath(codingKeys: context.codingPath).position
            )
        }
    }

    private func encodeTopLevel<T: Encodable>(_ value: T) throws -> PlistValue {
        let encoded: PlistValue
        if let scalar = value as? any PlistCodableScalar {
            encoded = try scalar.encodedValue(at: .root)
        } else if let representable = value as? any PlistRepresentable {
            encoded = representable.plistValue
        } else {
            let encoder = PlistEncodingState(path: .root, userInfo: userInfo)
            try value.encode(to: encoder)
            guard encoder.hasEncodedValue else {
                throw PlistError(
                    .unrepresentable, "\(T.self) did not encode any value", at: PlistCodingPath.root.position)
            }
            guard let finished = try encoder.finish() else {
                throw PlistError(
                    .unrepresentable, "nil cannot be stored at the top level: property lists have no null",
                    at: PlistCodingPath.root.position)
            }
            encoded = finished
        }
        if !allowsFragments, let kind = encoded.fragmentKind {
            throw PlistError(
                .unrepresentable,
                "top-level \(T.self) encoded as a \(kind) property list fragment: the top level must be a "
                    + "dictionary, an array or data (set allowsFragments to store it on its own)",
                at: PlistCodingPath.root.position)
        }
        return encoded
    }
}

/// The `Encoder` for one value: it records what the value's `encode(to:)` asks for and turns it
/// into a ``PlistValue`` when that returns. It is also the value's single-value container.
final class PlistEncodingState: Encoder, SingleValueEncodingContainer {
    /// What the value has encoded so far.
    private enum Storage {
        case empty
        case single(PlistValue)
        case null
        case keyed(PlistEncodingDictionary)
        case unkeyed(PlistEncodingArray)
    }

    let path: PlistCodingPath
    let userInfoValues: [CodingUserInfoKey: any Sendable]
    private var storage = Storage.empty
    /// The first container misuse (a keyed container asked for after an unkeyed one, say); thrown
    /// by `finish()` because the container requests themselves cannot throw.
    private var misuse: PlistError?

    init(path: PlistCodingPath, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.path = path
        self.userInfoValues = userInfo
    }

    var codingPath: [any CodingKey] { path.codingKeys }

    var userInfo: [CodingUserInfoKey: Any] { userInfoValues }

    /// True once the value has asked for a container or encoded a single value.
    var hasEncodedValue: Bool {
        if case .empty = storage { return false }
        return true
    }

    /// The encoded value: `nil` for an encoded `nil`, an empty dictionary when nothing was encoded.
    func finish() throws -> PlistValue? {
        if let misuse { throw misuse }
        switch storage {
        case .empty: return .dictionary([:])
        case .single(let value): return value
        case .null: return nil
        case .keyed(let dictionary): return try dictionary.finish(at: path)
        case .unkeyed(let array): return try array.finish(at: path)
        }
    }

    /// Encodes a nested value at `path`: scalars and ``PlistRepresentable`` values directly, other
    /// values through a fresh encoder. Returns `nil` when the value encoded `nil`.
    func encodeNested<T: Encodable>(_ value: T, at path: @autoclosure () -> PlistCodingPath) throws -> PlistValue? {
        if let scalar = value as? any PlistCodableScalar { return try scalar.encodedValue(at: path()) }
        if let representable = value as? any PlistRepresentable { return representable.plistValue }
        let encoder = PlistEncodingState(path: path(), userInfo: userInfoValues)
        try value.encode(to: encoder)
        return try encoder.finish()
    }

    /// Remembers a container misuse at `path` (this value's own by default); `finish()` throws the first.
    func recordMisuse(_ message: String, at path: PlistCodingPath? = nil) {
        if misuse == nil { misuse = PlistError(.unrepresentable, message, at: (path ?? self.path).position) }
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let dictionary: PlistEncodingDictionary
        switch storage {
        case .keyed(let existing):
            dictionary = existing
        case .empty:
            dictionary = PlistEncodingDictionary()
            storage = .keyed(dictionary)
        case .single(.dictionary(let entries)):
            // Foundation keeps filling a dictionary that was encoded as a single value.
            dictionary = PlistEncodingDictionary(entries: entries)
            storage = .keyed(dictionary)
        case .single, .null, .unkeyed:
            recordMisuse("a keyed container was requested after another kind of value was encoded")
            dictionary = PlistEncodingDictionary()
        }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer(encoder: self, storage: dictionary, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: PlistEncodingArray
        switch storage {
        case .unkeyed(let existing):
            array = existing
        case .empty:
            array = PlistEncodingArray()
            storage = .unkeyed(array)
        case .single(.array(let elements)):
            array = PlistEncodingArray(elements: elements)
            storage = .unkeyed(array)
        case .single, .null, .keyed:
            recordMisuse("an unkeyed container was requested after another kind of value was encoded")
            array = PlistEncodingArray()
        }
        return PlistUnkeyedEncodingContainer(encoder: self, storage: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: SingleValueEncodingContainer

    private func store(_ value: PlistValue?) {
        guard case .empty = storage else {
            recordMisuse("a single value was encoded after a value had already been encoded")
            return
        }
        storage = value.map(Storage.single) ?? .null
    }

    func encodeNil() throws { store(nil) }
    func encode(_ value: Bool) throws { store(.bool(value)) }
    func encode(_ value: String) throws { store(.string(value)) }
    func encode(_ value: Double) throws { store(.real(value)) }
    func encode(_ value: Float) throws { store(.real(Double(value))) }
    func encode(_ value: Int) throws { store(.integer(PlistInteger(Int64(value)))) }
    func encode(_ value: Int8) throws { store(.integer(PlistInteger(Int64(value)))) }
    func encode(_ value: Int16) throws { store(.integer(PlistInteger(Int64(value)))) }
    func encode(_ value: Int32) throws { store(.integer(PlistInteger(Int64(value)))) }
    func encode(_ value: Int64) throws { store(.integer(PlistInteger(value))) }
    func encode(_ value: Int128) throws { store(try value.encodedValue(at: path)) }
    func encode(_ value: UInt) throws { store(.integer(PlistInteger(UInt64(value)))) }
    func encode(_ value: UInt8) throws { store(.integer(PlistInteger(UInt64(value)))) }
    func encode(_ value: UInt16) throws { store(.integer(PlistInteger(UInt64(value)))) }
    func encode(_ value: UInt32) throws { store(.integer(PlistInteger(UInt64(value)))) }
    func encode(_ value: UInt64) throws { store(.integer(PlistInteger(value))) }
    func encode(_ value: UInt128) throws { store(try value.encodedValue(at: path)) }

    func encode<T: Encodable>(_ value: T) throws {
        store(try encodeNested(value, at: path))
    }
}
