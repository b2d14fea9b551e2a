// SPDX-License-Identifier: Apache-2.0
/// `PlistValue` is `Codable` so that Codable models can hold one; ``PlistEncoder`` and
/// ``PlistDecoder`` store it natively (it is ``PlistRepresentable``) and never call these.
///
/// Other coders see the nearest Codable shape: scalars as themselves, arrays and dictionaries as
/// containers, a date as its seconds since 2001 (as Foundation's `Date` encodes), data as an array
/// of bytes, a UID as its number, null as nil. Decoding takes the first shape that fits, so a date
/// or data written by another coder reads back as a real or an array.
extension PlistValue: Codable {
    /// Encodes the value in the nearest Codable shape.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let string): try container.encode(string)
        case .integer(let integer): try container.encode(integer)
        case .real(let real): try container.encode(real)
        case .bool(let bool): try container.encode(bool)
        case .date(let date): try container.encode(date)
        case .data(let bytes): try container.encode(bytes)
        case .array(let elements): try container.encode(elements)
        case .dictionary(let entries): try container.encode(entries)
        case .uid(let uid): try container.encode(uid)
        case .null: try container.encodeNil()
        }
    }

    /// Decodes the first plist shape that fits: null, boolean, integer, real, string, dictionary, array.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``PlistError`` with code `typeMismatch` when no shape fits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(PlistInteger.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let entries = try? container.decode(PlistDictionary.self) {
            self = .dictionary(entries)
        } else if let elements = try? container.decode([PlistValue].self) {
            self = .array(elements)
        } else {
            throw PlistError(
                .typeMismatch, "type mismatch: no plist value type fits the value here",
                at: PlistCodingPath(codingKeys: decoder.codingPath).position)
        }
    }
}
