// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The `plutil -p` text: a readable, not re-parseable, view of a property list, as macOS prints it.
///
/// ```
/// {
///   "name" => "value"
///   "list" => [
///     0 => 1
///   ]
/// }
/// ```
enum HumanReadablePrinter {
    static func text(of value: PlistValue) -> String {
        var output = ""
        append(value, level: 0, to: &output)
        output.append("\n")
        return output
    }

    private static func append(_ value: PlistValue, level: Int, to output: inout String) {
        let indent = String(repeating: "  ", count: level + 1)
        switch value {
        case .dictionary(let entries):
            output.append("{\n")
            for key in entries.keys.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }) {
                output.append(indent)
                output.append(quoted(key))
                output.append(" => ")
                append(entries[key]!, level: level + 1, to: &output)
                output.append("\n")
            }
            output.append(String(repeating: "  ", count: level))
            output.append("}")
        case .array(let elements):
            output.append("[\n")
            for (index, element) in elements.enumerated() {
                output.append("\(indent)\(index) => ")
                append(element, level: level + 1, to: &output)
                output.append("\n")
            }
            output.append(String(repeating: "  ", count: level))
            output.append("]")
        case .string(let text): output.append(quoted(text))
        case .integer(let number): output.append(number.description)
        case .real(let number): output.append(number.description)
        case .bool(let flag): output.append(flag ? "true" : "false")
        case .date(let date):
            output.append(date.defaultsString ?? "(date \(date.secondsSinceReferenceDate))")
        case .data:
            output.append(value.defaultsDescription)
        case .uid(let number): output.append("<CFKeyedArchiverUID>{value = \(number)}")
        case .null: output.append("null")
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result.append("\\\"")
            case "\\": result.append("\\\\")
            case "\n": result.append("\\n")
            case "\t": result.append("\\t")
            default: result.unicodeScalars.append(scalar)
            }
        }
        result.append("\"")
        return result
    }
}
