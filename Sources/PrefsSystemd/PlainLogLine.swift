// SPDX-License-Identifier: Apache-2.0
import Logging

/// The one-line text `JournalLogHandler` writes to standard error outside systemd.
///
/// `<timestamp> <level> <label>: <message> key=value…`, for example
/// `2025-01-31T14:05:09.123+0100 info prefsd: domain written prefs.domain=com.example.app prefs.key=Window`.
/// Metadata is sorted by key. A value that is empty or holds a space, `"`, `=` or a control character is written
/// in double quotes with `\"`, `\\`, `\n`, `\r`, `\t` and `\xHH` escapes; line breaks in the message are written
/// as `\n` and `\r`, so each entry stays one line for `grep` and line-based collectors.
///
/// Pure: the caller passes the timestamp, so tests check the exact text.
enum PlainLogLine {
    /// Formats one entry, ending in a newline.
    static func format(
        timestamp: String, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        error: (any Error)?
    ) -> String {
        var line = "\(timestamp) \(level.rawValue) \(label): \(escapeLineBreaks(message))"
        var metadata = metadata
        // The attached error is shown like metadata, unless metadata already has an "error" key.
        if let error, metadata["error"] == nil { metadata["error"] = "\(error)" }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(quotedIfNeeded(key))=\(quotedIfNeeded(value.description))"
        }
        return line + "\n"
    }

    private static func escapeLineBreaks(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func quotedIfNeeded(_ text: String) -> String {
        let needsQuotes =
            text.isEmpty
            || text.unicodeScalars.contains {
                $0 == " " || $0 == "\"" || $0 == "=" || $0.value < 0x20 || $0 == "\u{7F}"
            }
        guard needsQuotes else { return text }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
