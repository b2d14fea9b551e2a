// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Synchronization
import Testing

/// `Preferences(…migratingFrom:)`: an application's settings from Foundation or GNUstep, adopted once.
@Suite struct PreferencesMigrationTests {
    final class Diagnostics: Sendable {
        let received = Mutex<[PreferencesError]>([])
        var all: [PreferencesError] { received.withLock { $0 } }
    }

    static func storage(_ directory: TemporaryDirectory, _ diagnostics: Diagnostics) -> PreferencesStorage {
        .directories(
            preferences: directory.file("prefs"), flushDelay: .milliseconds(10),
            diagnostics: { error in diagnostics.received.withLock { $0.append(error) } })
    }

    @Test("the first instance adopts the file once, reports it, and keeps keys set here; deleted keys stay deleted")
    func adoptsOnce() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("foundation"), withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>Theme</key><string>dark</string><key>Count</key><integer>3</integer>
            </dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: directory.file("foundation/com.example.Editor.plist")))
        let diagnostics = Diagnostics()
        let storage = Self.storage(directory, diagnostics)
        try Preferences(domain: "com.example.Editor", storage: storage).set("light", forKey: "Theme")

        let source = PreferencesMigrationSource.foundation(in: directory.file("foundation"))
        let first = try Preferences(domain: "com.example.Editor", migratingFrom: source, storage: storage)
        #expect(first.string(forKey: "Theme") == "light")
        #expect(first.integer(forKey: "Count") == 3)
        #expect(diagnostics.all.map(\.code) == [.migrated])
        #expect(diagnostics.all.first?.message.contains("took Count; kept Theme (set here)") == true)

        first.removeObject(forKey: "Count")
        let second = try Preferences(domain: "com.example.Editor", migratingFrom: source, storage: storage)
        #expect(second.object(forKey: "Count") == nil)
        #expect(diagnostics.all.count == 1)
    }

    @Test("a broken file is reported each time and nothing is recorded; without a file nothing happens")
    func brokenOrMissingFiles() throws {
        let directory = try TemporaryDirectory()
        let diagnostics = Diagnostics()
        let storage = Self.storage(directory, diagnostics)
        let source = PreferencesMigrationSource.gnustep(in: directory.path)
        _ = Preferences(suiteName: "com.example.Shared", migratingFrom: source, storage: storage)
        #expect(diagnostics.all.isEmpty)
        try Data("{ unterminated".utf8).write(to: URL(fileURLWithPath: directory.file("com.example.Shared.plist")))
        _ = Preferences(suiteName: "com.example.Shared", migratingFrom: source, storage: storage)
        _ = Preferences(suiteName: "com.example.Shared", migratingFrom: source, storage: storage)
        #expect(diagnostics.all.map(\.code) == [.corrupt, .corrupt])
        #expect(!FileManager.default.fileExists(atPath: directory.file("prefs/preferences.migrations.plist")))
    }
}
