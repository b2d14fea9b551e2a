// SPDX-License-Identifier: Apache-2.0
/// `PlistInteger` is `Codable` so that Codable models can hold one; ``PlistEncoder`` and
/// ``PlistDecoder`` store it as a plist integer (it is ``PlistRepresentable``) and never call these.
extension PlistInteger: Codable {
    /// Encodes the value as an `Int64`, or as a `UInt64` above `Int64.max`.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let signed = int64Value {
            try container.encode(signed)
        } else {
            try container.encode(bitPattern)
        }
    }

    /// Decodes an `Int64`, or else a `UInt64`.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: Whatever the decoder throws when the value is neither.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let signed = try? container.decode(Int64.self) {
            self.init(signed)
        } else {
            self.init(try container.decode(UInt64.self))
        }
    }
}
