// SPDX-License-Identifier: Apache-2.0
/// `PlistDictionary` is `Codable` so that `PlistValue` is; other coders see a keyed container with one
/// key per entry, so keys stay exact wherever the coder keeps them apart.
extension PlistDictionary: Codable {
    /// A coding key naming one entry.
    private struct EntryKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes every entry under its own key.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: EntryKey.self)
        for (key, value) in storage { try container.encode(value, forKey: EntryKey(stringValue: key.string)) }
    }

    /// Decodes every key of a keyed container.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: Whatever the decoder throws when the value is not a keyed container.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EntryKey.self)
        var entries = PlistDictionary(minimumCapacity: container.allKeys.count)
        for key in container.allKeys { entries[key.stringValue] = try container.decode(PlistValue.self, forKey: key) }
        self = entries
    }
}

extension PlistDictionary: PlistRepresentable {
    /// The dictionary as a plist `dictionary`.
    public var plistValue: PlistValue { .dictionary(self) }

    /// Reads a plist `dictionary`; `nil` for any other type.
    public init?(plistValue: PlistValue) {
        guard case .dictionary(let entries) = plistValue else { return nil }
        self = entries
    }
}
