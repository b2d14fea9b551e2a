// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

/// Adopting other programs' settings while prefsd runs: the change goes through the daemon (its subscribers see
/// it), for `defaults migrate` and for `Preferences(…migratingFrom:)`.
@Suite("migrating through prefsd")
struct MigrateThroughDaemonTests {
    static let defaults = BuiltProduct("defaults").path

    @Test("defaults migrate writes through prefsd as one change that subscribers see")
    func defaultsMigrateUsesTheDaemon() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let config = home.directory.file("config")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try Data("{ Theme = dark; Count = <*I3>; }".utf8).write(
            to: URL(fileURLWithPath: config + "/com.example.app.plist"))
        let watcher = try WireTestConnection(path: home.socketPath)
        try watcher.hello()
        _ = try watcher.call(.subscribe(WireSubscriptionFilter(.domain(WireDomain("com.example.app")))))

        var environment = home.environment
        environment["XDG_CONFIG_HOME"] = config
        environment["HOME"] = home.directory.path
        let result = try runProgram(
            Self.defaults, ["migrate", "-from", "foundation", "com.example.app"], environment: environment)
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.output == "com.example.app from foundation (\(config)/com.example.app.plist): took Count, Theme\n")
        // One atomic change: one batch event with both keys.
        guard case .event(.batch(_, let changes, let origin)) = try watcher.receiveMessage() else {
            Issue.record("no batch event for the adoption")
            return
        }
        #expect(origin.kind == .client)
        var changed: [String: PlistValue] = [:]
        for change in changes { changed[change.key] = change.new }
        #expect(changed == ["Theme": "dark", "Count": 3])
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        #expect(try home.storedValues("com.example.app") == ["Theme": "dark", "Count": 3])
        #expect(try home.storedValues("preferences.migrations")?["foundation:com.example.app"] != nil)
    }

    @Test("Preferences(…migratingFrom:) on a daemon storage adopts once and reads the values at once")
    func libraryMigratesThroughTheDaemon() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let gnustep = home.directory.file("gnustep")
        try FileManager.default.createDirectory(atPath: gnustep, withIntermediateDirectories: true)
        try Data("{ Size = <*I12>; }".utf8).write(to: URL(fileURLWithPath: gnustep + "/com.example.app.plist"))
        let notices = Mutex<[PreferencesError]>([])
        let storage = PreferencesStorage.daemon(
            socketPath: home.socketPath, domains: DaemonProcess.repository + "/Domains",
            diagnostics: { error in notices.withLock { $0.append(error) } })
        let preferences = try Preferences(
            domain: "com.example.app", migratingFrom: .gnustep(in: gnustep), storage: storage)
        #expect(preferences.integer(forKey: "Size") == 12)
        #expect(notices.withLock { $0.map(\.code) } == [.migrated])
        preferences.removeObject(forKey: "Size")
        let again = try Preferences(domain: "com.example.app", migratingFrom: .gnustep(in: gnustep), storage: storage)
        #expect(again.object(forKey: "Size") == nil)
        #expect(notices.withLock { $0.count } == 1)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
