// SPDX-License-Identifier: Apache-2.0
import Logging

/// One log entry as the fields `JournalLogHandler` hands to `sd_journal_sendv(3)`.
///
/// Building the fields is pure (no clock, no environment, no I/O), so tests check the exact fields without a
/// journald to send them to. The fields, in order:
///
/// | field | value |
/// |---|---|
/// | `MESSAGE` | the message |
/// | `PRIORITY` | the syslog priority of the level (``priority(of:)``) |
/// | `SYSLOG_IDENTIFIER` | the program name given to `PrefsLogging.bootstrap(identifier:)`, e.g. `prefsd` |
/// | `CODE_FILE`, `CODE_LINE`, `CODE_FUNC` | where the entry was logged |
/// | `LOGGER_LABEL` | the `Logger`'s label |
/// | `LOGGER_SOURCE` | the module that logged it |
/// | `ERROR` | the error attached to the entry, when there is one |
/// | one field per metadata key | named by ``fieldName(forMetadataKey:)``, sorted by key |
struct JournalEntry: Equatable, Sendable {
    /// One `NAME=value` pair.
    struct Field: Equatable, Sendable, CustomStringConvertible {
        let name: String
        let value: String

        var description: String { "\(name)=\(value)" }
    }

    /// The fields, in the order they are sent.
    let fields: [Field]

    /// The fields the handler writes itself; a metadata key that maps to one of them gets the `FIELD_` prefix so it
    /// cannot add a second `MESSAGE` or `PRIORITY` to an entry.
    static let handlerFieldNames: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER_LABEL",
        "LOGGER_SOURCE", "ERROR",
    ]

    /// journald ignores fields with longer names.
    static let maximumFieldNameLength = 64

    /// Builds the fields of one entry.
    init(
        level: Logger.Level, message: String, metadata: Logger.Metadata, error: (any Error)?, identifier: String,
        label: String, source: String, file: String, function: String, line: UInt
    ) {
        var fields = [
            Field(name: "MESSAGE", value: message),
            Field(name: "PRIORITY", value: String(Self.priority(of: level))),
            Field(name: "SYSLOG_IDENTIFIER", value: identifier),
            Field(name: "CODE_FILE", value: file),
            Field(name: "CODE_LINE", value: String(line)),
            Field(name: "CODE_FUNC", value: function),
            Field(name: "LOGGER_LABEL", value: label),
            Field(name: "LOGGER_SOURCE", value: source),
        ]
        if let error { fields.append(Field(name: "ERROR", value: "\(error)")) }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append(Field(name: Self.fieldName(forMetadataKey: key), value: value.description))
        }
        self.fields = fields
    }

    /// The bytes `sd_journal_sendv` takes: one `NAME=value` buffer per field (a value may hold newlines).
    var encoded: [[UInt8]] { fields.map { Array($0.name.utf8) + [UInt8(ascii: "=")] + Array($0.value.utf8) } }

    /// The syslog priority journald stores for a swift-log level.
    ///
    /// swift-log has no `emergency` or `alert` and two levels below `debug`; both of those map to `debug` (7).
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7  // LOG_DEBUG
        case .info: 6  // LOG_INFO
        case .notice: 5  // LOG_NOTICE
        case .warning: 4  // LOG_WARNING
        case .error: 3  // LOG_ERR
        case .critical: 2  // LOG_CRIT
        }
    }

    /// The journal field name for a swift-log metadata key, such as `PREFS_DOMAIN` for `prefs.domain`.
    ///
    /// journald accepts field names of 1 to 64 characters from `A–Z`, `0–9` and `_`, not starting with a digit, and
    /// reserves names starting with `_` for the fields it adds itself. So:
    /// 1. ASCII letters are uppercased, ASCII digits kept, and every other character becomes `_`
    ///    (`prefs.client-pid` → `PREFS_CLIENT_PID`; `prefs_domain` and `prefs.domain` both → `PREFS_DOMAIN`);
    /// 2. leading `_` are removed (`_private` → `PRIVATE`);
    /// 3. `FIELD_` is prefixed when the result is empty, starts with a digit, or names a field the handler writes
    ///    itself (`2fa` → `FIELD_2FA`, `message` → `FIELD_MESSAGE`);
    /// 4. the name is cut to 64 characters.
    static func fieldName(forMetadataKey key: String) -> String {
        var name = String(
            key.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z": Character(Unicode.Scalar(UInt8(scalar.value) - 32))
                case "A"..."Z", "0"..."9": Character(scalar)
                default: "_"
                }
            })
        name = String(name.drop { $0 == "_" })
        if name.isEmpty || name.first!.isNumber || handlerFieldNames.contains(name) { name = "FIELD_" + name }
        return String(name.prefix(maximumFieldNameLength))
    }
}
