// SPDX-License-Identifier: Apache-2.0
public import FoundationEssentials
import PrefsStore

// The getters of the `UserDefaults` surface. Each looks the key up in the search list (first hit wins) and reads the
// value with the coercion rule of its type (docs/PREFERENCES.md, "Coercion"); none throws.

extension Preferences {
    /// The effective value of a key as a Swift value, or `nil` when no layer holds it.
    ///
    /// Strings read as `String`, integers as `Int` (`UInt64` above `Int.max`), reals as `Double`, Booleans as
    /// `Bool`, dates as `Date`, data as `Data`, arrays as `[Any]` and dictionaries as `[String: Any]`.
    /// - Parameter key: The key.
    public func object(forKey key: String) -> Any? {
        effectiveValue(forKey: key).flatMap(AnyPlistConversion.anyValue)
    }

    /// The effective value of a key read as a string: strings, and numbers and Booleans as `defaults read` prints
    /// them (`123`, `0.5`, `1`); `nil` for anything else or when absent.
    /// - Parameter key: The key.
    public func string(forKey key: String) -> String? {
        effectiveValue(forKey: key).flatMap(PreferenceCoercion.string)
    }

    /// The effective value of a key read as an integer: integers, Booleans (1/0), reals rounded down (`2.67` → 2),
    /// numeric strings (`"123"` → 123); `0` for anything else or when absent.
    /// - Parameter key: The key.
    public func integer(forKey key: String) -> Int {
        guard let value = effectiveValue(forKey: key) else { return 0 }
        return PreferenceCoercion.int(value) ?? 0
    }

    /// The effective value of a key read as a double: reals, integers, Booleans (1.0/0.0), numeric strings;
    /// `0` for anything else or when absent.
    /// - Parameter key: The key.
    public func double(forKey key: String) -> Double {
        guard let value = effectiveValue(forKey: key) else { return 0 }
        return PreferenceCoercion.double(value) ?? 0
    }

    /// The effective value of a key read as a float (the double rule, rounded to the nearest `Float`); `0` for
    /// anything else or when absent.
    /// - Parameter key: The key.
    public func float(forKey key: String) -> Float {
        guard let value = effectiveValue(forKey: key) else { return 0 }
        return PreferenceCoercion.double(value).map { Float($0) } ?? 0
    }

    /// The effective value of a key read as a Boolean: `true` for `true`, non-zero numbers, and the strings "YES",
    /// "true" (any case) and non-zero numbers; `false` for anything else or when absent.
    /// - Parameter key: The key.
    public func bool(forKey key: String) -> Bool {
        guard let value = effectiveValue(forKey: key) else { return false }
        return PreferenceCoercion.bool(value) ?? false
    }

    /// The effective value of a key read as a URL: a string with a scheme is that URL, whole; an absolute or `~`
    /// path is a file URL; `nil` for anything else or when absent.
    /// - Parameter key: The key.
    public func url(forKey key: String) -> URL? {
        effectiveValue(forKey: key).flatMap(PreferenceCoercion.url)
    }

    /// The effective value of a key when it is data; `nil` otherwise.
    /// - Parameter key: The key.
    public func data(forKey key: String) -> Data? {
        effectiveValue(forKey: key).flatMap(PreferenceCoercion.data)
    }

    /// The effective value of a key when it is a date; `nil` otherwise.
    /// - Parameter key: The key.
    public func date(forKey key: String) -> Date? {
        effectiveValue(forKey: key).flatMap(PreferenceCoercion.date)
    }

    /// The effective value of a key when it is an array, with elements as ``object(forKey:)`` gives them; `nil`
    /// otherwise.
    /// - Parameter key: The key.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let elements)? = effectiveValue(forKey: key) else { return nil }
        return elements.map { AnyPlistConversion.anyValue($0) as Any }
    }

    /// The effective value of a key when it is a dictionary, with values as ``object(forKey:)`` gives them; `nil`
    /// otherwise.
    /// - Parameter key: The key.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let entries)? = effectiveValue(forKey: key) else { return nil }
        return AnyPlistConversion.anyDictionary(entries)
    }

    /// The effective value of a key when it is an array of strings only; `nil` otherwise (numbers are not
    /// converted).
    /// - Parameter key: The key.
    public func stringArray(forKey key: String) -> [String]? {
        effectiveValue(forKey: key).flatMap(PreferenceCoercion.stringArray)
    }

    /// Every effective key and value of the search list: the instance's domain, its suites, the global domain, the
    /// system layer and the registration defaults, merged with the first hit winning.
    public func dictionaryRepresentation() -> [String: Any] {
        AnyPlistConversion.anyDictionary(view.values)
    }

    /// Whether the effective value of a key is forced by the administrator (`/etc/preferences/forced/…`), so that
    /// no write through this instance can change it.
    /// - Parameter key: The key.
    public func objectIsForced(forKey key: String) -> Bool {
        forcingLayer(ofKey: key, in: domainName) != nil
    }

    /// Whether a key of a domain is forced by the administrator (in the domain's or the global forced file).
    /// - Parameters:
    ///   - key: The key.
    ///   - domain: The domain's name.
    /// - Returns: `false` also for a name that is not a valid domain name.
    public func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        guard let name = try? Preferences.domainName(domain) else { return false }
        return forcingLayer(ofKey: key, in: name) != nil
    }
}
