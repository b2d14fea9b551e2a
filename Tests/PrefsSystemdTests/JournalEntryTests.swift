// SPDX-License-Identifier: Apache-2.0
import Logging
import Testing

@testable import PrefsSystemd

/// The fields sent to journald, checked as a pure function: no journald runs on the build machine, so what
/// `sd_journal_sendv` is handed is compared field by field here (and captured on a stand-in journal socket in
/// `JournalLogHandlerTests`).
@Suite struct JournalEntryTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    @Test func exactFields() {
        let entry = JournalEntry(
            level: .warning, message: "cannot write domain",
            metadata: [
                "prefs.domain": "com.example.app", "prefs.client.pid": "4242",
                "prefs.client.uid": .stringConvertible(1000),
                "prefs.key": "Window Frame", "tags": ["a", "b"],
            ], error: Failure(), identifier: "prefsd", label: "prefsd.store", source: "PrefsStore",
            file: "PrefsStore/Store.swift", function: "flush()", line: 42)
        #expect(
            entry.fields.map(\.description) == [
                "MESSAGE=cannot write domain",
                "PRIORITY=4",
                "SYSLOG_IDENTIFIER=prefsd",
                "CODE_FILE=PrefsStore/Store.swift",
                "CODE_LINE=42",
                "CODE_FUNC=flush()",
                "LOGGER_LABEL=prefsd.store",
                "LOGGER_SOURCE=PrefsStore",
                "ERROR=disk full",
                "PREFS_CLIENT_PID=4242",
                "PREFS_CLIENT_UID=1000",
                "PREFS_DOMAIN=com.example.app",
                "PREFS_KEY=Window Frame",
                #"TAGS=["a", "b"]"#,
            ])
    }

    @Test func encodedFieldsKeepNewlinesInValues() {
        let entry = JournalEntry(
            level: .info, message: "first\nsecond", metadata: [:], error: nil, identifier: "prefsd", label: "l",
            source: "s", file: "f", function: "g", line: 1)
        #expect(entry.encoded.first == Array("MESSAGE=first\nsecond".utf8))
        #expect(entry.encoded.count == 8)  // No ERROR field without an error.
    }

    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func priorities(level: Logger.Level, priority: Int) {
        #expect(JournalEntry.priority(of: level) == priority)
    }

    @Test(arguments: [
        ("prefs.domain", "PREFS_DOMAIN"),
        ("prefs_domain", "PREFS_DOMAIN"),
        ("PREFS_DOMAIN", "PREFS_DOMAIN"),
        ("prefs.client.pid", "PREFS_CLIENT_PID"),
        ("prefs.client-uid", "PREFS_CLIENT_UID"),
        ("request id", "REQUEST_ID"),
        ("ünïcode", "N_CODE"),
        ("_private", "PRIVATE"),
        ("__", "FIELD_"),
        ("", "FIELD_"),
        ("2fa", "FIELD_2FA"),
        ("message", "FIELD_MESSAGE"),
        ("priority", "FIELD_PRIORITY"),
        ("code.file", "FIELD_CODE_FILE"),
        ("message_id", "MESSAGE_ID"),
        (String(repeating: "k", count: 70), String(repeating: "K", count: 64)),
    ])
    func fieldNames(key: String, name: String) {
        #expect(JournalEntry.fieldName(forMetadataKey: key) == name)
    }

    @Test func everyFieldNameIsOneJournaldAccepts() {
        // journald's rule: 1-64 characters of A-Z, 0-9 and _, not starting with a digit or _.
        for key in ["prefs.domain", "", "_", "9", "a-b", "ÅÄÖ", "🙂", "x" + String(repeating: ".", count: 80)] {
            let name = JournalEntry.fieldName(forMetadataKey: key)
            #expect((1...64).contains(name.count), "\(key) → \(name)")
            #expect(name.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }, "\(name)")
            #expect(!name.first!.isNumber && name.first != "_", "\(key) → \(name)")
        }
    }
}
