// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension PlistValue {
    /// The value on one line, with the quoting of `defaults read` (``PlistValue/defaultsDescription``) inside
    /// containers: `(1, "two words")`, `{ Theme = dark; "mod-count" = 4; }`, `"Safari\U6d4f\U89c8\U5668"`.
    ///
    /// `watch` and `explain` print values this way so that each change or layer is one line.
    var compactDescription: String {
        switch self {
        case .array(let elements):
            return "(" + elements.map(\.compactDescription).joined(separator: ", ") + ")"
        case .dictionary(let entries):
            guard !entries.isEmpty else { return "{}" }
            // The order of `defaults read`: UTF-16 code units, as CFStringCompare compares.
            let keys = entries.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            let body = keys.map { "\(Self.quotedDefaultsText($0)) = \(entries[$0]!.compactDescription);" }
            return "{ " + body.joined(separator: " ") + " }"
        default:
            return Self.elementText(self)
        }
    }

    /// A string as `defaults read` prints it inside a container: bare when it is plain letters and digits, else
    /// double-quoted with escapes.
    static func quotedDefaultsText(_ string: String) -> String {
        elementText(.string(string))
    }

    /// A scalar as `defaults read` prints it inside an array, which is the one line between `(` and `)`.
    private static func elementText(_ scalar: PlistValue) -> String {
        let text = PlistValue.array([scalar]).defaultsDescription
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 3 else { return text }
        return String(lines[1].dropFirst(4))
    }
}
