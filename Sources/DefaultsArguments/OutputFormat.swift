// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// A machine-readable format for `read -format` and `export -format` (an extension).
package enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// OpenStep text that reads back exactly (unlike `read`'s default text, which prints booleans as 1 and 0).
    case openstep
    /// An XML property list.
    case xml
    /// Indented JSON (dates and data cannot be written).
    case json
    /// A binary property list (`bplist00`).
    case binary

    /// Encodes a value in this format; text formats end with a newline.
    /// - Throws: `PlistError` when the format cannot hold the value (a date in JSON, say).
    package func encode(_ value: PlistValue) throws -> [UInt8] {
        var bytes: [UInt8]
        switch self {
        case .openstep: bytes = try PlistSerialization.encode(value, format: .openStep)
        case .xml: bytes = try PlistSerialization.encode(value, format: .xml)
        case .json: bytes = try PlistSerialization.encodeJSON(value, pretty: true)
        case .binary: return try PlistSerialization.encode(value, format: .binary)
        }
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        return bytes
    }
}
