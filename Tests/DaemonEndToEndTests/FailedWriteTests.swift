// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

/// `defaults write` on a full disk or a read-only file system fails and changes nothing, through prefsd and on the
/// files alike: the value is not visible afterwards and never reaches the file when space returns.
@Suite("a write that cannot be made durable", .enabled(if: SmallFileSystem.isAvailable, "mounting needs root"))
struct FailedWriteTests {
    static let defaults = BuiltProduct("defaults").path
    /// 8 KiB of data as `-data` hex digits: more than a full disk has room for.
    static let bigHex = String(repeating: "ab", count: 8192)

    enum Route: String, CaseIterable {
        case daemon, files
    }

    func run(_ arguments: [String], _ home: DaemonHome) throws -> (status: Int32, output: String, error: String) {
        try runProgram(Self.defaults, arguments, environment: home.environment)
    }

    @Test(
        "a full disk: the write fails, nothing changes, and nothing is written when space returns",
        arguments: Route.allCases)
    func fullDisk(route: Route) throws {
        let home = try DaemonHome()
        let disk = try SmallFileSystem(at: home.preferences, kilobytes: 64, owner: home.directory)
        let daemon = route == .daemon ? try DaemonProcess(home) : nil
        try daemon?.waitUntilServing(home)
        #expect(try run(["write", "com.example.app", "Kept", "-int", "1"], home).status == 0)
        try disk.fill()

        let failed = try run(["write", "com.example.app", "Big", "-data", Self.bigHex], home)
        #expect(failed.status == 1)
        #expect(failed.error.hasPrefix("Could not write domain com.example.app; exiting\n"), "\(failed.error)")
        #expect(failed.error.contains("No space left on device"), "\(failed.error)")
        let read = try run(["read", "com.example.app"], home)
        #expect(read.output == "{\n    Kept = 1;\n}\n", "the failed write is not visible: \(read)")

        try disk.makeRoom()
        #expect(try run(["write", "com.example.app", "Other", "-int", "2"], home).status == 0)
        if let daemon {
            daemon.signal(SIGTERM)
            #expect(daemon.finish() == 0)
        }
        #expect(try home.storedValues("com.example.app") == ["Kept": 1, "Other": 2])
        disk.unmount()
    }

    @Test(
        "the library on a full disk: synchronize fails and withdraws the change, on the files and through prefsd",
        arguments: Route.allCases)
    func libraryOnAFullDisk(route: Route) throws {
        let home = try DaemonHome()
        let disk = try SmallFileSystem(at: home.preferences, kilobytes: 64, owner: home.directory)
        let daemon = route == .daemon ? try DaemonProcess(home) : nil
        try daemon?.waitUntilServing(home)
        let storage: PreferencesStorage =
            route == .daemon
            ? .daemon(socketPath: home.socketPath, diagnostics: { _ in })
            : .directories(preferences: home.preferences, flushDelay: .seconds(60), diagnostics: { _ in })
        let prefs = try Preferences(domain: "com.example.app", storage: storage)
        prefs.set(1, forKey: "Kept")
        #expect(prefs.synchronize())
        try disk.fill()

        prefs.set(Data(repeating: 7, count: 16_384), forKey: "Big")
        #expect(!prefs.synchronize())
        // Through prefsd the daemon's events take the value back; on the files the store does at once.
        #expect(eventually { prefs.object(forKey: "Big") == nil })
        #expect(prefs.integer(forKey: "Kept") == 1)

        try disk.makeRoom()
        prefs.set(2, forKey: "Other")
        #expect(prefs.synchronize())
        if let daemon {
            daemon.signal(SIGTERM)
            #expect(daemon.finish() == 0)
        }
        #expect(try home.storedValues("com.example.app") == ["Kept": 1, "Other": 2])
        disk.unmount()
    }

    @Test("a read-only file system: the write fails naming it, and nothing changes", arguments: Route.allCases)
    func readOnlyFileSystem(route: Route) throws {
        let home = try DaemonHome()
        let disk = try SmallFileSystem(at: home.preferences, kilobytes: 64, owner: home.directory)
        let daemon = route == .daemon ? try DaemonProcess(home) : nil
        try daemon?.waitUntilServing(home)
        #expect(try run(["write", "com.example.app", "Kept", "-int", "1"], home).status == 0)
        try disk.remountReadOnly()

        let failed = try run(["write", "com.example.app", "New", "-int", "2"], home)
        #expect(failed.status == 1)
        #expect(failed.error.hasPrefix("Could not write domain com.example.app; exiting\n"), "\(failed.error)")
        #expect(failed.error.contains("Read-only file system"), "\(failed.error)")
        #expect(try run(["read", "com.example.app"], home).output == "{\n    Kept = 1;\n}\n")

        try disk.remountReadWrite()
        #expect(try run(["write", "com.example.app", "Other", "-int", "3"], home).status == 0)
        if let daemon {
            daemon.signal(SIGTERM)
            #expect(daemon.finish() == 0)
        }
        #expect(try home.storedValues("com.example.app") == ["Kept": 1, "Other": 3])
        disk.unmount()
    }

    @Test("a directory read-only before the first write: the write itself is refused, through prefsd as on the files")
    func readOnlyFromTheStart() throws {
        for route in Route.allCases {
            let home = try DaemonHome()
            let disk = try SmallFileSystem(at: home.preferences, kilobytes: 64, owner: home.directory)
            try disk.remountReadOnly()
            let daemon = route == .daemon ? try DaemonProcess(home) : nil
            try daemon?.waitUntilServing(home)
            if daemon != nil {
                // The client's set, not only its synchronize, is refused: nothing was acknowledged.
                let connection = try WireTestConnection(path: home.socketPath)
                try connection.hello()
                let set = try connection.call(
                    .set(WireDomain("com.example.app"), key: "a", value: 1, expectedVersion: nil))
                guard case .failure(let error) = set else {
                    Issue.record("a set on a read-only directory was acknowledged: \(set)")
                    continue
                }
                #expect(error.code == .storeUnavailable)
                #expect(error.message.contains("is not writable (Read-only file system)"), "\(error.message)")
                if case .success(.get(let value, _)) = try connection.call(
                    .get(WireDomain("com.example.app"), key: "a"))
                {
                    #expect(value == nil, "the refused value is not visible")
                } else {
                    Issue.record("get after the refused set failed")
                }
            }
            var environment = home.environment
            environment["PREFERENCES_DAEMON"] = route == .daemon ? "on" : "off"
            let failed = try runProgram(
                Self.defaults, ["write", "com.example.app", "a", "-int", "1"], environment: environment)
            #expect(failed.status == 1)
            #expect(failed.error.hasPrefix("Could not write domain com.example.app; exiting\n"), "\(failed.error)")
            #expect(failed.error.contains("is not writable (Read-only file system)"), "\(route): \(failed.error)")

            try disk.remountReadWrite()
            let written = try runProgram(
                Self.defaults, ["write", "com.example.app", "a", "-int", "2"], environment: environment)
            #expect(written.status == 0, "\(route): \(written.error)")
            if let daemon {
                daemon.signal(SIGTERM)
                #expect(daemon.finish() == 0)
            }
            #expect(try home.storedValues("com.example.app") == ["a": 2])
            disk.unmount()
        }
    }
}
