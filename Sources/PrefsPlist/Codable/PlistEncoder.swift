/// Encodes `Encodable` values as native property-list values.
///
/// A keyed container becomes a plist dictionary, an unkeyed container an array, and a single
/// value a scalar: integers of every width become `integer` (values above `Int64.max` stay exact),
/// `Double` and `Float` become `float`, `Bool` becomes `boolean`, `String` becomes `string`. A
/// ``PlistRepresentable`` value, at any depth, is stored as its ``PlistRepresentable/plistValue``.
///
/// Property lists have no null: a `nil` under a dictionary key is left out, and a `nil` anywhere
/// else (the top level, an array element) is an error. A nested value that encodes nothing becomes
/// an empty dictionary, as with Foundation's `PropertyListEncoder`.
///
/// ```swift
/// struct Window: Codable { var width: Int; var title: String? }
/// let value = try PlistEncoder().encode(Window(width: 640, title: nil))  // ["width": 640]
/// ```
public struct PlistEncoder: Sendable {
    /// Values handed to every `encode(to:)` through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder with no user info.
    public init() {
        userInfo = [:]
    }

    /// Encodes a value as a property-list value.
    /// - Parameter value: The value to encode.
    /// - Returns: The plist form of `value`.
    /// - Throws: ``PlistError`` with code `unrepresentable` when `value` is `nil` at the top level
    ///   or in an array, holds an integer outside `Int64.min ... UInt64.max`, encodes nothing at the
    ///   top level, or misuses its containers; the position names the coding path. An
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
        if let scalar = value as? any PlistCodableScalar { return try scalar.encodedValue(at: .root) }
        if let representable = value as? any PlistRepresentable { return representable.plistValue }
        let encoder = PlistEncodingState(path: .root, userInfo: userInfo)
        try value.encode(to: encoder)
        guard encoder.hasEncodedValue else {
            throw PlistError(.unrepresentable, "\(T.self) did not encode any value", at: PlistCodingPath.root.position)
        }
        guard let encoded = try encoder.finish() else {
            throw PlistError(
                .unrepresentable, "nil cannot be stored at the top level: property lists have no null",
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

    private func recordMisuse(_ message: String) {
        if misuse == nil { misuse = PlistError(.unrepresentable, message, at: path.position) }
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
