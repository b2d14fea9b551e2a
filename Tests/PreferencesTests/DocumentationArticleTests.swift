// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Synchronization
import Testing

// The typed key the "Observing Changes" article declares. (`.fontSize`, which the articles declare too, is declared
// exactly so in TypedKeyTests.swift.)
extension Preferences.Key where Value == String {
    static let theme = Preferences.Key("Theme", default: "light")
}

/// The code of the DocC articles in Sources/Preferences/Preferences.docc, run as written, so that an article whose
/// code no longer compiles or no longer does what the article says fails here. Where an article uses the user's
/// real preferences (`Preferences.standard`, the environment's directories), the same lines run on a storage in a
/// temporary directory instead.
@Suite struct DocumentationArticleTests {
    final class Diagnostics: Sendable {
        let received = Mutex<[PreferencesError]>([])
        var codes: [PreferencesError.Code] { received.withLock { $0.map(\.code) } }
        func append(_ error: PreferencesError) { received.withLock { $0.append(error) } }
    }

    struct Window: Codable, Sendable, Equatable {
        var width = 640.0
        var height = 480.0
        var opened = Date()
    }

    static func storage(_ directory: TemporaryDirectory, _ diagnostics: Diagnostics) -> PreferencesStorage {
        .directories(
            preferences: directory.file("prefs"), flushDelay: .milliseconds(10),
            diagnostics: { diagnostics.append($0) })
    }

    @Test("Getting Started: read and write, registration, the throwing API, update, in-memory storage")
    func gettingStarted() throws {
        let directory = try TemporaryDirectory()
        let diagnostics = Diagnostics()
        let defaults = try Preferences(domain: "com.example.Editor", storage: Self.storage(directory, diagnostics))

        defaults.set("Ada Lovelace", forKey: "name")
        defaults.set(36, forKey: "age")
        defaults.set(1.65, forKey: "height")
        defaults.synchronize()

        let name = defaults.string(forKey: "name") ?? "unknown"
        let age = defaults.integer(forKey: "age")
        let height = defaults.double(forKey: "height")
        #expect(name == "Ada Lovelace" && age == 36 && height == 1.65)
        let file = try String(contentsOfFile: directory.file("prefs/com.example.Editor.plist"), encoding: .utf8)
        #expect(file.contains("<key>name</key>") && file.contains("<string>Ada Lovelace</string>"))

        defaults.register(defaults: ["Theme": "light", "FontSize": 12])
        let theme = defaults.string(forKey: "Theme")
        #expect(theme == "light")
        #expect(defaults.source(forKey: "Theme").description == "Theme = light from registered")

        do {
            let theme = try defaults.value(forKey: "Theme")
            try defaults.setValue("dark", forKey: "Theme")
            try defaults.synchronizeThrowing()
            #expect(theme == "light")
        } catch {
            Issue.record("the throwing API failed: \(error.code) \(error.message)")
        }
        #expect(defaults.string(forKey: "Theme") == "dark")

        let launches = Preferences.Key<Int>("LaunchCount", default: 0)
        let count = try defaults.update(launches) { $0 += 1 }
        #expect(count == 1)
        #expect(diagnostics.codes.isEmpty)

        let inMemoryDiagnostics = Diagnostics()
        let storage = PreferencesStorage.inMemory(diagnostics: { inMemoryDiagnostics.append($0) })
        let prefs = try Preferences(domain: "com.example.Editor", storage: storage)
        try storage.setContents(["Policy": "strict"], ofDomain: "com.example.Editor", scope: .forced)
        prefs.set("lenient", forKey: "Policy")
        #expect(prefs.string(forKey: "Policy") == "strict")
        #expect(inMemoryDiagnostics.codes == [.readOnly])
    }

    @Test("Moving from UserDefaults: the sample, and adoption from Foundation and GNUstep, once")
    func movingFromUserDefaults() throws {
        let directory = try TemporaryDirectory()
        let diagnostics = Diagnostics()
        let storage = Self.storage(directory, diagnostics)
        let foundation = directory.file("config")
        let gnustep = directory.file("GNUstep/Defaults")
        try FileManager.default.createDirectory(atPath: foundation, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: gnustep, withIntermediateDirectories: true)
        try Data(
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Theme</key><string>dark</string></dict></plist>"#
                .utf8
        ).write(to: URL(fileURLWithPath: foundation + "/com.example.Editor.plist"))
        try Data(#"{ Volume = <*I7>; }"#.utf8).write(to: URL(fileURLWithPath: gnustep + "/com.example.shared.plist"))

        let defaults = try Preferences(
            domain: "com.example.Editor", migratingFrom: .foundation(in: foundation), storage: storage)
        let shared = Preferences(
            suiteName: "com.example.shared", migratingFrom: .gnustep(in: gnustep), storage: storage)
        #expect(defaults.string(forKey: "Theme") == "dark")
        #expect(shared?.integer(forKey: "Volume") == 7)
        #expect(diagnostics.codes == [.migrated, .migrated])

        defaults.set("Ada Lovelace", forKey: "name")
        defaults.set(36, forKey: "age")
        defaults.synchronize()
        let name = defaults.string(forKey: "name") ?? "unknown"
        let age = defaults.integer(forKey: "age")
        #expect(name == "Ada Lovelace" && age == 36)

        defaults.removeObject(forKey: "Theme")
        let again = try Preferences(
            domain: "com.example.Editor", migratingFrom: .foundation(in: foundation), storage: storage)
        #expect(again.object(forKey: "Theme") == nil)  // adopted once: a deleted key stays deleted
        #expect(diagnostics.codes.count == 2)
    }

    @Test("Typed Keys and Codable Values: subscripts, optionals, Codable structs, throwing forms, update")
    func typedKeysAndCodableValues() throws {
        let directory = try TemporaryDirectory()
        let diagnostics = Diagnostics()
        let prefs = try Preferences(domain: "com.example.Editor", storage: Self.storage(directory, diagnostics))

        prefs[.fontSize] += 1
        let size = prefs[.fontSize]
        #expect(size == 13)

        let nickname = Preferences.Key<String?>("Nickname", default: nil)
        prefs[nickname] = "Ada"
        #expect(prefs.string(forKey: "Nickname") == "Ada")
        prefs[nickname] = nil
        #expect(prefs.object(forKey: "Nickname") == nil)

        let window = Preferences.Key("Window", default: Window())
        prefs[window].width = 800
        #expect(prefs[window].width == 800)
        let stored = try #require(try prefs.value(forKey: "Window")?.dictionaryValue)
        #expect(stored["width"] == .real(800) && stored["height"] == .real(480))
        if case .date = stored["opened"] {} else { Issue.record("opened is not stored as a date: \(stored)") }

        try prefs.setEncoded(Window(width: 1024), forKey: "LastWindow")
        let last = try prefs.decoded(Window.self, forKey: "LastWindow")
        #expect(last?.width == 1024)

        prefs.set("large", forKey: "FontSize")
        #expect(prefs[.fontSize] == 12)
        #expect(throws: PreferencesError.self) { try prefs.value(for: .fontSize) }
        do {
            let size = try prefs.value(for: .fontSize)
            Issue.record("a stored \"large\" read as \(size)")
        } catch {
            #expect(error.code == .typeMismatch)
        }
        prefs.set(12, forKey: "FontSize")
        do {
            let size = try prefs.value(for: .fontSize)
            try prefs.setValue(size + 1, for: .fontSize)
        } catch {
            Issue.record("the throwing forms failed: \(error.code) \(error.message)")
        }
        #expect(prefs[.fontSize] == 13)

        let launches = Preferences.Key<Int>("LaunchCount", default: 0)
        try prefs.update(launches) { $0 += 1 }
        #expect(prefs[launches] == 1)
        #expect(diagnostics.codes.isEmpty)
    }

    @Test("Observing Changes: the sequence starts after its initial value; the callback runs until cancelled")
    func observingChanges() async throws {
        let diagnostics = Diagnostics()
        let storage = PreferencesStorage.inMemory(diagnostics: { diagnostics.append($0) })
        let prefs = try Preferences(domain: "com.example.Editor", storage: storage)
        let applied = Recorder<String>()
        let apply: @Sendable (String) -> Void = { theme in applied.append(theme) }

        let themes = prefs.changes(for: .theme)
        apply(themes.initialValue)
        let task = Task {
            for await theme in themes {
                apply(theme)
            }
        }
        prefs.set("dark", forKey: "Theme")
        try storage.setContents(["Theme": "blue"], ofDomain: "com.example.Editor", scope: .forced)
        prefs.set("green", forKey: "Theme")  // refused: forced, and shadowed anyway
        try storage.setContents([:], ofDomain: "com.example.Editor", scope: .forced)
        #expect(await eventually { applied.all == ["light", "dark", "blue", "dark"] })
        #expect(diagnostics.codes == [.readOnly])
        themes.cancel()
        await task.value

        let printed = Recorder<String>()
        let observation = prefs.observe(.theme) { theme in
            printed.append("theme is now \(theme)")
        }
        prefs.set("solarized", forKey: "Theme")
        observation.cancel()
        prefs.set("light", forKey: "Theme")
        #expect(printed.all == ["theme is now solarized"])
    }

    @Test("Running With and Without prefsd: a storage that chooses embedded mode writes the files itself")
    func runningWithAndWithoutPrefsd() throws {
        // The article's line; no instance is made on it, so that the test does not touch the user's own files.
        let files = PreferencesStorage.environment(daemon: .never)
        #expect(!files.isInMemory)
        let directory = try TemporaryDirectory()
        let storage = PreferencesStorage.directories(preferences: directory.file("prefs"))
        let prefs = try Preferences(domain: "com.example.Editor", storage: storage)
        prefs.set("dark", forKey: "Theme")
        #expect(prefs.synchronize())
        #expect(FileManager.default.fileExists(atPath: directory.file("prefs/com.example.Editor.plist")))
    }
}
