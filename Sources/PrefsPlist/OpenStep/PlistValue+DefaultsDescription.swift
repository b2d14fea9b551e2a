// SPDX-License-Identifier: Apache-2.0
extension PlistValue {
    /// The text macOS `defaults read` prints for this value, byte for byte (without the final
    /// newline the command adds).
    ///
    /// Containers print as Apple's `descriptionWithLocale:indent:` does: `{`/`(` on a line,
    /// `key = value;` lines (keys sorted) or `,`-separated elements indented 4 spaces per level,
    /// and a nested container starting with its own indentation after `= ` or the element indent.
    /// Inside containers, strings, keys and scalar texts stay bare only when they are non-empty
    /// ASCII letters and digits, else they are double-quoted with `\"`, `\\`, `\n`, `\t` and
    /// `\Uxxxx` (UTF-16 units) for other control and non-ASCII characters. Booleans print as `1`/`0`,
    /// reals as `%.16g`, dates as `2004-10-26 10:33:33 +0000`, data as `{length = 4, bytes = 0x…}`
    /// (never quoted), a uid as `<CFKeyedArchiverUID>{value = 5}` and null as `<null>`.
    /// A scalar on its own (a single-key `read`) prints bare: a string prints as itself.
    ///
    /// Apple prints a real that a binary file stored as a 32-bit float with `%.7g`; the value model
    /// keeps every real as a `Double`, so such a value prints with up to 16 digits here.
    public var defaultsDescription: String {
        var output: [UInt8] = []
        switch self {
        case .string(let string):
            return string
        case .array, .dictionary:
            Self.appendDefaultsContainer(self, level: 0, to: &output)
        default:
            Self.appendDefaultsScalar(self, quoted: false, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendDefaultsIndent(_ level: Int, to output: inout [UInt8]) {
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 4))
    }

    /// Appends a container printed at `level`, starting with its own indentation.
    private static func appendDefaultsContainer(_ value: PlistValue, level: Int, to output: inout [UInt8]) {
        appendDefaultsIndent(level, to: &output)
        switch value {
        case .dictionary(let entries):
            output.append(contentsOf: "{\n".utf8)
            for key in OpenStepPlistWriter.sortedKeys(entries) {
                guard let element = entries[key] else { continue }
                appendDefaultsIndent(level + 1, to: &output)
                appendDefaultsString(key, quoted: true, to: &output)
                output.append(contentsOf: " = ".utf8)
                appendDefaultsElement(element, level: level + 1, to: &output)
                output.append(contentsOf: ";\n".utf8)
            }
            appendDefaultsIndent(level, to: &output)
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(contentsOf: "(\n".utf8)
            for (index, element) in elements.enumerated() {
                appendDefaultsIndent(level + 1, to: &output)
                appendDefaultsElement(element, level: level + 1, to: &output)
                if index < elements.count - 1 { output.append(UInt8(ascii: ",")) }
                output.append(UInt8(ascii: "\n"))
            }
            appendDefaultsIndent(level, to: &output)
            output.append(UInt8(ascii: ")"))
        default:
            appendDefaultsScalar(value, quoted: true, to: &output)
        }
    }

    /// Appends a value inside a container; a nested container is printed one level deeper.
    private static func appendDefaultsElement(_ value: PlistValue, level: Int, to output: inout [UInt8]) {
        switch value {
        case .array, .dictionary: appendDefaultsContainer(value, level: level, to: &output)
        default: appendDefaultsScalar(value, quoted: true, to: &output)
        }
    }

    /// Appends a scalar; `quoted` applies the in-container quoting rule (data is never quoted).
    private static func appendDefaultsScalar(_ value: PlistValue, quoted: Bool, to output: inout [UInt8]) {
        switch value {
        case .string(let string): appendDefaultsString(string, quoted: quoted, to: &output)
        case .integer(let integer): appendDefaultsString(integer.description, quoted: quoted, to: &output)
        case .real(let real): appendDefaultsString(defaultsRealText(real), quoted: quoted, to: &output)
        case .bool(let bool): output.append(bool ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .date(let date):
            // A date too far out for a calendar prints its raw seconds since 2001.
            let text = date.defaultsString ?? defaultsRealText(date.secondsSinceReferenceDate)
            appendDefaultsString(text, quoted: quoted, to: &output)
        case .data(let bytes): appendDefaultsData(bytes, to: &output)
        case .uid(let number):
            appendDefaultsString("<CFKeyedArchiverUID>{value = \(number)}", quoted: quoted, to: &output)
        case .null: appendDefaultsString("<null>", quoted: quoted, to: &output)
        case .array, .dictionary: appendDefaultsContainer(value, level: 0, to: &output)
        }
    }

    /// A real as NSNumber describes a double: C's `%.16g` (`1`, `0.5`, `0.1`, `1e+20`, `inf`).
    static func defaultsRealText(_ real: Double) -> String {
        printfRealText(real, significantDigits: 16)
    }

    /// Appends text, double-quoted and escaped when `quoted` is set and it is not plain letters and digits.
    private static func appendDefaultsString(_ string: String, quoted: Bool, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            guard quoted, bytes.isEmpty || !bytes.allSatisfy(isASCIILetterOrDigit) else {
                output.append(contentsOf: bytes)
                return
            }
            OpenStepPlistWriter.appendQuoted(bytes, to: &output)
        }
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            false
        }
    }

    /// `{length = 4, bytes = 0x00010203}`; past 24 bytes, the first 16 and the last 8 bytes in
    /// groups of 4 around ` ... `, as NSData's description abbreviates.
    private static func appendDefaultsData(_ bytes: [UInt8], to output: inout [UInt8]) {
        output.append(contentsOf: "{length = \(bytes.count), bytes = 0x".utf8)
        func appendHex(_ range: Range<Int>, grouped: Bool) {
            for index in range {
                if grouped, index != range.lowerBound, (index - range.lowerBound) % 4 == 0 {
                    output.append(UInt8(ascii: " "))
                }
                output.append(OpenStepPlistWriter.hexDigit(bytes[index] >> 4))
                output.append(OpenStepPlistWriter.hexDigit(bytes[index] & 0x0F))
            }
        }
        if bytes.count <= 24 {
            appendHex(0..<bytes.count, grouped: false)
            output.append(UInt8(ascii: "}"))
        } else {
            appendHex(0..<16, grouped: true)
            output.append(contentsOf: " ... ".utf8)
            appendHex(bytes.count - 8..<bytes.count, grouped: true)
            output.append(contentsOf: " }".utf8)
        }
    }
}
