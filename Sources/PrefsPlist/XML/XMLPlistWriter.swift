// SPDX-License-Identifier: Apache-2.0
/// Writes XML property lists byte for byte as Apple's tools and CPython's `plistlib` lay them out.
///
/// The header and DOCTYPE, the root at column 0, one tab per nesting level, `<true/>`, empty
/// `<array/>` and `<dict/>`, keys sorted by Unicode scalar value, and `<data>` wrapped to the line
/// widths `plistlib` uses. Beyond `plistlib`: reals are written as CoreFoundation writes them
/// (`%.17g`: `2`, not `2.0`; `0.10000000000000001`, not `0.1`; `+infinity`, `-infinity`, `nan`),
/// UIDs as CoreFoundation's `CF$UID` dictionaries, and a carriage return as `&#13;` so that it
/// survives a round trip.
enum XMLPlistWriter {
    /// Encodes a value as an XML property list.
    /// - Parameter value: The root value.
    /// - Returns: The document, UTF-8 encoded.
    /// - Throws: ``PlistError`` with code `.unrepresentable`, naming the key path, for `null`, a date
    ///   with no calendar form, or a string holding a character XML 1.0 cannot carry.
    static func write(_ value: PlistValue) throws -> [UInt8] {
        var writer = Writer(output: OutputBuffer(capacity: estimatedSize(of: value, indent: 0) + 256))
        defer { writer.output.deallocate() }
        writer.output.append(header)
        do {
            try writer.write(value, indent: 0)
        } catch let failure as Failure {
            let path = failure.path.reversed().joined()
            let location = path.isEmpty ? "the root value" : path
            throw PlistError(.unrepresentable, "\(location): \(failure.reason)", at: .codingPath(path))
        }
        writer.output.append("</plist>\n")
        return writer.output.bytes()
    }

    private static let header: StaticString = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// A value that cannot be written, with the key path collected while the error unwinds.
    private struct Failure: Error {
        var reason: String
        /// Path components, innermost first.
        var path: [String] = []
    }

    /// An upper-bound guess of the output size, so the buffer is allocated once.
    private static func estimatedSize(of value: PlistValue, indent: Int) -> Int {
        let line = indent + 1
        switch value {
        case .string(let text): return line + 17 + text.utf8.count + text.utf8.count / 8
        case .integer: return line + 40
        case .real: return line + 40
        case .bool: return line + 8
        case .date: return line + 32
        case .uid: return 3 * line + 80
        case .null: return 0
        case .data(let bytes):
            let lines = bytes.count / 36 + 1
            return 2 * line + 14 + bytes.count * 4 / 3 + lines * (line + 1)
        case .array(let elements):
            return 2 * line + 16 + elements.reduce(0) { $0 + estimatedSize(of: $1, indent: indent + 1) }
        case .dictionary(let entries):
            return 2 * line + 14
                + entries.reduce(0) {
                    $0 + indent + 13 + $1.key.utf8.count + estimatedSize(of: $1.value, indent: indent + 1)
                }
        }
    }

    /// Per byte, as the digit at its position: 0 copy as is, 1 escape (`\r`, `&`, `<`, `>`), 2 refuse (a
    /// control character XML 1.0 cannot hold: below 0x20 but tab and newline), 3 lead byte of a three-byte
    /// sequence that might be U+FFFE or U+FFFF (0xEF). Text in the executable, so no process builds the table
    /// at run time; the writer's tests check it against that rule.
    static let byteClasses: StaticString = """
        2222222220022122222222222222222200000010000000000000000000001010\
        0000000000000000000000000000000000000000000000000000000000000000\
        0000000000000000000000000000000000000000000000000000000000000000\
        0000000000000000000000000000000000000000000000030000000000000000
        """

    private struct Writer {
        var output: OutputBuffer

        mutating func write(_ value: PlistValue, indent: Int) throws {
            switch value {
            case .string(let text):
                try element("string", text: text, indent: indent)
            case .integer(let number):
                openTag("integer", indent: indent)
                if let signed = number.int64Value {
                    if signed < 0 { output.append(UInt8(ascii: "-")) }
                    output.appendDecimal(signed.magnitude)
                } else {
                    output.appendDecimal(number.bitPattern)
                }
                closeTag("integer")
            case .real(let real):
                openTag("real", indent: indent)
                appendReal(real)
                closeTag("real")
            case .bool(let flag):
                output.appendIndent(indent)
                output.append(flag ? "<true/>\n" : "<false/>\n")
            case .date(let date):
                guard let components = date.components else {
                    throw Failure(
                        reason: "the date \(date.secondsSinceReferenceDate) has no calendar form, so XML cannot hold it"
                    )
                }
                openTag("date", indent: indent)
                appendISO8601(components)
                closeTag("date")
            case .data(let bytes):
                appendData(bytes, indent: indent)
            case .array(let elements):
                guard !elements.isEmpty else {
                    appendLine("<array/>", indent: indent)
                    return
                }
                appendLine("<array>", indent: indent)
                for (index, element) in elements.enumerated() {
                    do {
                        try write(element, indent: indent + 1)
                    } catch var failure as Failure {
                        failure.path.append("[\(index)]")
                        throw failure
                    }
                }
                appendLine("</array>", indent: indent)
            case .dictionary(let entries):
                guard !entries.isEmpty else {
                    appendLine("<dict/>", indent: indent)
                    return
                }
                appendLine("<dict>", indent: indent)
                let sorted = SortedKeys(entries)
                for position in 0..<sorted.count {
                    let key = sorted.key(at: position)
                    do {
                        try element("key", text: key, indent: indent + 1)
                        try write(sorted.value(at: position), indent: indent + 1)
                    } catch var failure as Failure {
                        failure.path.append(Self.pathComponent(forKey: key))
                        throw failure
                    }
                }
                appendLine("</dict>", indent: indent)
            case .uid(let uid):
                appendLine("<dict>", indent: indent)
                appendLine("<key>CF$UID</key>", indent: indent + 1)
                openTag("integer", indent: indent + 1)
                output.appendDecimal(uid)
                closeTag("integer")
                appendLine("</dict>", indent: indent)
            case .null:
                throw Failure(reason: "null has no XML property-list form")
            }
        }

        // MARK: Layout

        private mutating func appendLine(_ text: StaticString, indent: Int) {
            output.appendIndent(indent)
            output.append(text)
            output.append(UInt8(ascii: "\n"))
        }

        private mutating func openTag(_ name: StaticString, indent: Int) {
            output.appendIndent(indent)
            output.append(UInt8(ascii: "<"))
            output.append(name)
            output.append(UInt8(ascii: ">"))
        }

        private mutating func closeTag(_ name: StaticString) {
            output.append("</")
            output.append(name)
            output.append(">\n")
        }

        private mutating func element(_ name: StaticString, text: String, indent: Int) throws {
            openTag(name, indent: indent)
            let written: Bool? = try text.utf8.withContiguousStorageIfAvailable {
                try appendEscaped($0)
                return true
            }
            if written == nil { try Array(text.utf8).withUnsafeBufferPointer { try appendEscaped($0) } }
            closeTag(name)
        }

        // MARK: Scalars

        private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) throws {
            var runStart = 0
            var index = 0
            let count = text.count
            let byteClasses = XMLPlistWriter.byteClasses.utf8Start
            while index < count {
                let byte = text[index]
                let kind = byteClasses[Int(byte)] &- UInt8(ascii: "0")
                if kind == 0 {
                    index += 1
                    continue
                }
                if kind == 3 {
                    // U+FFFE and U+FFFF are EF BF BE / EF BF BF in UTF-8.
                    if index + 2 < count, text[index + 1] == 0xBF, text[index + 2] & 0xFE == 0xBE {
                        let scalar = text[index + 2] == 0xBE ? "U+FFFE" : "U+FFFF"
                        throw Failure(reason: "the string holds \(scalar), which XML 1.0 cannot hold")
                    }
                    index += 1
                    continue
                }
                if kind == 2 {
                    let hex = String(byte, radix: 16, uppercase: true)
                    throw Failure(
                        reason: "the string holds the control character U+\(hex.count == 1 ? "000" : "00")\(hex), "
                            + "which XML 1.0 cannot hold")
                }
                output.append(UnsafeBufferPointer(rebasing: text[runStart..<index]))
                switch byte {
                case UInt8(ascii: "&"): output.append("&amp;")
                case UInt8(ascii: "<"): output.append("&lt;")
                case UInt8(ascii: ">"): output.append("&gt;")
                default: output.append("&#13;")
                }
                index += 1
                runStart = index
            }
            output.append(UnsafeBufferPointer(rebasing: text[runStart..<count]))
        }

        /// CoreFoundation's text (`__CFNumberCopyFormattingDescriptionAsFloat64`): `%.17g`, so `2`, `-5`,
        /// `0.5`, `0.10000000000000001`, `1e+20`; `0.0` for zero; `nan`, `+infinity`, `-infinity`. One
        /// difference: negative zero is `-0.0`, where CoreFoundation writes `0.0` and loses the sign.
        private mutating func appendReal(_ real: Double) {
            if real.isNaN {
                output.append("nan")
            } else if real.isInfinite {
                output.append(real < 0 ? "-infinity" : "+infinity")
            } else if real == 0 {
                output.append(real.sign == .minus ? "-0.0" : "0.0")
            } else if real.magnitude < 1e17, let integral = Int64(exactly: real) {
                // What `%.17g` gives for a whole number of up to 17 digits, without the call.
                if integral < 0 { output.append(UInt8(ascii: "-")) }
                output.appendDecimal(integral.magnitude)
            } else {
                PlistValue.withCoreFoundationRealText(real) { output.append($0) }
            }
        }

        /// `YYYY-MM-DDTHH:MM:SSZ`, the same text as ``PlistDate/iso8601String`` without building strings.
        private mutating func appendISO8601(_ c: PlistDate.Components) {
            if c.year < 0 { output.append(UInt8(ascii: "-")) }
            let year = c.year.magnitude
            if year < 1000 {
                output.appendTwoDigits(Int(year / 100))
                output.appendTwoDigits(Int(year % 100))
            } else {
                output.appendDecimal(year)
            }
            output.append(UInt8(ascii: "-"))
            output.appendTwoDigits(c.month)
            output.append(UInt8(ascii: "-"))
            output.appendTwoDigits(c.day)
            output.append(UInt8(ascii: "T"))
            output.appendTwoDigits(c.hour)
            output.append(UInt8(ascii: ":"))
            output.appendTwoDigits(c.minute)
            output.append(UInt8(ascii: ":"))
            output.appendTwoDigits(c.second)
            output.append(UInt8(ascii: "Z"))
        }

        /// `plistlib` writes base64 at the `<data>` tag's own indentation, in lines of at most
        /// `76 - 8 × depth` characters (at least 16), a tab counting as eight columns.
        private mutating func appendData(_ bytes: [UInt8], indent: Int) {
            appendLine("<data>", indent: indent)
            let lineLength = max(16, 76 - 8 * indent)
            let bytesPerLine = lineLength / 4 * 3
            bytes.withUnsafeBufferPointer { buffer in
                var start = 0
                while start < buffer.count {
                    let end = min(start + bytesPerLine, buffer.count)
                    output.appendIndent(indent)
                    output.appendBase64(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                    output.append(UInt8(ascii: "\n"))
                    start = end
                }
            }
            appendLine("</data>", indent: indent)
        }

        // MARK: Keys

        static func pathComponent(forKey key: String) -> String {
            let isPlain =
                !key.isEmpty
                && key.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                }
            return isPlain ? "/" + key : "/\"" + key + "\""
        }
    }
}
