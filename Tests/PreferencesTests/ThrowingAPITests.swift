// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// The throwing API: an absent key is `nil`, a store that cannot answer is an error, a refused write throws.
@Suite struct ThrowingAPITests {
    @Test func anAbsentKeyIsNilNotAnError() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        #expect(try prefs.value(forKey: "Absent") == nil)
        prefs.set("here", forKey: "Present")
        #expect(try prefs.value(forKey: "Present") == "here")
    }

    @Test func anUnreadableDomainFileMakesTheStoreUnavailableForKeysItCouldHold() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["Low": "global"], domain: "NSGlobalDomain", scope: .user)
        try fixture.install(["High": "forced"], domain: "com.example.App", scope: .forced)
        // A directory where the app's file should be: it cannot be read as a file.
        try FileManager.default.createDirectory(
            atPath: fixture.path("com.example.App", .user), withIntermediateDirectories: true)
        let prefs = try fixture.preferences()

        // The answer comes from above the broken layer: it holds.
        #expect(try prefs.value(forKey: "High") == "forced")
        // Below it, or absent: the broken layer might have held the key, so the store cannot answer.
        for key in ["Low", "Absent"] {
            do {
                _ = try prefs.value(forKey: key)
                Issue.record("\(key) was answered")
            } catch {
                #expect(error.code == .storeUnavailable)
                #expect(error.path == fixture.path("com.example.App", .user))
                #expect(
                    error.message
                        == "cannot tell the value of key \(key) in com.example.App + global: cannot read "
                        + "\(fixture.path("com.example.App", .user)), the file of domain com.example.App")
            }
        }
        // The UserDefaults-style getters search the broken layer as empty.
        #expect(prefs.string(forKey: "Low") == "global")
        #expect(prefs.object(forKey: "Absent") == nil)
    }

    @Test func aCorruptFileIsReportedAsCorruptAndNeverOverwritten() throws {
        let fixture = try FacadeFixture()
        try FileManager.default.createDirectory(atPath: fixture.preferencesDirectory, withIntermediateDirectories: true)
        let path = fixture.path("com.example.App", .user)
        try Data("<plist><dict><key>a</key>".utf8).write(to: URL(fileURLWithPath: path))
        let prefs = try fixture.preferences()
        do {
            _ = try prefs.value(forKey: "a")
            Issue.record("a corrupt file was read")
        } catch {
            #expect(error.code == .corrupt)
            #expect(error.path == path)
        }
        #expect(prefs.persistentDomain(forName: "com.example.App") == nil)
        #expect(fixture.log.all.contains { $0.code == .corrupt && $0.path == path })
        // The first write sets the broken file aside rather than overwriting it.
        try prefs.setValue("new", forKey: "a")
        try prefs.synchronizeThrowing()
        let entries = try FileManager.default.contentsOfDirectory(atPath: fixture.preferencesDirectory)
        #expect(entries.contains { $0.hasPrefix("com.example.App.plist.corrupt-") })
        #expect(try fixture.stored("com.example.App") == ["a": "new"])
        #expect(try prefs.value(forKey: "a") == "new")
    }

    @Test func writingAForcedKeyThrowsReadOnlyNamingTheFile() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["Locked": 1], domain: "NSGlobalDomain", scope: .forced)
        let prefs = try fixture.preferences()
        let forced = fixture.path("NSGlobalDomain", .forced)
        do {
            try prefs.setValue(2, forKey: "Locked")
            Issue.record("a forced key was written")
        } catch {
            #expect(error.code == .readOnly)
            #expect(error.path == forced)
            #expect(
                error.message
                    == "key Locked of domain com.example.App is forced by the administrator in \(forced); the write "
                    + "was refused")
        }
        #expect(throws: PreferencesError.self) { try prefs.setValue(nil, forKey: "Locked") }
        #expect(prefs.integer(forKey: "Locked") == 1)
        #expect(fixture.log.all.isEmpty)
    }

    @Test func aKeyForcedAfterTheInstanceWasMadeIsRefusedTooAndFreedAgainWhenUnforced() throws {
        let fixture = try FacadeFixture()
        // The store watches the administrator's directories that exist when it starts.
        try FileManager.default.createDirectory(
            atPath: fixture.systemDirectory + "/forced", withIntermediateDirectories: true)
        let prefs = try fixture.preferences()
        try prefs.setValue("mine", forKey: "Locked")
        try fixture.install(["Locked": "admin"], domain: "com.example.App", scope: .forced)
        // The watcher brings the administrator's file in within milliseconds.
        #expect(
            eventually {
                do throws(PreferencesError) {
                    try prefs.setValue("mine", forKey: "Locked")
                    return false
                } catch {
                    return error.code == .readOnly
                }
            })
        #expect(prefs.string(forKey: "Locked") == "admin")
        try FileManager.default.removeItem(atPath: fixture.path("com.example.App", .forced))
        #expect(eventually { (try? prefs.setValue("free", forKey: "Locked")) != nil })
        #expect(prefs.string(forKey: "Locked") == "free")
    }

    @Test func limitsAreReportedWithTheLimitsName() throws {
        let prefs = try Preferences.inMemory()
        let longKey = String(repeating: "k", count: 2000)
        do {
            try prefs.setValue(1, forKey: longKey)
            Issue.record("a 2000-byte key was accepted")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.hasSuffix("exceeds the key length limit (maxKeyBytes = 1024)"))
        }
        var deep: PlistValue = 1
        for _ in 0..<70 { deep = [deep] }
        do {
            try prefs.setValue(deep, forKey: "deep")
            Issue.record("a value nested 70 deep was accepted")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.hasSuffix("beyond the depth limit (maxDepth = 64)"))
        }
        let big = PlistValue.data(Array(repeating: 7, count: 5 << 20))
        #expect(throws: PreferencesError.self) { try prefs.setValue(big, forKey: "big") }
        #expect(prefs.object(forKey: "big") == nil)
    }

    @Test func synchronizeThrowingNamesWhatCouldNotBeWritten() throws {
        let fixture = try FacadeFixture()
        let blocker = fixture.directory.file("plain-file")
        try Data().write(to: URL(fileURLWithPath: blocker))
        let prefs = try Preferences(
            domain: "com.example.App",
            storage: .directories(preferences: blocker + "/prefs", diagnostics: { _ in }))
        try prefs.setValue(1, forKey: "n")
        do {
            try prefs.synchronizeThrowing()
            Issue.record("a write under a plain file succeeded")
        } catch {
            #expect(error.code == .storeUnavailable)
            #expect(error.description.contains("Not a directory"))
        }
        // A failed synchronize withdraws the change: nothing of it is seen or written later (docs/STORE.md).
        #expect(prefs.object(forKey: "n") == nil)
    }

    @Test func invalidDomainNamesAreRefusedWithTheRuleTheyBreak() throws {
        for name in ["", "../etc", "a/b", ".hidden", String(repeating: "x", count: 256)] {
            do {
                _ = try Preferences(domain: name, storage: .inMemory())
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.code == .invalidName)
                #expect(error.message.hasPrefix("invalid domain name"))
            }
        }
    }
}
