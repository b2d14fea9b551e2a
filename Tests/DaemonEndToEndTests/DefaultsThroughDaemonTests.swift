// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("defaults through prefsd")
struct DefaultsThroughDaemonTests {
    static let defaults = BuiltProduct("defaults").path

    @Test("with a daemon answering, defaults reads and writes through it: a subscriber sees its writes at once")
    func defaultsUsesTheDaemon() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let watcher = try WireTestConnection(path: home.socketPath)
        try watcher.hello()
        let app = WireDomain("com.example.app")
        _ = try watcher.call(.subscribe(WireSubscriptionFilter(.domain(app))))

        let write = try runProgram(
            Self.defaults, ["write", "com.example.app", "Theme", "dark"], environment: home.environment)
        #expect(write.status == 0)
        #expect(write.output == "")
        #expect(write.error == "")
        // The change reached the daemon's subscribers from the defaults process, not from a file the daemon read.
        guard case .event(.change(_, let change, let origin)) = try watcher.receiveMessage() else {
            Issue.record("no change event for the defaults write")
            return
        }
        #expect(change.key == "Theme")
        #expect(change.new == "dark")
        #expect(origin.kind == .client)

        let read = try runProgram(Self.defaults, ["read", "com.example.app"], environment: home.environment)
        #expect(read.status == 0)
        #expect(read.output == "{\n    Theme = dark;\n}\n")
        let missing = try runProgram(Self.defaults, ["read", "com.example.none"], environment: home.environment)
        #expect(missing.status == 1)
        #expect(missing.error == "\nDomain com.example.none does not exist\n")
        let explain = try runProgram(Self.defaults, ["explain", "prefsd", "FlushDelay"], environment: home.environment)
        #expect(
            explain.output == "FlushDelay = 1 from shipped prefsd (\(DaemonProcess.repository)/Domains/prefsd.plist)\n")

        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        #expect(try home.storedValues("com.example.app") == ["Theme": "dark"])

        // Without the daemon, the same command works on the files.
        let offline = try runProgram(
            Self.defaults, ["read", "com.example.app", "Theme"], environment: home.environment)
        #expect(offline.output == "dark\n")
    }
}

@Suite("exact keys through prefsd")
struct ExactKeysThroughDaemonTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test("two keys that differ only in normalization stay two through the protocol, the daemon and its file")
    func bothKeysSurvive() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let environment = home.environment.merging(["PREFERENCES_DAEMON": "on"]) { _, new in new }
        for (key, value) in [(Self.composed, "1"), (Self.decomposed, "2")] {
            let write = try runProgram(
                DefaultsThroughDaemonTests.defaults, ["write", "com.example.app", key, "-int", value],
                environment: environment)
            #expect(write.status == 0, "\(write.error)")
        }
        let dictAdd = try runProgram(
            DefaultsThroughDaemonTests.defaults,
            ["write", "com.example.app", "Dict", "-dict-add", Self.composed, "a", Self.decomposed, "b"],
            environment: environment)
        #expect(dictAdd.status == 0, "\(dictAdd.error)")
        let read = try runProgram(
            DefaultsThroughDaemonTests.defaults, ["read", "com.example.app", Self.decomposed], environment: environment)
        #expect(read.output == "2\n")
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        let stored = try #require(try home.storedValues("com.example.app"))
        #expect(stored[Self.composed] == 1)
        #expect(stored[Self.decomposed] == 2)
        #expect(stored["Dict"] == [Self.composed: "a", Self.decomposed: "b"])
    }
}
