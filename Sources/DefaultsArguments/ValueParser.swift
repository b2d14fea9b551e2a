// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// Turns `write` arguments into property-list values, as macOS `defaults` does.
///
/// A value is a typed flag and its argument (`-int 5`, `-bool yes`, `-array a b`, …) or a single argument. A single
/// argument without any of the characters `"()[]{}<>` is a string (it is quoted and read as an OpenStep string, so
/// `\n` and `\U00e9` escapes work as on macOS); otherwise it is read as a property list: OpenStep text such as
/// `(255, 0, 0)` or `{ a = 1; }`, or an XML fragment such as `<integer>5</integer>`.
package enum ValueParser {
    /// The separator between key/value pairs of one `write` (an extension): `write D k1 v1 -- k2 v2`.
    static let pairSeparator = "--"

    /// Reads one value starting at `cursor`, and moves `cursor` past it.
    /// - Parameters:
    ///   - arguments: The command line.
    ///   - cursor: The first argument of the value; afterwards, the first argument after it.
    ///   - allowsContainers: Whether `-array` and `-dict` are allowed (not inside another `-array` or `-dict`).
    /// - Returns: The value and how it combines with the key's current value.
    /// - Throws: ``DefaultsError``: a usage error for a typed flag without a valid argument; `.invalidValue` with
    ///   macOS's message for nested containers, dictionary keys that are not strings, a key without a value, and
    ///   text that does not parse.
    package static func parseValue(
        _ arguments: [String], cursor: inout Int, allowsContainers: Bool
    ) throws(DefaultsError) -> (value: PlistValue, mode: KeyAssignment.Mode) {
        guard cursor < arguments.count else { throw .usage("a value is missing") }
        let token = arguments[cursor]
        cursor += 1
        switch token {
        case "-string":
            return (.string(try argument(of: token, arguments, &cursor)), .set)
        case "-data":
            let text = try argument(of: token, arguments, &cursor)
            guard let bytes = hexBytes(text) else {
                throw .usage("-data takes hexadecimal digits, not '\(text)'")
            }
            return (.data(bytes), .set)
        case "-int", "-integer":
            let text = try argument(of: token, arguments, &cursor)
            guard let integer = integer(text) else {
                throw .usage(
                    "\(token) takes a decimal integer from -9223372036854775808 to 18446744073709551615, not "
                        + "'\(text)'")
            }
            return (.integer(integer), .set)
        case "-float":
            let text = try argument(of: token, arguments, &cursor)
            switch real(text) {
            case .success(let real): return (.real(real), .set)
            case .failure(let problem):
                throw .usage("-float takes a number such as 1.5 or -2e3, not '\(text)': \(problem.reason)")
            }
        case "-bool", "-boolean":
            let text = try argument(of: token, arguments, &cursor)
            switch text.lowercased() {
            case "yes", "true": return (.bool(true), .set)
            case "no", "false": return (.bool(false), .set)
            default: throw .usage("\(token) takes true, false, yes or no, not '\(text)'")
            }
        case "-date":
            let text = try argument(of: token, arguments, &cursor)
            switch date(text) {
            case .success(let date): return (.date(date), .set)
            case .failure(let problem):
                throw .usage("-date takes a date such as \(dateExamples), not '\(text)': \(problem.reason)")
            }
        case "-array", "-array-add":
            guard allowsContainers else { throw nestedContainers() }
            var elements: [PlistValue] = []
            while cursor < arguments.count, arguments[cursor] != pairSeparator {
                elements.append(try parseValue(arguments, cursor: &cursor, allowsContainers: false).value)
            }
            return (.array(elements), token == "-array" ? .set : .arrayAdd)
        case "-dict", "-dict-add":
            guard allowsContainers else { throw nestedContainers() }
            var entries: PlistDictionary = [:]
            while cursor < arguments.count, arguments[cursor] != pairSeparator {
                guard case .string(let key) = try parseValue(arguments, cursor: &cursor, allowsContainers: false).value
                else { throw DefaultsError(.invalidValue, "Dictionary keys must be strings") }
                guard cursor < arguments.count, arguments[cursor] != pairSeparator else {
                    throw DefaultsError(.invalidValue, "Key \(key) lacks a corresponding value")
                }
                entries[key] = try parseValue(arguments, cursor: &cursor, allowsContainers: false).value
            }
            return (.dictionary(entries), token == "-dict" ? .set : .dictionaryAdd)
        default:
            return (try parsePropertyListText(token), .set)
        }
    }

    /// Reads a single-argument value the way macOS does: plain text is a string, text with `"()[]{}<>` is a
    /// property list (OpenStep, or XML when it starts with a tag).
    /// - Throws: ``DefaultsError`` with code `.invalidValue` and macOS's `Could not parse: … Try single-quoting it.`
    package static func parsePropertyListText(_ text: String) throws(DefaultsError) -> PlistValue {
        let isPlain = !text.utf8.contains { byte in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
                UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                true
            default:
                false
            }
        }
        // macOS quotes plain text and parses it, so that escapes such as \n work; only a stray backslash fails.
        let source = isPlain ? "\"\(text)\"" : text
        let bytes = Array(source.utf8)
        let isXML = bytes.withUnsafeBytes { PlistFormat.sniff($0) } == .xml
        do {
            return try PlistSerialization.decode(bytes, format: isXML ? .xml : .openStep).value
        } catch {
            throw DefaultsError(
                .invalidValue, "Could not parse: \(source).  Try single-quoting it.", cause: error as? PlistError)
        }
    }

    /// The argument after a typed flag.
    private static func argument(
        of flag: String, _ arguments: [String], _ cursor: inout Int
    ) throws(DefaultsError) -> String {
        guard cursor < arguments.count else { throw .usage("\(flag) needs a value") }
        cursor += 1
        return arguments[cursor - 1]
    }

    /// Hexadecimal digits as bytes; an odd count makes the first digit a byte of its own, as on macOS.
    static func hexBytes(_ text: String) -> [UInt8]? {
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((nibbles.count + 1) / 2)
        var index = 0
        if nibbles.count % 2 == 1 {
            bytes.append(nibbles[0])
            index = 1
        }
        while index < nibbles.count {
            bytes.append(nibbles[index] << 4 | nibbles[index + 1])
            index += 2
        }
        return bytes
    }

    /// A decimal integer in the property-list range, with an optional sign and surrounding blanks.
    static func integer(_ text: String) -> PlistInteger? {
        let digits = trimmed(text)
        if let signed = Int64(digits) { return PlistInteger(signed) }
        if let unsigned = UInt64(digits) { return PlistInteger(unsigned) }
        return nil
    }

    /// The text without the spaces, tabs and newlines around it.
    static func trimmed(_ text: String) -> Substring {
        var view = Substring(text)
        while let first = view.first, first == " " || first == "\t" || first == "\n" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" || last == "\n" { view = view.dropLast() }
        return view
    }

    private static func nestedContainers() -> DefaultsError {
        DefaultsError(.invalidValue, "Cannot nest composite types (arrays and dictionaries); exiting")
    }
}
