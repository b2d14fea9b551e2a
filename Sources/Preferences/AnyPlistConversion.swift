import FoundationEssentials
import PrefsPlist

/// Conversions between the `Any` values of the `UserDefaults` surface and property-list values.
///
/// Reading gives Swift's own types: `String`, `Int` (`UInt64` above `Int.max`), `Double`, `Bool`, `Date`, `Data`,
/// `[Any]` and `[String: Any]`, so `object(forKey:) as? String` works as it does with `UserDefaults`.
enum AnyPlistConversion {
    /// The Swift value for a stored value; `nil` for the binary format's null marker. A keyed-archiver UID reads as
    /// its number (`UInt64`).
    static func anyValue(_ value: PlistValue) -> Any? {
        switch value {
        case .string(let string): return string
        case .integer(let integer):
            if let signed = integer.int64Value { return Int(signed) }
            return integer.uint64Value
        case .real(let real): return real
        case .bool(let bool): return bool
        case .date(let date): return Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
        case .data(let bytes): return Data(bytes)
        case .array(let elements): return elements.map { anyValue($0) as Any }
        case .dictionary(let entries): return anyDictionary(entries)
        case .uid(let uid): return uid
        case .null: return nil
        }
    }

    /// The Swift dictionary for stored values.
    static func anyDictionary(_ entries: PlistDictionary) -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(entries.count)
        for (key, value) in entries {
            if let converted = anyValue(value) { result[key] = converted }
        }
        return result
    }

    /// The property-list value for a Swift value.
    ///
    /// Accepted: `PlistValue`, any `PlistRepresentable` (`Date`, `Data`, `URL`, …), `String`, `Substring`,
    /// `Character`, `Bool`, every fixed-width integer type, `Double`, `Float`, and arrays and `[String: …]`
    /// dictionaries of these at any depth.
    /// - Parameters:
    ///   - value: The value.
    ///   - path: Where the value sits, for the error message (`key`, `key[2]`, `key.name`).
    /// - Throws: ``PreferencesError`` with code `invalidValue` naming the path and the type that is not a
    ///   property-list type (a `nil`, a class instance, a dictionary with non-string keys, …).
    static func plistValue(_ value: Any, at path: String) throws(PreferencesError) -> PlistValue {
        switch value {
        case let value as PlistValue: return value
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Int: return .integer(PlistInteger(Int64(value)))
        case let value as Double: return .real(value)
        case let value as Float: return .real(value.shortestDouble)
        case let value as any PlistRepresentable: return value.plistValue
        case let value as any BinaryInteger:
            guard let integer = PlistInteger(exactly: value) else {
                throw PreferencesError(.invalidValue, "integer \(value) at \(path) is outside Int64.min ... UInt64.max")
            }
            return .integer(integer)
        case let value as Substring: return .string(String(value))
        case let value as Character: return .string(String(value))
        case let value as [Any]:
            var elements: [PlistValue] = []
            elements.reserveCapacity(value.count)
            for (index, element) in value.enumerated() {
                elements.append(try plistValue(element, at: "\(path)[\(index)]"))
            }
            return .array(elements)
        case let value as [String: Any]:
            var entries: PlistDictionary = [:]
            entries.reserveCapacity(value.count)
            for (key, element) in value {
                entries[key] = try plistValue(element, at: "\(path).\(key)")
            }
            return .dictionary(entries)
        default:
            if isNil(value) {
                throw PreferencesError(
                    .invalidValue, "nil at \(path) cannot be stored: property lists have no null (remove the key)")
            }
            throw PreferencesError(
                .invalidValue, "value of type \(type(of: value)) at \(path) is not a property-list value")
        }
    }

    /// Whether an `Any` holds an `Optional` that is `nil`.
    private static func isNil(_ value: Any) -> Bool {
        if let optional = value as? any OptionalProtocol { return optional.isNone }
        return false
    }
}

/// Lets an `Any` that holds an `Optional` be asked whether it is `nil`.
private protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    fileprivate var isNone: Bool { self == nil }
}
