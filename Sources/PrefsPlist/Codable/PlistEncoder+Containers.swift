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
    private var values: PlistDictionary = [:]
    private var pending: [String: PlistPendingEncoding] = [:]

    func set(_ value: PlistValue, forKey key: String) {
        values[key] = value
        if !pending.isEmpty { pending.removeValue(forKey: key) }
    }

    /// Leaves `key` out: that is how a `nil` is stored, since property lists have no null.
    func remove(_ key: String) {
        values.removeValue(forKey: key)
        if !pending.isEmpty { pending.removeValue(forKey: key) }
    }

    func setPending(_ node: PlistPendingEncoding, forKey key: String) {
        values.removeValue(forKey: key)
        pending[key] = node
    }

    func pendingNode(forKey key: String) -> PlistPendingEncoding? {
        pending[key]
    }

    func finish(at path: PlistCodingPath) throws -> PlistValue {
        guard !pending.isEmpty else { return .dictionary(values) }
        var result = values
        for (key, node) in pending {
            if let value = try node.finish(at: path.appending(key: key)) { result[key] = value }
        }
        return .dictionary(result)
    }
}

/// The elements an unkeyed container has written; nested containers and super encoders hold a
/// placeholder until the array finishes.
final class PlistEncodingArray {
    private var values: [PlistValue] = []
    private var pending: [(index: Int, node: PlistPendingEncoding)] = []

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
            guard let value = try node.finish(at: path.appending(index: index)) else {
                throw PlistEncodingArray.nilElementError(at: path.appending(index: index))
            }
            result[index] = value
        }
        return .array(result)
    }

    static func nilElementError(at path: PlistCodingPath) -> PlistError {
        PlistError(.unrepresentable, "nil cannot be stored in an array: property lists have no null", at: path.position)
    }
}

/// Writes a Codable keyed container into a plist dictionary; `nil` leaves the key out.
struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PlistEncodingState
    let storage: PlistEncodingDictionary
    let path: PlistCodingPath

    var codingPath: [any CodingKey] { path.codingKeys }

    private func set(_ value: PlistValue, _ key: Key) {
        storage.set(value, forKey: key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws { storage.remove(key.stringValue) }
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
        if let encoded = try encoder.encodeNested(value, at: path.appending(key: key)) {
            set(encoded, key)
        } else {
            storage.remove(key.stringValue)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let dictionary: PlistEncodingDictionary
        if case .dictionary(let existing) = storage.pendingNode(forKey: key.stringValue) {
            dictionary = existing
        } else {
            dictionary = PlistEncodingDictionary()
            storage.setPending(.dictionary(dictionary), forKey: key.stringValue)
        }
        return KeyedEncodingContainer(
            PlistKeyedEncodingContainer<NestedKey>(
                encoder: encoder, storage: dictionary, path: path.appending(key: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let array: PlistEncodingArray
        if case .array(let existing) = storage.pendingNode(forKey: key.stringValue) {
            array = existing
        } else {
            array = PlistEncodingArray()
            storage.setPending(.array(array), forKey: key.stringValue)
        }
        return PlistUnkeyedEncodingContainer(encoder: encoder, storage: array, path: path.appending(key: key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(codingKey: PlistCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(codingKey: key)
    }

    private func superEncoder(codingKey: some CodingKey) -> any Encoder {
        let superEncoder = PlistEncodingState(path: path.appending(key: codingKey), userInfo: encoder.userInfoValues)
        storage.setPending(.encoder(superEncoder), forKey: codingKey.stringValue)
        return superEncoder
    }
}

/// Writes a Codable unkeyed container into a plist array; `nil` is an error.
struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: PlistEncodingState
    let storage: PlistEncodingArray
    let path: PlistCodingPath

    var codingPath: [any CodingKey] { path.codingKeys }

    var count: Int { storage.count }

    mutating func encodeNil() throws {
        throw PlistEncodingArray.nilElementError(at: path.appending(index: count))
    }

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
        guard let encoded = try encoder.encodeNested(value, at: path.appending(index: count)) else {
            throw PlistEncodingArray.nilElementError(at: path.appending(index: count))
        }
        storage.append(encoded)
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
