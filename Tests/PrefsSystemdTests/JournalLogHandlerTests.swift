// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PrefsTestSupport
import Testing

@testable import PrefsSystemd

/// The log handler's choice between journald and standard error, and the plain-line format.
@Suite struct JournalLogHandlerTests {
    /// Runs the fixture with `JOURNAL_STREAM` set to the device and inode of its own standard error, as systemd sets
    /// it for a service whose output goes to the journal.
    static func underJournalStream(_ arguments: [String]) -> [String] {
        ["-c", "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec \"$0\" \"$@\"", ChildProcess.fixture]
            + arguments
    }

    @Test func journalStreamMustNameStandardError() {
        #expect(JournalLogHandler.isJournalStream("64769:123456", device: 64769, inode: 123456))
        #expect(!JournalLogHandler.isJournalStream("64769:123457", device: 64769, inode: 123456))
        #expect(!JournalLogHandler.isJournalStream("1:123456", device: 64769, inode: 123456))
        #expect(!JournalLogHandler.isJournalStream(nil, device: 64769, inode: 123456))
        #expect(!JournalLogHandler.isJournalStream("", device: 0, inode: 0))
        #expect(!JournalLogHandler.isJournalStream("64769:123456:1", device: 64769, inode: 123456))
        #expect(!JournalLogHandler.isJournalStream("0x10:5", device: 16, inode: 5))
    }

    @Test func plainLineFormat() {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "disk full" }
        }
        let line = PlainLogLine.format(
            timestamp: "2025-01-31T14:05:09.123+0100", level: .warning, label: "prefsd.store",
            message: "cannot write\ndomain",
            metadata: [
                "prefs.domain": "com.example.app", "prefs.key": "Window Frame", "empty": "", "quote": "say \"hi\"",
                "path": "/a=b", "control": "a\tb\u{1}",
            ], error: Failure())
        #expect(
            line
                == "2025-01-31T14:05:09.123+0100 warning prefsd.store: cannot write\\ndomain control=\"a\\tb\\x01\" "
                + "empty=\"\" error=\"disk full\" path=\"/a=b\" prefs.domain=com.example.app "
                + "prefs.key=\"Window Frame\" "
                + "quote=\"say \\\"hi\\\"\"\n")
    }

    @Test func plainLineWithoutMetadata() {
        let line = PlainLogLine.format(
            timestamp: "T", level: .info, label: "prefsd", message: "ready", metadata: [:], error: nil)
        #expect(line == "T info prefsd: ready\n")
    }

    @Test func writesPlainLinesToStandardErrorOutsideSystemd() throws {
        let result = try ChildProcess(ChildProcess.fixture, ["log"]).finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "destination=standardError\n", "\(result)")
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty, "\(result)")  // Two entries; trace is below the level.
        let timestamp = #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}/#
        let entries = lines.prefix(2).map { line in
            let (stamp, rest) = (line.prefix { $0 != " " }, line.drop { $0 != " " }.dropFirst())
            #expect(stamp.wholeMatch(of: timestamp) != nil, "\(line)")
            return String(rest)
        }
        #expect(
            entries == [
                #"info prefs.fixture: domain written prefs.client.pid=4242 prefs.domain=com.example.app "#
                    + #"prefs.key="Window Frame""#,
                #"debug prefs.fixture: first line\nsecond line prefs.client.pid=4242"#,
            ])
    }

    @Test func choosesTheJournalWhenStandardErrorIsTheJournalStream() throws {
        let result = try ChildProcess("/bin/sh", Self.underJournalStream(["log"])).finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "destination=journal\n", "\(result)")
        // The entries went to sd_journal_sendv, not to standard error. (libsystemd drops them silently when no
        // journald listens, as on the build machine; the next test captures them.)
        #expect(result.standardError.isEmpty, "\(result)")
    }

    @Test func redirectedStandardErrorIsNotTheJournal() throws {
        // JOURNAL_STREAM inherited from a service whose child redirected stderr (here: into a pipe the test reads):
        // device and inode no longer match, so plain lines go where stderr now points.
        let result = try ChildProcess(ChildProcess.fixture, ["log"], environment: ["JOURNAL_STREAM": "1:1"]).finish()
        #expect(result.standardOutput == "destination=standardError\n", "\(result)")
        #expect(result.standardError.contains(" info prefs.fixture: domain written "), "\(result)")
    }

    /// Whether this machine lets the tests make a private mount namespace (root with `unshare`), in which a stand-in
    /// journal socket can be bound at `/run/systemd/journal/socket` without touching the real `/run`.
    static let canMountPrivateRun: Bool = {
        guard
            let result = try? ChildProcess(
                "/usr/bin/unshare", ["--mount", "/bin/sh", "-c", "mount -t tmpfs tmpfs /run"]
            )
            .finish(timeout: .seconds(10))
        else { return false }
        return result.status == 0
    }()

    @Test(.enabled(if: canMountPrivateRun, "needs root and unshare(1) for a private mount namespace"))
    func sendsStructuredEntriesThatJournaldCanRead() throws {
        // In a private mount namespace (unshare's default propagation is private, so the host's /run is untouched)
        // a tmpfs hides /run, and the fixture binds the journal socket itself, logs, and prints what it received.
        let script =
            "mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && "
            + "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) "
            + "exec \"$0\" journal-capture /run/systemd/journal/socket"
        let result = try ChildProcess("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", script, ChildProcess.fixture])
            .finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.isEmpty, "\(result)")
        let datagrams = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("datagram ") }
            .map { Self.bytes(fromHex: $0.dropFirst("datagram ".count)) }
        try #require(datagrams.count == 2, "\(result)")
        let first = try Self.journalFields(datagrams[0])
        let second = try Self.journalFields(datagrams[1])
        #expect(
            first.map(\.name) == [
                "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER_LABEL",
                "LOGGER_SOURCE", "PREFS_CLIENT_PID", "PREFS_DOMAIN", "PREFS_KEY",
            ])
        let values = Dictionary(first.map { ($0.name, $0.value) }) { a, _ in a }
        #expect(values["MESSAGE"] == "domain written")
        #expect(values["PRIORITY"] == "6")
        #expect(values["SYSLOG_IDENTIFIER"] == "prefs-fixture")
        #expect(values["CODE_FILE"] == "PrefsSystemdFixture/PrefsSystemdFixture.swift")
        #expect(values["CODE_FUNC"] == "log()")
        #expect(values["PREFS_DOMAIN"] == "com.example.app")
        #expect(values["PREFS_KEY"] == "Window Frame")
        #expect(values["PREFS_CLIENT_PID"] == "4242")
        // A value with a newline travels in journald's binary field form, intact.
        #expect(second.first?.name == "MESSAGE" && second.first?.value == "first line\nsecond line")
        #expect(second.contains { $0.name == "PRIORITY" && $0.value == "7" })
    }

    static func bytes(fromHex hex: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Parses journald's native protocol: `NAME=value\n`, or for values with newlines `NAME\n`, a 64-bit
    /// little-endian length, the value and `\n`.
    static func journalFields(_ bytes: [UInt8]) throws -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var index = 0
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "=") })
            else { throw SocketError(message: "truncated field at \(index)") }
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            if bytes[end] == UInt8(ascii: "=") {
                guard let lineEnd = bytes[end...].firstIndex(of: UInt8(ascii: "\n")) else {
                    throw SocketError(message: "unterminated field \(name)")
                }
                fields.append((name, String(decoding: bytes[(end + 1)..<lineEnd], as: UTF8.self)))
                index = lineEnd + 1
            } else {
                let lengthBytes = bytes[(end + 1)..<(end + 9)]
                let length = lengthBytes.reversed().reduce(0) { $0 << 8 | Int($1) }
                let valueStart = end + 9
                fields.append((name, String(decoding: bytes[valueStart..<(valueStart + length)], as: UTF8.self)))
                index = valueStart + length + 1
            }
        }
        return fields
    }
}
