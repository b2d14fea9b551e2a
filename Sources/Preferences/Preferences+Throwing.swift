// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsStore

// The throwing API: it tells a key that is absent (`nil`, no error) from a store that cannot answer
// (`storeUnavailable`, `corrupt`), and reports refused writes to the caller.

extension Preferences {
    /// The effective value of a key, or `nil` when no layer holds it.
    ///
    /// A layer whose file cannot be read is searched as empty by the other getters; here it is an error when it
    /// could change the answer: when it comes before the layer that supplied the value, or the key is absent.
    /// - Parameter key: The key.
    /// - Returns: The value as stored, or `nil` when the key is absent from every layer.
    /// - Throws: ``PreferencesError`` with code `corrupt` (a file that is not a property list) or `storeUnavailable`
    ///   (a file that cannot be read, a missing machine id), naming the file.
    public func value(forKey key: String) throws(PreferencesError) -> PlistValue? {
        let list = searchList
        let resolution = engine.resolve(key, in: list)
        if !resolution.skipped.isEmpty {
            let layers = list.layers
            let winnerPosition = resolution.winner.flatMap { winner in layers.firstIndex(of: winner.layer) }
            for skipped in resolution.skipped {
                let position = layers.firstIndex(of: skipped.layer) ?? 0
                if winnerPosition.map({ position < $0 }) ?? true {
                    var error = PreferencesError(skipped.error)
                    error.message = "cannot tell the value of key \(key) in \(list): " + error.message
                    throw error
                }
            }
        }
        return resolution.value
    }

    /// Sets a key of this instance's domain, or removes it when `value` is `nil`.
    /// - Parameters:
    ///   - value: The value, or `nil` to remove the key.
    ///   - key: The key.
    /// - Throws: ``PreferencesError``: `readOnly` when the administrator forces the key (nothing is written),
    ///   `limitExceeded` naming the limit (key length, nesting depth, domain size).
    public func setValue(_ value: PlistValue?, forKey key: String) throws(PreferencesError) {
        try write(value, forKey: key)
    }

    /// Writes every change durably (`fsync`ed) and reads in changes made elsewhere.
    /// - Throws: ``PreferencesError`` with code `storeUnavailable` (a directory that cannot be created, a file that
    ///   cannot be written) or `limitExceeded`, for the first domain that could not be written; this process's
    ///   unwritten changes of the domains that could not be written are withdrawn (on the files as through prefsd):
    ///   a write is durable, or it changes nothing.
    public func synchronizeThrowing() throws(PreferencesError) {
        do throws(PrefsAccessError) {
            try access.synchronize()
        } catch {
            throw PreferencesError(error)
        }
    }

    /// Stores a `Codable` value under a key as a native property list (a dictionary for a struct, an array for an
    /// array, dates as dates, data as data, URLs as strings), not as JSON text.
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    /// - Throws: ``PreferencesError``: `invalidValue` when the value cannot be encoded (the cause says where), or as
    ///   ``setValue(_:forKey:)``.
    public func setEncoded<Value: Encodable>(_ value: Value, forKey key: String) throws(PreferencesError) {
        try write(try Self.encode(value, key: key, domain: domain), forKey: key)
    }

    /// Reads a `Codable` value stored with ``setEncoded(_:forKey:)`` (or any property list of its shape).
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The key.
    /// - Returns: The value, or `nil` when the key is absent.
    /// - Throws: ``PreferencesError``: `typeMismatch` when the stored value does not decode as `type` (the cause
    ///   names the coding path), or as ``value(forKey:)``.
    public func decoded<Value: Decodable>(_ type: Value.Type, forKey key: String) throws(PreferencesError) -> Value? {
        guard let stored = try value(forKey: key) else { return nil }
        return try Self.decode(type, from: stored, key: key, domain: domain)
    }

    // MARK: Codable

    /// The encoder of `Codable` values: a key's value may be a lone string, number or date (an enum's raw value,
    /// say), which Foundation's `PropertyListEncoder` refuses at the top level of a file.
    static let valueEncoder: PlistEncoder = {
        var encoder = PlistEncoder()
        encoder.allowsFragments = true
        return encoder
    }()

    static func encode<Value: Encodable>(
        _ value: Value, key: String, domain: String
    ) throws(PreferencesError)
        -> PlistValue
    {
        do {
            return try Self.valueEncoder.encode(value)
        } catch {
            throw PreferencesError(
                .invalidValue, "cannot store a \(Value.self) under key \(key) of domain \(domain)",
                cause: error)
        }
    }

    static func decode<Value: Decodable>(
        _ type: Value.Type, from stored: PlistValue, key: String, domain: String
    ) throws(PreferencesError) -> Value {
        do {
            return try PlistDecoder().decode(type, from: stored)
        } catch {
            throw PreferencesError(
                .typeMismatch, "the \(stored.typeName) under key \(key) of domain \(domain) is not a \(Value.self)",
                cause: error)
        }
    }
}
