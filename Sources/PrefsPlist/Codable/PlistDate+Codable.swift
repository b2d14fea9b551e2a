// SPDX-License-Identifier: Apache-2.0
/// `PlistDate` is `Codable` so that Codable models can hold one; ``PlistEncoder`` and
/// ``PlistDecoder`` store it as a plist date (it is ``PlistRepresentable``) and never call these.
/// Other coders see its seconds since 2001-01-01, as Foundation's `Date` encodes itself.
extension PlistDate: Codable {
    /// Encodes the seconds since 2001-01-01 00:00:00 UTC as one `Double`.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSinceReferenceDate)
    }

    /// Decodes seconds since 2001-01-01 00:00:00 UTC from one `Double`.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: Whatever the decoder throws when the value is not a number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(secondsSinceReferenceDate: try container.decode(Double.self))
    }
}
