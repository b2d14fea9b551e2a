// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import Testing

extension Preferences.Key where Value == Int {
    static let fontSize = Preferences.Key("FontSize", default: 12)
}

/// A Codable model holding the Foundation types that must be stored natively.
struct Profile: Codable, Equatable, Sendable {
    enum Theme: String, Codable, Sendable { case light, dark }
    var name: String
    var born: Date
    var avatar: Data
    var homepage: URL
    var theme: Theme
    var tags: [String]
    var window: Window?

    struct Window: Codable, Equatable, Sendable {
        var width: Double
        var height: Double
    }
}

/// Typed keys: defaults, coercion, Codable values stored as native property lists, and the throwing forms.
@Suite struct TypedKeyTests {
    let profile = Profile(
        name: "Ada", born: Date(timeIntervalSinceReferenceDate: -4_000_000_000), avatar: Data([0xCA, 0xFE]),
        homepage: URL(string: "https://example.com/~ada/?lang=en#bio")!, theme: .dark, tags: ["math", "poetry"],
        window: Profile.Window(width: 640, height: 480.5))

    @Test func aKeyReadsItsDefaultUntilSetAndWritesItsType() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        #expect(prefs[.fontSize] == 12)
        prefs[.fontSize] += 2
        #expect(prefs[.fontSize] == 14)
        #expect(prefs.integer(forKey: "FontSize") == 14)
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App") == ["FontSize": 14])
        #expect(Preferences.Key<Int>.fontSize.description == "FontSize (Int, default 12)")
    }

    @Test func optionalKeysRemoveTheKeyWhenSetToNil() throws {
        let prefs = try Preferences.inMemory()
        let nickname = Preferences.Key<String?>("Nickname", default: nil)
        #expect(prefs[nickname] == nil)
        prefs[nickname] = "ada"
        #expect(prefs[nickname] == "ada")
        #expect(prefs.string(forKey: "Nickname") == "ada")
        prefs[nickname] = nil
        #expect(prefs.object(forKey: "Nickname") == nil)
    }

    @Test func arraysAndDictionariesOfValuesReadElementByElement() throws {
        let prefs = try Preferences.inMemory()
        let sizes = Preferences.Key<[Int]>("Sizes", default: [])
        let limits = Preferences.Key<[String: Double]>("Limits", default: [:])
        prefs[sizes] = [10, 12]
        prefs[limits] = ["cpu": 0.5]
        #expect(try prefs.value(forKey: "Sizes") == [10, 12])
        #expect(try prefs.value(forKey: "Limits") == ["cpu": 0.5])
        try prefs.setValue(["1", "2"], forKey: "Sizes")
        #expect(prefs[sizes] == [1, 2])
        try prefs.setValue(["1", "two"], forKey: "Sizes")
        #expect(prefs[sizes] == [])
    }

    @Test func aStoredValueOfAnotherTypeGivesTheDefaultOrATypeMismatch() throws {
        let prefs = try Preferences.inMemory(domain: "com.example.Typed")
        try prefs.setValue("large", forKey: "FontSize")
        #expect(prefs[.fontSize] == 12)
        #expect(throws: PreferencesError.self) { try prefs.value(for: .fontSize) }
        do {
            _ = try prefs.value(for: .fontSize)
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(
                error.message
                    == "key FontSize of domain com.example.Typed: the stored string large does not read as Int")
        }
        #expect(try prefs.value(for: Preferences.Key("Absent", default: 5)) == 5)
    }

    @Test func codableValuesAreStoredAsNativeDictionariesWithDatesDataAndURLs() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        let key = Preferences.Key(
            "Profile",
            default: Profile(
                name: "", born: Date(timeIntervalSinceReferenceDate: 0), avatar: Data(), homepage: URL(string: "a:b")!,
                theme: .light, tags: [], window: nil))
        prefs[key] = profile
        #expect(prefs[key] == profile)
        prefs.synchronize()

        let stored = try #require(try fixture.stored("com.example.App")?["Profile"])
        #expect(
            stored == [
                "name": "Ada", "born": .date(PlistDate(secondsSinceReferenceDate: -4_000_000_000)),
                "avatar": .data([0xCA, 0xFE]), "homepage": "https://example.com/~ada/?lang=en#bio", "theme": "dark",
                "tags": ["math", "poetry"], "window": ["width": 640.0, "height": 480.5],
            ])
        // A second storage on the same directory reads the file back into the same value.
        let reader = try Preferences(
            domain: "com.example.App", storage: .directories(preferences: fixture.preferencesDirectory))
        #expect(reader[key] == profile)
        #expect(try reader.decoded(Profile.self, forKey: "Profile") == profile)
    }

    @Test func datesInFilesKeepWholeSecondsAsXMLPropertyListsDo() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        prefs.set(Date(timeIntervalSinceReferenceDate: 100.75), forKey: "When")
        #expect(prefs.date(forKey: "When") == Date(timeIntervalSinceReferenceDate: 100.75))
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App") == ["When": .date(PlistDate(secondsSinceReferenceDate: 100))])
        let reader = try Preferences(
            domain: "com.example.App", storage: .directories(preferences: fixture.preferencesDirectory))
        #expect(reader.date(forKey: "When") == Date(timeIntervalSinceReferenceDate: 100))
    }

    @Test func codableRoundTripsThroughTheExplicitMethods() throws {
        let prefs = try Preferences.inMemory()
        try prefs.setEncoded(profile, forKey: "p")
        #expect(try prefs.decoded(Profile.self, forKey: "p") == profile)
        #expect(try prefs.decoded(Profile.self, forKey: "absent") == nil)
        #expect(prefs.dictionary(forKey: "p")?["homepage"] as? String == "https://example.com/~ada/?lang=en#bio")
        #expect(prefs.dictionary(forKey: "p")?["born"] as? Date == profile.born)
        try prefs.setValue(["name": 1], forKey: "p")
        do {
            _ = try prefs.decoded(Profile.self, forKey: "p")
            Issue.record("a dictionary without the model's keys decoded")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.message == "the dictionary under key p of domain com.example.App is not a Profile")
            #expect(error.cause != nil)
        }
    }

    @Test func valuesThatCannotBeStoredAreRefusedWithTheirPath() throws {
        let prefs = try Preferences.inMemory()
        let list = Preferences.Key<[String?]>("List", default: [])
        #expect(throws: PreferencesError.self) { try prefs.setValue(["a", nil], for: list) }
        do {
            try prefs.setValue(["a", nil], for: list)
        } catch {
            #expect(error.code == .invalidValue)
            #expect(
                error.message
                    == "cannot set key List of domain com.example.App: nil at [1] cannot be stored: property lists "
                    + "have no null")
        }
        #expect(prefs.object(forKey: "List") == nil)
    }

    @Test func dateDataAndURLAreRepresentableInPlists() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(date.plistValue == .date(PlistDate(secondsSince1970: 1_700_000_000)))
        #expect(Date(plistValue: .date(PlistDate(secondsSince1970: 1_700_000_000))) == date)
        #expect(Date(plistValue: "2023") == nil)
        #expect(Data([1, 2]).plistValue == .data([1, 2]))
        #expect(Data(plistValue: "x") == nil)
        let url = try #require(URL(string: "ftp://user@host:21/dir/file;type=i?x#y"))
        #expect(url.plistValue == "ftp://user@host:21/dir/file;type=i?x#y")
        #expect(URL(plistValue: url.plistValue) == url)
        #expect(URL(plistValue: "no scheme") == nil)
        // PlistEncoder finds the conformance inside arrays too.
        #expect(try PlistEncoder().encode([date]) == [.date(PlistDate(secondsSince1970: 1_700_000_000))])
    }
}
