// SPDX-License-Identifier: Apache-2.0
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
    /// dictionaries of these at any depth; and Foundation's property-list classes, as `UserDefaults` takes them
    /// (``foundationObjectValue(_:at:)``).
    /// - Parameters:
    ///   - value: The value.
    ///   - path: Where the value sits, for the error message (`key`, `key[2]`, `key.name`).
    /// - Throws: ``PreferencesError`` with code `invalidValue` naming the path and the type that is not a
    ///   property-list value (a `nil`, an instance of another class, a dictionary with non-string keys, …).
    static func plistValue(_ value: Any, at path: String) throws(PreferencesError) -> PlistValue {
        // A class instance first: an `NSNumber` would pass the `Bool` cast below when it holds 0 or 1.
        if type(of: value) is AnyClass { return try foundationObjectValue(value, at: path) }
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
        case let value as [Any]: return try arrayValue(value, at: path)
        case let value as [String: Any]: return try dictionaryValue(value, at: path)
        default:
            if isNil(value) {
                throw PreferencesError(
                    .invalidValue, "nil at \(path) cannot be stored: property lists have no null (remove the key)")
            }
            throw notAPlistValue(value, at: path)
        }
    }

    /// The property-list value for an instance of a class: Foundation's property-list classes as `UserDefaults`
    /// stores them, or a class of the program's that is `PlistRepresentable`.
    ///
    /// `NSString` is a string; `NSNumber` a boolean when it is a `CFBoolean` (`NSNumber(value: true)`), an integer
    /// when it holds one, else a real (a 32-bit float as its shortest decimal, as a `Float` is stored); `NSData` is
    /// data; `NSDate` a date; `NSURL` its absolute string, as `set(_ url:forKey:)` stores a `URL`; `NSArray` and
    /// `NSDictionary` (string keys) convert element by element.
    private static func foundationObjectValue(_ object: Any, at path: String) throws(PreferencesError) -> PlistValue {
        if let number = numberValue(object) { return number }
        switch object {
        case let value as String: return .string(value)
        case let value as any PlistRepresentable: return value.plistValue
        case let value as Data: return value.plistValue
        case let value as Date: return value.plistValue
        case let value as URL: return value.plistValue
        case let value as [Any]: return try arrayValue(value, at: path)
        case let value as [String: Any]: return try dictionaryValue(value, at: path)
        default: throw notAPlistValue(object, at: path)
        }
    }

    /// The value of an `NSNumber`, or `nil` when `object` is not one. Only an `NSNumber` bridges to Swift's numbers;
    /// CoreFoundation then tells what it holds, since the casts cannot (`NSNumber(value: 1) as? Bool` succeeds).
    private static func numberValue(_ object: Any) -> PlistValue? {
        let signed = object as? Int64
        let unsigned = signed == nil ? object as? UInt64 : nil
        let real = signed == nil && unsigned == nil ? object as? Double : nil
        guard signed != nil || unsigned != nil || real != nil else { return nil }
        switch SystemInterface.numberKind(of: object as AnyObject) {
        case .boolean:
            return .bool(signed != 0)
        case .float32:
            return (object as? Float).map { .real($0.shortestDouble) } ?? .real(real ?? (object as? Double) ?? 0)
        case .float64:
            return .real(real ?? (object as? Double) ?? 0)
        case .integer, nil:
            if let signed { return .integer(PlistInteger(signed)) }
            if let unsigned { return .integer(PlistInteger(unsigned)) }
            return real.map(PlistValue.real)
        }
    }

    private static func arrayValue(_ value: [Any], at path: String) throws(PreferencesError) -> PlistValue {
        var elements: [PlistValue] = []
        elements.reserveCapacity(value.count)
        for (index, element) in value.enumerated() {
            elements.append(try plistValue(element, at: "\(path)[\(index)]"))
        }
        return .array(elements)
    }

    private static func dictionaryValue(_ value: [String: Any], at path: String) throws(PreferencesError) -> PlistValue
    {
        var entries: PlistDictionary = [:]
        entries.reserveCapacity(value.count)
        for (key, element) in value {
            entries[key] = try plistValue(element, at: "\(path).\(key)")
        }
        return .dictionary(entries)
    }

    private static func notAPlistValue(_ value: Any, at path: String) -> PreferencesError {
        PreferencesError(.invalidValue, "value of type \(type(of: value)) at \(path) is not a property-list value")
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
