// SPDX-License-Identifier: Apache-2.0
public import FoundationEssentials
public import PrefsPlist

// Foundation's value types stored natively, so that Codable models holding them are stored as plist dates, data
// and strings (PlistEncoder and PlistDecoder look for this conformance at any depth).

/// Stored by ``/PrefsPlist/PlistEncoder`` as a plist `date`, at any depth of a `Codable` value.
extension Date: PlistRepresentable {
    /// The date as a plist `date`.
    public var plistValue: PlistValue {
        .date(PlistDate(secondsSinceReferenceDate: timeIntervalSinceReferenceDate))
    }

    /// Reads a plist `date`; `nil` for any other type.
    /// - Parameter plistValue: The stored value.
    public init?(plistValue: PlistValue) {
        guard case .date(let date) = plistValue else { return nil }
        self.init(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
    }
}

/// Stored by ``/PrefsPlist/PlistEncoder`` as plist `data`, at any depth of a `Codable` value.
extension Data: PlistRepresentable {
    /// The bytes as plist `data`.
    public var plistValue: PlistValue { .data(Array(self)) }

    /// Reads plist `data`; `nil` for any other type.
    /// - Parameter plistValue: The stored value.
    public init?(plistValue: PlistValue) {
        guard case .data(let bytes) = plistValue else { return nil }
        self.init(bytes)
    }
}

/// Stored by ``/PrefsPlist/PlistEncoder`` as a plist `string`, its absolute string, at any depth of a `Codable`
/// value.
extension URL: PlistRepresentable {
    /// The URL's whole absolute string (scheme, host, path, query and fragment) as a plist `string`.
    public var plistValue: PlistValue { .string(absoluteString) }

    /// Reads a plist `string` that spells a URL with a scheme; `nil` otherwise.
    /// - Parameter plistValue: The stored value.
    public init?(plistValue: PlistValue) {
        guard case .string(let string) = plistValue, let url = URL(string: string), url.scheme != nil else {
            return nil
        }
        self = url
    }
}
