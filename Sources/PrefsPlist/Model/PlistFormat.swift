// SPDX-License-Identifier: Apache-2.0
/// The serialisations a property list can take.
public enum PlistFormat: String, Sendable, Hashable, CaseIterable {
    /// Apple's XML property list (`xml1`).
    case xml
    /// Apple's binary property list, `bplist00` (`binary1`).
    case binary
    /// The OpenStep / NeXTSTEP text format (old-style ASCII plists and `.strings` files).
    case openStep
    /// JSON, for the types JSON can hold.
    case json

    /// Guesses the format of `bytes` from its first bytes, without parsing it.
    ///
    /// Binary starts with `bplist`; XML starts (after an optional byte-order mark and white space)
    /// with `<`, or is UTF-16/UTF-32 text whose first character is `<`; JSON or OpenStep text is
    /// anything else, told apart by the reader.
    /// - Parameter bytes: The start of the input; a few dozen bytes are enough.
    /// - Returns: `.binary`, `.xml`, or `.openStep` for other text (which may be JSON).
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> PlistFormat {
        if bytes.count >= 6, bytes.starts(with: "bplist".utf8) { return .binary }
        let (encoding, bomLength) = TextEncodingSniffer.detect(bytes)
        let unitSize = encoding.codeUnitSize
        var offset = bomLength
        while offset + unitSize <= bytes.count {
            guard let scalar = encoding.asciiScalar(in: bytes, at: offset) else { return .openStep }
            switch scalar {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                offset += unitSize
            case UInt8(ascii: "<"):
                // `<` starts XML unless it is OpenStep hex data (`<0fab>`) or a GNUstep `<*I1>`.
                let next = offset + unitSize
                guard next + unitSize <= bytes.count, let following = encoding.asciiScalar(in: bytes, at: next)
                else { return .openStep }
                let isLetter = (following | 0x20) >= UInt8(ascii: "a") && (following | 0x20) <= UInt8(ascii: "z")
                let isHexOnly = (following | 0x20) >= UInt8(ascii: "a") && (following | 0x20) <= UInt8(ascii: "f")
                if following == UInt8(ascii: "?") || following == UInt8(ascii: "!") { return .xml }
                if isLetter && !isHexOnly { return .xml }
                // `<array>`, `<data>`, `<date>`, `<dict>`: starts with a hex letter but is a tag.
                if isLetter, Self.startsWithTag(bytes, at: next, encoding: encoding) { return .xml }
                return .openStep
            default:
                return .openStep
            }
        }
        return .openStep
    }

    private static func startsWithTag(
        _ bytes: UnsafeRawBufferPointer, at offset: Int, encoding: TextEncodingSniffer.Encoding
    ) -> Bool {
        var letters: [UInt8] = []
        var position = offset
        while position + encoding.codeUnitSize <= bytes.count, letters.count < 8,
            let scalar = encoding.asciiScalar(in: bytes, at: position),
            (scalar | 0x20) >= UInt8(ascii: "a") && (scalar | 0x20) <= UInt8(ascii: "z")
        {
            letters.append(scalar)
            position += encoding.codeUnitSize
        }
        return !letters.allSatisfy { ($0 | 0x20) <= UInt8(ascii: "f") }
            || ["array", "data", "date", "dict"]
                .contains(String(decoding: letters, as: UTF8.self))
    }
}
