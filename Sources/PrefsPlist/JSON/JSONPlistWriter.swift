// SPDX-License-Identifier: Apache-2.0
/// Writes a property-list value as JSON, as macOS `plutil -convert json` does.
///
/// Output is UTF-8 without a byte-order mark or trailing newline. Dictionary keys are sorted by
/// Unicode scalar value (byte order of their UTF-8), so equal values give equal bytes.
///
/// - Compact (the default): no white space at all, `{"a":1,"b":[true,"x"]}`.
/// - Pretty: `NSJSONSerialization`'s pretty printing, which `plutil -r` uses: two spaces per
///   level, `"key" : value`, one element per line, and empty containers written as `[`, blank
///   line, `]` exactly as Foundation writes them.
///
/// Strings escape `"`, `\` and the control characters (`\b \f \n \r \t`, others as `\u00xx`);
/// `/` and non-ASCII characters are written as they are. Integers are exact; reals use Swift's
/// shortest round-trip text (`description`), so `1.0` stays `1.0` and reads back as a real.
/// `null` is written for ``PlistValue/null``. Dates, data, UIDs and non-finite reals have no JSON
/// form and are errors.
enum JSONPlistWriter {
    /// Serialises a value as JSON.
    /// - Parameters:
    ///   - value: The value to write.
    ///   - pretty: Whether to indent, as `NSJSONSerialization`'s `.prettyPrinted` does.
    /// - Returns: The UTF-8 bytes of the document.
    /// - Throws: ``PlistError`` with code `unrepresentable` ("invalid object in plist for destination
    ///   format", as `plutil` says) naming the value's type, with its key path as the position.
    static func write(_ value: PlistValue, pretty: Bool) throws -> [UInt8] {
        var writer = JSONPlistSerializer(pretty: pretty)
        do {
            try writer.write(value, depth: 0)
        } catch {
            throw PlistError(
                .unrepresentable, "invalid object in plist for destination format: JSON cannot hold \(error.kind)",
                at: error.path.position)
        }
        return writer.output
    }
}

/// A value JSON cannot hold, and where it is; the path grows as the error unwinds.
private struct UnrepresentableJSONValue: Error {
    let kind: String
    var reversedComponents: [Component] = []

    enum Component {
        case key(String)
        case index(Int)
    }

    init(_ kind: String) {
        self.kind = kind
    }

    var path: PlistCodingPath {
        reversedComponents.reversed().reduce(PlistCodingPath.root) { path, component in
            switch component {
            case .key(let key): path.appending(key: key)
            case .index(let index): path.appending(index: index)
            }
        }
    }
}

private struct JSONPlistSerializer {
    let pretty: Bool
    var output: [UInt8] = []

    init(pretty: Bool) {
        self.pretty = pretty
        output.reserveCapacity(1024)
    }

    mutating func write(_ value: PlistValue, depth: Int) throws(UnrepresentableJSONValue) {
        switch value {
        case .string(let string):
            writeString(string)
        case .integer(let integer):
            writeInteger(integer)
        case .real(let real):
            guard real.isFinite else { throw UnrepresentableJSONValue("a non-finite real (\(real))") }
            output.append(contentsOf: real.description.utf8)
        case .bool(let bool):
            output.append(contentsOf: bool ? "true".utf8 : "false".utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .date:
            throw UnrepresentableJSONValue("a date")
        case .data:
            throw UnrepresentableJSONValue("data")
        case .uid:
            throw UnrepresentableJSONValue("a UID")
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            if pretty { output.append(UInt8(ascii: "\n")) }
            for (index, element) in elements.enumerated() {
                if index > 0 { writeSeparator() }
                if pretty { writeIndent(depth + 1) }
                do {
                    try write(element, depth: depth + 1)
                } catch {
                    var error = error
                    error.reversedComponents.append(.index(index))
                    throw error
                }
            }
            if pretty {
                output.append(UInt8(ascii: "\n"))
                writeIndent(depth)
            }
            output.append(UInt8(ascii: "]"))
        case .dictionary(let entries):
            output.append(UInt8(ascii: "{"))
            if pretty { output.append(UInt8(ascii: "\n")) }
            let sorted = entries.sorted { Self.precedes($0.key, $1.key) }
            for (index, entry) in sorted.enumerated() {
                if index > 0 { writeSeparator() }
                if pretty { writeIndent(depth + 1) }
                writeString(entry.key)
                if pretty {
                    output.append(contentsOf: " : ".utf8)
                } else {
                    output.append(UInt8(ascii: ":"))
                }
                do {
                    try write(entry.value, depth: depth + 1)
                } catch {
                    var error = error
                    error.reversedComponents.append(.key(entry.key))
                    throw error
                }
            }
            if pretty {
                output.append(UInt8(ascii: "\n"))
                writeIndent(depth)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func writeSeparator() {
        if pretty {
            output.append(contentsOf: ",\n".utf8)
        } else {
            output.append(UInt8(ascii: ","))
        }
    }

    private mutating func writeIndent(_ depth: Int) {
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func writeInteger(_ integer: PlistInteger) {
        // Non-negative values are their own bit pattern; a negative one is the two's complement.
        var magnitude = integer.bitPattern
        if integer.isNegative {
            output.append(UInt8(ascii: "-"))
            magnitude = 0 &- magnitude
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits of UInt64.max
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for position in 0..<bytes.count {
                let byte = bytes[position]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < position {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                }
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case 0x08: output.append(contentsOf: #"\b"#.utf8)
                case 0x0C: output.append(contentsOf: #"\f"#.utf8)
                case 0x0A: output.append(contentsOf: #"\n"#.utf8)
                case 0x0D: output.append(contentsOf: #"\r"#.utf8)
                case 0x09: output.append(contentsOf: #"\t"#.utf8)
                default:
                    output.append(contentsOf: #"\u00"#.utf8)
                    output.append(Self.hexDigits[Int(byte >> 4)])
                    output.append(Self.hexDigits[Int(byte & 0xF)])
                }
                runStart = position + 1
            }
            if runStart < bytes.count {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Unicode scalar order, which is the byte order of UTF-8 (Swift's `<` compares canonical
    /// equivalents instead).
    private static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let contiguous = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                var position = 0
                while position < common {
                    if left[position] != right[position] { return left[position] < right[position] }
                    position += 1
                }
                return left.count < right.count
            }
        }
        return (contiguous ?? nil) ?? lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
