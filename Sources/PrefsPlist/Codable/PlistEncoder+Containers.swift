// SPDX-License-Identifier: Apache-2.0
/// A container or encoder handed out before it is filled: a nested container, or the encoder from
/// `superEncoder()`. Its parent keeps a reference and reads it when the parent finishes.
enum PlistPendingEncoding {
    case dictionary(PlistEncodingDictionary)
    case array(PlistEncodingArray)
    case encoder(PlistEncodingState)

    /// The finished value; `nil` when a `superEncoder()` encoder encoded `nil`.
    func finish(at path: PlistCodingPath) throws -> PlistValue? {
        switch self {
        case .dictionary(let dictionary): try dictionary.finish(at: path)
        case .array(let array): try array.finish(at: path)
        case .encoder(let encoder): try encoder.finish()
        }
    }
}

/// The entries a keyed container has written. Finished values go straight into a plist dictionary;
/// only nested containers and super encoders wait, so the common case needs no conversion.
final class PlistEncodingDictionary {
    /// What a key holds so far.
    enum Slot {
        case empty
        case value(PlistValue)
        case pending(PlistPendingEncoding)
    }

    private var values: PlistDictionary
    private var pending: [String: PlistPendingEncoding] = [:]

    init(entries: PlistDictionary = [:]) {
        values = entries
    }

    func set(_ value: PlistValue, forKey key: String) {
        values[key] = value
        if !pending.isEmpty { pending.removeValue(forKey: key) }
    }

    func setPending(_ node: PlistPendingEncoding, forKey key: String) {
        values.removeValue(forKey: key)
        pending[key] = node
    }

    func slot(forKey key: String) -> Slot {
        if let node = pending[key] { return .pending(node) }
        if let value = values[key] { return .value(value) }
        return .empty
    }

    func finish(at path: PlistCodingPath) throws -> PlistValue {
        guard !pending.isEmpty else { return .dictionary(values) }
        var result = values
        for (key, node) in pending {
            result[key] = try node.finish(at: path.appending(key: key)) ?? .codableNull
        }
        return .dictionary(result)
    }
}

/// The elements an unkeyed container has written; nested containers and super encoders hold a
/// placeholder until the array finishes.
final class PlistEncodingArray {
    private var values: [PlistValue]
    private var pending: [(index: Int, node: PlistPendingEncoding)] = []

    init(elements: [PlistValue] = []) {
        values = elements
    }

    var count: Int { values.count }

    func append(_ value: PlistValue) {
        values.append(value)
    }

    func appendPending(_ node: PlistPendingEncoding) {
        pending.append((values.count, node))
        values.append(.null)
    }

    func finish(at path: PlistCodingPath) throws -> PlistValue {
        guard !pending.isEmpty else { return .array(values) }
        var result = values
        for (index, node) in pending {
            result[index] = try node.finish(at: path.appending(index: index)) ?? .codableNull
        }
        return .array(result)
    }
}

/// Writes a Codable keyed container into a plist dictionary; `nil` is stored as `$null`.
///
/// A key holds one thing. Asking twice for a keyed (or unkeyed) container under one key gives the
/// same container, as Foundation does; asking for a container of another kind, or a super encoder,
/// under a key that already holds a container or a value of another kind is a misuse, which the
/// encoder throws with the key's coding path when the value finishes (Foundation traps).
struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PlistEncodingState
    let storage: PlistEncodingDictionary
    let path: PlistCodingPath

    var codingPath: [any CodingKey] { path.codingKeys }

    private func set(_ value: PlistValue, _ key: Key) {
        storage.set(value, forKey: key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws { set(.codableNull, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.real(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.real(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(PlistInteger(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.integer(PlistInteger(value)), key) }

    mutating func encode(_ value: Int128, forKey key: Key) throws {
        set(try value.encodedValue(at: path.appending(key: key)), key)
    }

    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        set(try value.encodedValue(at: path.appending(key: key)), key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encoder.encodeNested(value, at: path.appending(key: key)) ?? .codableNull, key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let name = key.stringValue
        let dictionary: PlistEncodingDictionary
        switch storage.slot(forKey: name) {
        case .pending(.dictionary(let existing)):
            dictionary = existing
        case .value(.dictionary(let entries)):
            dictionary = PlistEncodingDictionary(entries: entries)
            storage.setPending(.dictionary(dictionary), forKey: name)
        case .empty:
            dictionary = PlistEncodingDictionary()
            storage.setPending(.dictionary(dictionary), forKey: name)
        case let slot:
            recordConflict(asking: "a keyed container", holding: slot, key: key)
            dictionary = PlistEncodingDictionary()
        }
        return KeyedEncodingContainer(
            PlistKeyedEncodingContainer<NestedKey>(
                encoder: encoder, storage: dictionary, path: path.appending(key: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = key.stringValue
        let array: PlistEncodingArray
        switch storage.slot(forKey: name) {
        case .pending(.array(let existing)):
            array = existing
        case .value(.array(let elements)):
            array = PlistEncodingArray(elements: elements)
            storage.setPending(.array(array), forKey: name)
        case .empty:
            array = PlistEncodingArray()
            storage.setPending(.array(array), forKey: name)
        case let slot:
            recordConflict(asking: "an unkeyed container", holding: slot, key: key)
            array = PlistEncodingArray()
        }
        return PlistUnkeyedEncodingContainer(encoder: encoder, storage: array, path: path.appending(key: key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(codingKey: PlistCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(codingKey: key)
    }

    /// A super encoder replaces a finished value under its key, as in Foundation, but not a container or another
    /// super encoder still being filled.
    private func superEncoder(codingKey: some CodingKey) -> any Encoder {
        let superEncoder = PlistEncodingState(path: path.appending(key: codingKey), userInfo: encoder.userInfoValues)
        let slot = storage.slot(forKey: codingKey.stringValue)
        if case .pending = slot {
            recordConflict(asking: "a super encoder", holding: slot, key: codingKey)
        } else {
            storage.setPending(.encoder(superEncoder), forKey: codingKey.stringValue)
        }
        return superEncoder
    }

    /// Records that `key` was asked for something it cannot hold besides what it holds; the container or encoder
    /// handed out instead is detached, and the encoder throws when the value finishes.
    private func recordConflict(asking request: String, holding slot: PlistEncodingDictionary.Slot, key: some CodingKey)
    {
        let held: String
        switch slot {
        case .empty: return
        case .value(let value): held = "a \(value.typeName) value"
        case .pending(.dictionary): held = "a keyed container"
        case .pending(.array): held = "an unkeyed container"
        case .pending(.encoder): held = "a super encoder"
        }
        encoder.recordMisuse(
            "conflicting use of key '\(key.stringValue)': \(request) was requested where \(held) was already encoded",
            at: path.appending(key: key))
    }
}

/// Writes a Codable unkeyed container into a plist array; `nil` is stored as `$null`, as Foundation does.
struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: PlistEncodingState
    let storage: PlistEncodingArray
    let path: PlistCodingPath

    var codingPath: [any CodingKey] { path.codingKeys }

    var count: Int { storage.count }

    mutating func encodeNil() throws { storage.append(.codableNull) }

    mutating func encode(_ value: Bool) throws { storage.append(.bool(value)) }
    mutating func encode(_ value: String) throws { storage.append(.string(value)) }
    mutating func encode(_ value: Double) throws { storage.append(.real(value)) }
    mutating func encode(_ value: Float) throws { storage.append(.real(Double(value))) }
    mutating func encode(_ value: Int) throws { storage.append(.integer(PlistInteger(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { storage.append(.integer(PlistInteger(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { storage.append(.integer(PlistInteger(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { storage.append(.integer(PlistInteger(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { storage.append(.integer(PlistInteger(value))) }
    mutating func encode(_ value: UInt) throws { storage.append(.integer(PlistInteger(UInt64(value)))) }
    mutating func encode(_ value: UInt8) throws { storage.append(.integer(PlistInteger(UInt64(value)))) }
    mutating func encode(_ value: UInt16) throws { storage.append(.integer(PlistInteger(UInt64(value)))) }
    mutating func encode(_ value: UInt32) throws { storage.append(.integer(PlistInteger(UInt64(value)))) }
    mutating func encode(_ value: UInt64) throws { storage.append(.integer(PlistInteger(value))) }

    mutating func encode(_ value: Int128) throws {
        storage.append(try value.encodedValue(at: path.appending(index: count)))
    }

    mutating func encode(_ value: UInt128) throws {
        storage.append(try value.encodedValue(at: path.appending(index: count)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        storage.append(try encoder.encodeNested(value, at: path.appending(index: count)) ?? .codableNull)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let dictionary = PlistEncodingDictionary()
        let elementPath = path.appending(index: count)
        storage.appendPending(.dictionary(dictionary))
        return KeyedEncodingContainer(
            PlistKeyedEncodingContainer<NestedKey>(encoder: encoder, storage: dictionary, path: elementPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let array = PlistEncodingArray()
        let elementPath = path.appending(index: count)
        storage.appendPending(.array(array))
        return PlistUnkeyedEncodingContainer(encoder: encoder, storage: array, path: elementPath)
    }

    mutating func superEncoder() -> any Encoder {
        let superEncoder = PlistEncodingState(path: path.appending(index: count), userInfo: encoder.userInfoValues)
        storage.appendPending(.encoder(superEncoder))
        return superEncoder
    }
}
