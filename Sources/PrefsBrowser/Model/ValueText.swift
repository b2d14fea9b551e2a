// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsPlist

/// The types a value can be given in the browser, with the `defaults write` flag that parses typed text.
enum ValueKind: String, CaseIterable, Sendable {
    case string, integer, real, boolean, date, data, array, dictionary

    /// The kind of a value (a uid or null, which no input makes, reads as a string).
    init(of value: PlistValue) {
        switch value {
        case .integer: self = .integer
        case .real: self = .real
        case .bool: self = .boolean
        case .date: self = .date
        case .data: self = .data
        case .array: self = .array
        case .dictionary: self = .dictionary
        case .string, .uid, .null: self = .string
        }
    }

    /// The letter that picks the kind when a key or an item is added.
    var letter: Character {
        switch self {
        case .string: "s"
        case .integer: "i"
        case .real: "f"
        case .boolean: "b"
        case .date: "t"
        case .data: "x"
        case .array: "a"
        case .dictionary: "d"
        }
    }

    /// What typed input of this kind looks like, for the prompt.
    var example: String {
        switch self {
        case .string: "any text"
        case .integer: "a whole number"
        case .real: "a number such as 1.5"
        case .boolean: "true or false"
        case .date: "2026-12-03 10:30:00 +0000"
        case .data: "hexadecimal bytes"
        case .array: "an empty array"
        case .dictionary: "an empty dictionary"
        }
    }
}

/// Values as one line of text, and typed text as values (parsed as `defaults write` parses its typed flags).
enum ValueText {
    /// The value on one line: scalars as `defaults read` prints them (booleans as `true`/`false`), containers as
    /// their OpenStep text with the line breaks folded away.
    static func short(_ value: PlistValue) -> String {
        switch value {
        case .bool(let flag): return flag ? "true" : "false"
        case .array, .dictionary:
            var folded = ""
            var atLineStart = false
            for character in value.defaultsDescription {
                if character == "\n" {
                    atLineStart = true
                    continue
                }
                if atLineStart {
                    if character == " " { continue }
                    folded += " "
                    atLineStart = false
                }
                folded.append(character)
            }
            return folded
        default: return value.defaultsDescription
        }
    }

    /// The text an edit of the value starts from, in the form ``parse(_:as:)`` reads back.
    static func input(_ value: PlistValue) -> String {
        switch value {
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let date): return date.defaultsString ?? value.defaultsDescription
        case .data(let bytes):
            let digits = Array("0123456789abcdef")
            return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
        case .string(let text): return text
        default: return value.defaultsDescription
        }
    }

    /// Reads typed text as a value of `kind`.
    /// - Throws: ``BrowserError`` with code `.invalidValue`, in the words `defaults write` uses.
    static func parse(_ text: String, as kind: ValueKind) throws(BrowserError) -> PlistValue {
        let flag: String
        switch kind {
        case .string: return .string(text)
        case .array: return .array([])
        case .dictionary: return .dictionary([:])
        case .integer: flag = "-int"
        case .real: flag = "-float"
        case .boolean: flag = "-bool"
        case .date: flag = "-date"
        case .data: flag = "-data"
        }
        var cursor = 0
        do {
            return try ValueParser.parseValue([flag, text], cursor: &cursor, allowsContainers: false).value
        } catch {
            throw BrowserError(.invalidValue, error.message)
        }
    }
}
