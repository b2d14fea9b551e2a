// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsPlist
import PrefsTestSupport
import Testing

/// `Preferences` keeps two keys that differ only in Unicode normalization apart, as `UserDefaults` on macOS does.
@Suite struct ExactKeyTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func bothKeysAreStoredReadAndWritten() throws {
        let fixture = try FacadeFixture()
        let preferences = try fixture.preferences()
        preferences.set(1, forKey: Self.composed)
        preferences.set(2, forKey: Self.decomposed)
        #expect(preferences.integer(forKey: Self.composed) == 1)
        #expect(preferences.integer(forKey: Self.decomposed) == 2)
        preferences.removeObject(forKey: Self.composed)
        #expect(preferences.object(forKey: Self.composed) == nil)
        #expect(preferences.integer(forKey: Self.decomposed) == 2)
        preferences.set(3, forKey: Self.composed)
        #expect(preferences.synchronize())
        let onDisk = try PlistSerialization.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: fixture.path("com.example.App", .user)))))
        #expect(onDisk == [Self.composed: 3, Self.decomposed: 2])
    }

    @Test func aStringChangedOnlyInNormalizationIsStored() throws {
        let fixture = try FacadeFixture()
        let preferences = try fixture.preferences()
        preferences.set(Self.composed, forKey: "name")
        #expect(preferences.synchronize())
        preferences.set(Self.decomposed, forKey: "name")
        #expect(preferences.synchronize())
        let onDisk = try PlistSerialization.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: fixture.path("com.example.App", .user)))))
        #expect(onDisk["name"]?.stringValue.map { Array($0.utf8) } == Array(Self.decomposed.utf8))
    }
}
