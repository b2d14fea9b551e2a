// SPDX-License-Identifier: Apache-2.0
/// Writes OpenStep ("old-style ASCII") property-list text that CoreFoundation and
/// ``OpenStepPlistReader`` read back.
///
/// Layout: dictionaries `{` … `}` with one `key = value;` line per entry, keys sorted by UTF-16
/// code units (`CFStringCompare` order, as Apple's XML writer sorts), arrays `(` … `)` with `,` between elements, one tab per level,
/// and empty containers as `{}` and `()`. Strings are bare when they are non-empty and only use
/// ASCII letters, digits and `_ $ / : . -` (and do not start like a comment), else double-quoted
/// with `\"`, `\\`, `\n`, `\t` and `\Uxxxx` (a UTF-16 unit) for other control and non-ASCII
/// characters. Data is `<0fab12cd>`.
///
/// OpenStep text has only strings, data, arrays and dictionaries, so other scalars become
/// strings and do not read back as their type: integers and reals as their decimal text, booleans
/// as `YES`/`NO`, dates as `2004-10-26 10:33:33 +0000`. A uid or null value cannot be written.
enum OpenStepPlistWriter {
    /// Serialises `value` as OpenStep text, ending with a newline.
    /// - Parameter value: The value to write.
    /// - Returns: UTF-8 text (all ASCII, since non-ASCII characters are escaped).
    /// - Throws: `PlistError` with code `.unrepresentable` and the key path of a uid or null value,
    ///   or of a date that has no calendar form.
    static func write(_ value: PlistValue) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        do {
            try append(value, indent: 0, to: &output)
        } catch let problem as UnrepresentableValue {
            throw PlistError(
                .unrepresentable, "\(problem.reason) cannot be written as OpenStep text",
                at: .codingPath(problem.pathText))
        }
        output.append(UInt8(ascii: "\n"))
        return output
    }

    /// Thrown inside the writer; each enclosing container adds its key or index to `path`
    /// (innermost first), so the success path never builds paths.
    private struct UnrepresentableValue: Error {
        enum Component {
            case key(String)
            case index(Int)
        }
        var reason: String
        var path: [Component] = []

        /// `list[2].name`-style text, outermost first; empty for the top level.
        var pathText: String {
            var text = ""
            for component in path.reversed() {
                switch component {
                case .key(let key): text += text.isEmpty ? key : "." + key
                case .index(let index): text += "[\(index)]"
                }
            }
            return text
        }
    }

    private static func append(_ value: PlistValue, indent: Int, to output: inout [UInt8]) throws {
        switch value {
        case .string(let string):
            appendString(string, to: &output)
        case .integer(let integer):
            output.append(contentsOf: integer.description.utf8)
        case .real(let real):
            appendString(realText(real), to: &output)
        case .bool(let bool):
            output.append(contentsOf: bool ? "YES".utf8 : "NO".utf8)
        case .date(let date):
            guard let text = date.defaultsString else {
                throw UnrepresentableValue(
                    reason:
                        "the date \(date.secondsSinceReferenceDate) (seconds since 2001), which has no calendar form,")
            }
            appendString(text, to: &output)
        case .data(let bytes):
            appendData(bytes, to: &output)
        case .array(let elements):
            try appendArray(elements, indent: indent, to: &output)
        case .dictionary(let entries):
            try appendDictionary(entries, indent: indent, to: &output)
        case .uid(let number):
            throw UnrepresentableValue(reason: "the uid \(number)")
        case .null:
            throw UnrepresentableValue(reason: "a null value")
        }
    }

    private static func appendArray(_ elements: [PlistValue], indent: Int, to output: inout [UInt8]) throws {
        guard !elements.isEmpty else {
            output.append(contentsOf: "()".utf8)
            return
        }
        output.append(contentsOf: "(\n".utf8)
        for (index, element) in elements.enumerated() {
            appendTabs(indent + 1, to: &output)
            do {
                try append(element, indent: indent + 1, to: &output)
            } catch var problem as UnrepresentableValue {
                problem.path.append(.index(index))
                throw problem
            }
            if index < elements.count - 1 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "\n"))
        }
        appendTabs(indent, to: &output)
        output.append(UInt8(ascii: ")"))
    }

    private static func appendDictionary(
        _ entries: PlistDictionary, indent: Int, to output: inout [UInt8]
    ) throws {
        guard !entries.isEmpty else {
            output.append(contentsOf: "{}".utf8)
            return
        }
        output.append(contentsOf: "{\n".utf8)
        for key in sortedKeys(entries) {
            guard let value = entries[key] else { continue }
            appendTabs(indent + 1, to: &output)
            appendString(key, to: &output)
            output.append(contentsOf: " = ".utf8)
            do {
                try append(value, indent: indent + 1, to: &output)
            } catch var problem as UnrepresentableValue {
                problem.path.append(.key(key))
                throw problem
            }
            output.append(contentsOf: ";\n".utf8)
        }
        appendTabs(indent, to: &output)
        output.append(UInt8(ascii: "}"))
    }

    private static func appendTabs(_ count: Int, to output: inout [UInt8]) {
        for _ in 0..<count { output.append(UInt8(ascii: "\t")) }
    }

    /// The lowercase hex digit for a value 0–15 (arithmetic, not a table: a global array would be
    /// retained and released on every use in these loops).
    @inline(__always)
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    private static func appendData(_ bytes: [UInt8], to output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.count * 2 + 2)
        output.append(UInt8(ascii: "<"))
        for byte in bytes {
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
        }
        output.append(UInt8(ascii: ">"))
    }

    /// The shortest text that reads back as the same `Double`, without a `.0` on whole numbers.
    static func realText(_ real: Double) -> String {
        let text = real.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Appends a string bare when the reader reads it back unchanged that way, else quoted.
    private static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            if canBeBare(bytes) {
                output.append(contentsOf: bytes)
            } else {
                appendQuoted(bytes, to: &output)
            }
        }
    }

    private static func canBeBare(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        // `//` and `/*` would start a comment where a value is expected.
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "/"),
            bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "*")
        {
            return false
        }
        return bytes.allSatisfy(OpenStepPlistReader.Parser.isUnquotedStringByte)
    }

    /// Appends a string double-quoted, with `\"`, `\\`, `\n` and `\t`, and `\U` and four hex digits for every
    /// other control character and everything beyond ASCII (UTF-16 units): OpenStep's quoting, which `defaults
    /// read` prints too (``PlistValue/defaultsDescription``).
    static func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
                index += 1
            case UInt8(ascii: "\n"):
                output.append(contentsOf: "\\n".utf8)
                index += 1
            case UInt8(ascii: "\t"):
                output.append(contentsOf: "\\t".utf8)
                index += 1
            case 0x20..<0x7F:
                output.append(byte)
                index += 1
            case 0..<0x80:
                appendUnicodeEscape(UInt16(byte), to: &output)
                index += 1
            default:
                let (scalar, length) = decodeScalar(bytes, at: index)
                for unit in scalar.utf16 { appendUnicodeEscape(unit, to: &output) }
                index += length
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `\U` and four lowercase hex digits.
    private static func appendUnicodeEscape(_ unit: UInt16, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        output.append(UInt8(ascii: "U"))
        output.append(hexDigit(UInt8(unit >> 12)))
        output.append(hexDigit(UInt8(unit >> 8 & 0x0F)))
        output.append(hexDigit(UInt8(unit >> 4 & 0x0F)))
        output.append(hexDigit(UInt8(unit & 0x0F)))
    }

    /// Decodes the multi-byte scalar at `index` of a string's (valid) UTF-8.
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int) {
        var iterator = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return (scalar, UTF8.width(scalar)) }
        return ("\u{FFFD}", 1)
    }

    /// The dictionary's keys in CoreFoundation's order: by UTF-16 code units.
    static func sortedKeys(_ entries: PlistDictionary) -> [String] {
        var keys = Array(entries.keys)
        // For ASCII keys, `String`'s own ordering is that order, and several times faster.
        if keys.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) {
            keys.sort()
        } else {
            keys.sort(by: utf16Precedes)
        }
        return keys
    }

    /// True when `lhs` sorts before `rhs` comparing UTF-16 code units, as `CFStringCompare` does.
    ///
    /// UTF-8 byte order is code-point order, which agrees with UTF-16 order except that UTF-16
    /// puts supplementary characters (surrogates, 0xD800…) before U+E000–U+FFFF; the first
    /// differing byte tells which case applies, so no transcoding is needed.
    static func utf16Precedes(_ lhs: String, _ rhs: String) -> Bool {
        let result = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in utf16Precedes(left, right) }
        }
        if let result, let result { return result }
        return lhs.utf16.lexicographicallyPrecedes(rhs.utf16)
    }

    private static func utf16Precedes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(left.count, right.count)
        var index = 0
        while index < common {
            let a = left[index]
            let b = right[index]
            if a != b {
                // Lead bytes 0xEE–0xEF start U+E000–U+FFFF; 0xF0–0xF4 start supplementary characters.
                let aSupplementary = a >= 0xF0
                let bSupplementary = b >= 0xF0
                let aHighBMP = a == 0xEE || a == 0xEF
                let bHighBMP = b == 0xEE || b == 0xEF
                if aSupplementary && bHighBMP { return true }
                if aHighBMP && bSupplementary { return false }
                return a < b
            }
            index += 1
        }
        return left.count < right.count
    }
}
