// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("the longest domain names through prefsd")
struct LongDomainNameTests {
    static let defaults = BuiltProduct("defaults").path
    /// The longest name every layer accepts: its by-host file name, `<name>.<machine id>.plist`, has 255 bytes.
    static let longest = String(repeating: "n", count: 215) + "L"
    static var machineID: String {
        ((try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "the longest accepted name is written through prefsd, in the user and by-host scopes, and read back after a restart and on the files",
        .enabled(if: machineID.utf8.count == 32, "by-host domains need /etc/machine-id"))
    func longestNameSurvivesARestart() throws {
        let home = try DaemonHome()
        var daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        for (arguments, value) in [([String](), "user"), (["-currentHost"], "by host")] {
            let write = try runProgram(
                Self.defaults, arguments + ["write", Self.longest, "Scope", value], environment: home.environment)
            #expect(write.status == 0, "\(write)")
            #expect(write.error == "")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)

        // On the files: both exist under their full names, and no temp file was left behind.
        let byHostName = "\(Self.longest).\(Self.machineID).plist"
        #expect(byHostName.utf8.count == 255)
        #expect(try home.storedValues(Self.longest) == ["Scope": "user"])
        let byHostPath = home.preferences + "/ByHost/" + byHostName
        let byHost = try #require(FileManager.default.contents(atPath: byHostPath))
        #expect(try PlistSerialization.decode(Array(byHost)).dictionaryValue == ["Scope": "by host"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.preferences + "/ByHost")
            .filter { $0 != byHostName }
        #expect(leftovers.isEmpty)

        // A new daemon reads them back.
        daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        for (arguments, value) in [([String](), "user"), (["-currentHost"], "by host")] {
            let read = try runProgram(
                Self.defaults, arguments + ["read", Self.longest, "Scope"], environment: home.environment)
            #expect(read.status == 0, "\(read)")
            #expect(read.output == value + "\n")
        }
        let domains = try runProgram(Self.defaults, ["-currentHost", "domains"], environment: home.environment)
        #expect(domains.output == Self.longest + "\n")
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("one byte more is refused with invalidName naming the limit: by prefsd, by defaults, on the files")
    func longerNamesAreRefused() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let tooLong = Self.longest + "x"
        let connection = try WireTestConnection(path: home.socketPath)
        try connection.hello()
        let refused = try connection.call(.set(WireDomain(tooLong), key: "k", value: 1, expectedVersion: nil))
        guard case .failure(let error) = refused else {
            Issue.record("prefsd accepted a name of \(tooLong.utf8.count) bytes")
            return
        }
        #expect(error.code == .invalidName)
        #expect(error.message.contains("at most 216 bytes"))

        for variable in ["on", "off"] {
            let write = try runProgram(
                Self.defaults, ["write", tooLong, "k", "v"],
                environment: home.environment.merging(["PREFERENCES_DAEMON": variable]) { _, new in new })
            #expect(write.status != 0)
            #expect(write.error.contains("at most 216 bytes"), "\(write.error)")
        }
        let entries = try FileManager.default.contentsOfDirectory(atPath: home.preferences)
        #expect(!entries.contains { $0.hasPrefix(tooLong) })
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
