// SPDX-License-Identifier: Apache-2.0
extension Preferences {
    /// A typed key: its name, its type and the value it has when no layer holds it.
    ///
    /// ```swift
    /// extension Preferences.Key where Value == Int {
    ///     static let fontSize = Preferences.Key("FontSize", default: 12)
    /// }
    /// struct Window: Codable { var width = 640, height = 480 }
    /// let window = Preferences.Key("Window", default: Window())
    ///
    /// prefs[.fontSize] += 1                   // reads with the integer rule, stores an integer
    /// prefs[window].width = 800               // stored as a native dictionary
    /// ```
    ///
    /// Keys of ``PreferenceValue`` types read with the coercion rules of the typed getters; keys of other
    /// `Codable` types are stored through ``/PrefsPlist/PlistEncoder`` as native dictionaries and arrays. A stored
    /// value that cannot be read as the type gives the default through the subscript, and a `typeMismatch` error
    /// through ``Preferences/value(for:)``.
    public struct Key<Value: Sendable>: Sendable, CustomStringConvertible {
        /// The key's name in the domain.
        public let name: String
        /// The value read when no layer holds the key, or when its value cannot be read as `Value`.
        public let defaultValue: Value
        @usableFromInline let read: @Sendable (PlistValue) throws(PreferencesError) -> Value
        @usableFromInline let write: @Sendable (Value) throws(PreferencesError) -> PlistValue?

        /// `FontSize (Int, default 12)`.
        public var description: String { "\(name) (\(Value.self), default \(defaultValue))" }
    }

    /// The effective value of a typed key: its default when no layer holds it or its value cannot be read as the
    /// key's type. Setting writes this instance's domain (`nil` for an optional removes the key); a refused write
    /// goes to the diagnostics handler, as with `set(_:forKey:)`.
    /// - Parameter key: The key.
    @inlinable  // specialized in the caller, so that a read of an `Int` key does not go through generic code
    public subscript<Value>(key: Key<Value>) -> Value {
        get {
            guard let stored = effectiveValue(forKey: key.name) else { return key.defaultValue }
            do throws(PreferencesError) {
                return try key.read(stored)
            } catch {
                return key.defaultValue
            }
        }
        set {
            do throws(PreferencesError) {
                try setValue(newValue, for: key)
            } catch {
                report(error)
            }
        }
    }

    /// The effective value of a typed key, or its default when no layer holds it.
    /// - Parameter key: The key.
    /// - Throws: ``PreferencesError``: `typeMismatch` when the stored value cannot be read as the key's type, or as
    ///   ``value(forKey:)``.
    public func value<Value>(for key: Key<Value>) throws(PreferencesError) -> Value {
        guard let stored = try value(forKey: key.name) else { return key.defaultValue }
        do throws(PreferencesError) {
            return try key.read(stored)
        } catch {
            var error = error
            error.message = "key \(key.name) of domain \(domain): " + error.message
            throw error
        }
    }

    /// Sets a typed key in this instance's domain (`nil` for an optional removes it).
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    /// - Throws: ``PreferencesError``: `invalidValue` when the value cannot be stored, or as ``setValue(_:forKey:)``.
    public func setValue<Value>(_ value: Value, for key: Key<Value>) throws(PreferencesError) {
        let stored: PlistValue?
        do throws(PreferencesError) {
            stored = try key.write(value)
        } catch {
            throw error.inDomain(domain, key: key.name)
        }
        try write(stored, forKey: key.name)
    }
}

extension Preferences.Key where Value: PreferenceValue {
    /// A key whose value reads with its type's coercion rule (``PreferenceValue``).
    /// - Parameters:
    ///   - name: The key's name.
    ///   - defaultValue: The value when no layer holds the key, or its value does not read as `Value`.
    @inlinable  // the reading closure is then specialized for `Value` where the key is made
    public init(_ name: String, default defaultValue: Value) {
        self.name = name
        self.defaultValue = defaultValue
        self.read = { stored throws(PreferencesError) in
            guard let value = Value(storedValue: stored) else {
                throw PreferencesError(
                    .typeMismatch,
                    "the stored \(stored.typeName) \(stored.defaultsDescription) does not read as \(Value.self)")
            }
            return value
        }
        self.write = { value throws(PreferencesError) in try value.storedValue() }
    }
}

extension Preferences.Key where Value: Codable {
    /// A key whose value is stored as a native property list through ``/PrefsPlist/PlistEncoder`` (a struct as a
    /// dictionary, its dates as dates), and read back through ``/PrefsPlist/PlistDecoder``.
    /// - Parameters:
    ///   - name: The key's name.
    ///   - defaultValue: The value when no layer holds the key, or its value does not decode as `Value`.
    public init(_ name: String, default defaultValue: Value) {
        self.name = name
        self.defaultValue = defaultValue
        self.read = { stored throws(PreferencesError) in
            do {
                return try PlistDecoder().decode(Value.self, from: stored)
            } catch {
                throw PreferencesError(
                    .typeMismatch, "the stored \(stored.typeName) does not decode as \(Value.self)",
                    cause: error)
            }
        }
        self.write = { value throws(PreferencesError) in
            do {
                return try Preferences.valueEncoder.encode(value)
            } catch {
                throw PreferencesError(
                    .invalidValue, "a \(Value.self) cannot be stored as a property list",
                    cause: error)
            }
        }
    }
}
