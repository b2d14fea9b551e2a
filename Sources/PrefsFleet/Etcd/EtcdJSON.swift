// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The JSON gateway's conventions: 64-bit integers are strings, bytes are base64, absent means zero or empty.
enum EtcdJSON {
    /// Encodes a request body.
    static func encode(_ dictionary: PlistDictionary) -> [UInt8] {
        // Only strings, booleans and nested dictionaries and arrays of them are ever put in a request: encodable.
        (try? PlistSerialization.encodeJSON(.dictionary(dictionary), pretty: false)) ?? Array("{}".utf8)
    }

    /// Decodes a response body, which must be a JSON object.
    static func decode(_ bytes: [UInt8], what: String) throws(EtcdError) -> PlistDictionary {
        let value: PlistValue
        do {
            value = try PlistSerialization.decode(bytes, format: .json).value
        } catch {
            throw EtcdError(.malformedResponse, "etcd's answer to \(what) is not JSON: \(error)")
        }
        guard case .dictionary(let dictionary) = value else {
            throw EtcdError(.malformedResponse, "etcd's answer to \(what) is not a JSON object")
        }
        return dictionary
    }

    /// Base64 text of bytes.
    static func base64(_ bytes: [UInt8]) -> PlistValue {
        .string(String(decoding: Base64.encode(bytes), as: UTF8.self))
    }

    /// Base64 text of a string's UTF-8 bytes.
    static func base64(_ text: String) -> PlistValue { base64(Array(text.utf8)) }

    /// The bytes of a base64 field.
    static func bytes(_ dictionary: PlistDictionary, _ name: String) throws(EtcdError) -> [UInt8] {
        guard case .string(let text)? = dictionary[name] else {
            throw EtcdError(.malformedResponse, "etcd's answer lacks the field \(name)")
        }
        let utf8 = Array(text.utf8)
        guard let bytes = utf8.withUnsafeBytes({ Base64.decode($0) }) else {
            throw EtcdError(.malformedResponse, "etcd's field \(name) is not base64")
        }
        return bytes
    }

    /// A 64-bit integer field (a string, or a number), or `nil` when absent.
    static func integer(_ dictionary: PlistDictionary, _ name: String) throws(EtcdError) -> Int64? {
        switch dictionary[name] {
        case nil: return nil
        case .string(let text)?:
            guard let number = Int64(text) else {
                throw EtcdError(.malformedResponse, "etcd's field \(name) is not an integer (\(text))")
            }
            return number
        case .integer(let integer)?:
            guard let number = integer.int64Value else {
                throw EtcdError(.malformedResponse, "etcd's field \(name) is out of range")
            }
            return number
        default:
            throw EtcdError(.malformedResponse, "etcd's field \(name) is not an integer")
        }
    }

    /// An unsigned 64-bit field (member ids are `uint64`), written as a string; `nil` when absent.
    static func unsigned(_ dictionary: PlistDictionary, _ name: String) throws(EtcdError) -> UInt64? {
        switch dictionary[name] {
        case nil: return nil
        case .string(let text)?:
            guard let number = UInt64(text) else {
                throw EtcdError(.malformedResponse, "etcd's field \(name) is not an unsigned integer (\(text))")
            }
            return number
        case .integer(let integer)?:
            guard let number = integer.int64Value, number >= 0 else {
                throw EtcdError(.malformedResponse, "etcd's field \(name) is out of range")
            }
            return UInt64(number)
        default:
            throw EtcdError(.malformedResponse, "etcd's field \(name) is not an unsigned integer")
        }
    }

    /// A dictionary field, empty when absent.
    static func dictionary(_ dictionary: PlistDictionary, _ name: String) -> PlistDictionary {
        if case .dictionary(let value)? = dictionary[name] { return value }
        return [:]
    }

    /// An array-of-dictionaries field, empty when absent.
    static func dictionaries(_ dictionary: PlistDictionary, _ name: String) -> [PlistDictionary] {
        guard case .array(let values)? = dictionary[name] else { return [] }
        return values.compactMap { if case .dictionary(let value) = $0 { value } else { nil } }
    }

    /// The revision in a response's `header`.
    static func headerRevision(_ dictionary: PlistDictionary) throws(EtcdError) -> Int64 {
        try integer(self.dictionary(dictionary, "header"), "revision") ?? 0
    }

    /// The `range_end` that selects every key starting with `prefix`: the prefix with its last byte below 0xff
    /// incremented (etcd's `clientv3.GetPrefixRangeEnd`).
    static func prefixRangeEnd(_ prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xff {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0]  // Every key.
    }
}
