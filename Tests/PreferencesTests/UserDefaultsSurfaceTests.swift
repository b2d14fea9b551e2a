// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// Every method of the `UserDefaults` surface, through files in a temp dir: what it returns, what it writes.
@Suite struct UserDefaultsSurfaceTests {
    @Test func setStoresEachTypeAndGettersReadItBack() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let url = try #require(URL(string: "https://example.com/a%20b/c?q=1&r=2#frag"))
        prefs.set(true, forKey: "bool")
        prefs.set(42, forKey: "int")
        prefs.set(2.5, forKey: "double")
        prefs.set(Float(1.25), forKey: "float")
        prefs.set("text", forKey: "string")
        prefs.set(url, forKey: "url")
        prefs.set(Data([0, 1, 254, 255]), forKey: "data")
        prefs.set(date, forKey: "date")
        prefs.set(["a", "b"], forKey: "strings")
        prefs.set([1, "two", 3.5] as [Any], forKey: "mixed")
        prefs.set(["k": "v", "n": 1] as [String: Any], forKey: "dict")
        prefs.set(UInt64.max, forKey: "big")
        prefs.set(Float(1.65), forKey: "float2")

        #expect(prefs.bool(forKey: "bool"))
        #expect(prefs.integer(forKey: "int") == 42)
        #expect(prefs.double(forKey: "double") == 2.5)
        #expect(prefs.float(forKey: "float") == 1.25)
        #expect(prefs.float(forKey: "float2") == Float(1.65))
        #expect(prefs.string(forKey: "string") == "text")
        #expect(prefs.url(forKey: "url") == url)
        #expect(prefs.url(forKey: "url")?.absoluteString == "https://example.com/a%20b/c?q=1&r=2#frag")
        #expect(prefs.data(forKey: "data") == Data([0, 1, 254, 255]))
        #expect(prefs.object(forKey: "date") as? Date == date)
        #expect(prefs.stringArray(forKey: "strings") == ["a", "b"])
        #expect(prefs.array(forKey: "strings") as? [String] == ["a", "b"])
        let mixed = try #require(prefs.array(forKey: "mixed"))
        #expect(mixed[0] as? Int == 1 && mixed[1] as? String == "two" && mixed[2] as? Double == 3.5)
        #expect(prefs.stringArray(forKey: "mixed") == nil)
        let dictionary = try #require(prefs.dictionary(forKey: "dict"))
        #expect(dictionary["k"] as? String == "v" && dictionary["n"] as? Int == 1)
        #expect(prefs.object(forKey: "big") as? UInt64 == UInt64.max)
        #expect(prefs.object(forKey: "int") as? Int == 42)
        #expect(prefs.object(forKey: "missing") == nil)

        // On disk, after synchronize, with native types.
        #expect(prefs.synchronize())
        let stored = try #require(try fixture.stored("com.example.App"))
        #expect(stored["bool"] == .bool(true))
        #expect(stored["int"] == 42)
        #expect(stored["double"] == 2.5)
        #expect(stored["float"] == 1.25)
        #expect(stored["float2"] == 1.65)  // as written, not 1.649999976158142
        #expect(stored["url"] == "https://example.com/a%20b/c?q=1&r=2#frag")
        #expect(stored["data"] == .data([0, 1, 254, 255]))
        #expect(stored["date"] == .date(PlistDate(secondsSinceReferenceDate: 700_000_000)))
        #expect(stored["mixed"] == [1, "two", 3.5])
        #expect(stored["dict"] == ["k": "v", "n": 1])
        #expect(stored["big"] == .integer(PlistInteger(UInt64.max)))
        #expect(fixture.log.all.isEmpty)
    }

    @Test func gettersOfAbsentKeysReturnTheirZeroValues() throws {
        let prefs = try Preferences.inMemory()
        #expect(prefs.object(forKey: "k") == nil)
        #expect(prefs.string(forKey: "k") == nil)
        #expect(prefs.integer(forKey: "k") == 0)
        #expect(prefs.double(forKey: "k") == 0)
        #expect(prefs.float(forKey: "k") == 0)
        #expect(prefs.bool(forKey: "k") == false)
        #expect(prefs.url(forKey: "k") == nil)
        #expect(prefs.data(forKey: "k") == nil)
        #expect(prefs.array(forKey: "k") == nil)
        #expect(prefs.dictionary(forKey: "k") == nil)
        #expect(prefs.stringArray(forKey: "k") == nil)
    }

    @Test func removeObjectAndSettingNilRemoveTheKeyAndItsFileWhenEmpty() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        prefs.set("a", forKey: "one")
        prefs.set("b", forKey: "two")
        prefs.synchronize()
        prefs.removeObject(forKey: "one")
        prefs.set(nil, forKey: "two")
        #expect(prefs.object(forKey: "one") == nil)
        #expect(prefs.object(forKey: "two") == nil)
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App") == nil)
    }

    @Test func nonPropertyListValuesAreReportedAndChangeNothing() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        prefs.set("kept", forKey: "k")
        struct NotAPlist {}
        prefs.set(NotAPlist(), forKey: "k")
        prefs.set(["fine", NotAPlist()] as [Any], forKey: "k")
        prefs.set([1: "int keys"], forKey: "k")
        #expect(prefs.string(forKey: "k") == "kept")
        #expect(
            fixture.log.messages == [
                "cannot set key k of domain com.example.App: value of type NotAPlist at k is not a property-list value",
                "cannot set key k of domain com.example.App: value of type NotAPlist at k[1] is not a property-list "
                    + "value",
                "cannot set key k of domain com.example.App: value of type Dictionary<Int, String> at k is not a "
                    + "property-list value",
            ])
        #expect(fixture.log.all.allSatisfy { $0.code == .invalidValue })
    }

    @Test func foundationPropertyListObjectsAreStoredAsUserDefaultsStoresThem() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        let url = try #require(NSURL(string: "https://example.com/a%20b?q=1#top"))
        let objects: [(key: String, object: Any, stored: PlistValue)] = [
            ("true", NSNumber(value: true), true),
            ("false", NSNumber(value: false), false),
            ("literal", true as NSNumber, true),
            ("one", NSNumber(value: 1), 1),
            ("zero", NSNumber(value: 0), 0),
            ("byte", NSNumber(value: Int8(-3)), -3),
            ("big", NSNumber(value: UInt64.max), .integer(PlistInteger(UInt64.max))),
            ("real", NSNumber(value: 1.0), .real(1.0)),
            ("fraction", NSNumber(value: 0.1), .real(0.1)),
            ("float", NSNumber(value: Float(0.1)), .real(0.1)),
            ("decimal", NSDecimalNumber(string: "2.5"), .real(2.5)),
            ("string", NSString(string: "text"), "text"),
            ("mutable", NSMutableString(string: "more"), "more"),
            ("data", NSData(bytes: [1, 2] as [UInt8], length: 2), .data([1, 2])),
            ("date", NSDate(timeIntervalSinceReferenceDate: 7), .date(PlistDate(secondsSinceReferenceDate: 7))),
            ("url", url, "https://example.com/a%20b?q=1#top"),
            (
                "array", NSArray(array: [NSNumber(value: true), NSNumber(value: 2), NSString(string: "s")]),
                [true, 2, "s"]
            ),
            (
                "dictionary", NSDictionary(dictionary: ["n": NSNumber(value: 2.5), "b": NSNumber(value: false)]),
                ["n": 2.5, "b": false]
            ),
        ]
        for (key, object, _) in objects { prefs.set(object, forKey: key) }
        prefs.set(NSObject(), forKey: "refused")
        prefs.set(NSArray(array: [NSNumber(value: 1), NSObject()]), forKey: "refused")
        prefs.synchronize()

        let stored = try #require(try fixture.stored("com.example.App"))
        for (key, _, expected) in objects { #expect(stored[key] == expected, "\(key)") }
        #expect(stored["refused"] == nil)
        #expect(prefs.bool(forKey: "true") && prefs.integer(forKey: "one") == 1 && prefs.double(forKey: "real") == 1)
        #expect(prefs.url(forKey: "url")?.absoluteString == url.absoluteString)
        #expect(
            fixture.log.messages == [
                "cannot set key refused of domain com.example.App: value of type NSObject at refused is not a "
                    + "property-list value",
                "cannot set key refused of domain com.example.App: value of type NSObject at refused[1] is not a "
                    + "property-list value",
            ])
    }

    @Test func registerDefaultsIsSearchedLastAndNeverWritten() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        prefs.register(defaults: ["Theme": "light", "Size": 12])
        #expect(prefs.string(forKey: "Theme") == "light")
        prefs.set("dark", forKey: "Theme")
        #expect(prefs.string(forKey: "Theme") == "dark")
        prefs.removeObject(forKey: "Theme")
        #expect(prefs.string(forKey: "Theme") == "light")
        // Shared by every instance of the storage, as UserDefaults shares its registration domain.
        let other = try fixture.preferences("com.example.Other")
        #expect(other.integer(forKey: "Size") == 12)
        #expect(prefs.volatileDomain(forName: Preferences.registrationDomain)["Size"] as? Int == 12)
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App") == nil)
        #expect(try fixture.stored("com.example.Other") == nil)
    }

    @Test func dictionaryRepresentationIsTheWholeEffectiveViewWithGlobalKeys() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["AppleLanguages": ["en"], "Shared": "global"], domain: "NSGlobalDomain", scope: .user)
        let prefs = try fixture.preferences()
        prefs.register(defaults: ["Registered": 1])
        prefs.set("app", forKey: "Shared")
        prefs.set(true, forKey: "Own")
        let all = prefs.dictionaryRepresentation()
        #expect(Set(all.keys) == ["AppleLanguages", "Shared", "Own", "Registered"])
        #expect(all["Shared"] as? String == "app")
        #expect(all["AppleLanguages"] as? [String] == ["en"])
    }

    @Test func persistentDomainsAreReadReplacedAndRemoved() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        #expect(prefs.persistentDomain(forName: "com.example.Missing") == nil)
        try fixture.install(["a": 1], domain: "com.example.Tool", scope: .user)
        #expect(prefs.persistentDomain(forName: "com.example.Tool")?["a"] as? Int == 1)

        prefs.setPersistentDomain(["b": "two", "c": [1, 2]], forName: "com.example.Tool")
        let replaced = try #require(prefs.persistentDomain(forName: "com.example.Tool"))
        #expect(Set(replaced.keys) == ["b", "c"])
        prefs.synchronize()
        #expect(try fixture.stored("com.example.Tool") == ["b": "two", "c": [1, 2]])

        prefs.removePersistentDomain(forName: "com.example.Tool")
        #expect(prefs.persistentDomain(forName: "com.example.Tool") == nil)
        prefs.synchronize()
        #expect(try fixture.stored("com.example.Tool") == nil)

        prefs.setPersistentDomain(["x": 1], forName: "../escape")
        #expect(fixture.log.all.map(\.code) == [.invalidName])
        #expect(fixture.log.messages[0].contains("invalid domain name \"../escape\""))
    }

    @Test func volatileDomainsAreKeptButNotSearched() throws {
        let prefs = try Preferences.inMemory()
        prefs.setVolatileDomain(["Scratch": 1], forName: "com.example.Volatile")
        #expect(prefs.volatileDomain(forName: "com.example.Volatile")["Scratch"] as? Int == 1)
        #expect(prefs.object(forKey: "Scratch") == nil)
        #expect(prefs.volatileDomainNames == ["NSArgumentDomain", "NSRegistrationDomain", "com.example.Volatile"])
        prefs.removeVolatileDomain(forName: "com.example.Volatile")
        #expect(prefs.volatileDomain(forName: "com.example.Volatile").isEmpty)

        // The two named volatile domains are the argument and registration layers, which are searched.
        prefs.setVolatileDomain(["FromArguments": "yes"], forName: Preferences.argumentDomain)
        #expect(prefs.bool(forKey: "FromArguments"))
        prefs.removeVolatileDomain(forName: Preferences.argumentDomain)
        #expect(prefs.object(forKey: "FromArguments") == nil)
        prefs.setVolatileDomain(["Registered": 3], forName: Preferences.registrationDomain)
        #expect(prefs.integer(forKey: "Registered") == 3)
    }

    @Test func removingTheRegistrationDomainIsRefusedAndReported() throws {
        let log = ErrorLog()
        let prefs = try Preferences(
            domain: "com.example.App", storage: .inMemory(diagnostics: { [log] in log.append($0) }))
        prefs.register(defaults: ["k": 1])
        prefs.removeVolatileDomain(forName: Preferences.registrationDomain)
        #expect(prefs.integer(forKey: "k") == 1)
        #expect(log.all.map(\.code) == [.readOnly])
    }

    @Test func suitesAreSearchedAfterTheAppInTheOrderAdded() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["k": "first", "only1": 1], domain: "com.example.suite1", scope: .user)
        try fixture.install(["k": "second", "only2": 2], domain: "com.example.suite2", scope: .user)
        let prefs = try fixture.preferences()
        #expect(prefs.object(forKey: "only1") == nil)
        prefs.addSuite(named: "com.example.suite2")
        prefs.addSuite(named: "com.example.suite1")
        #expect(prefs.suites == ["com.example.suite2", "com.example.suite1"])
        #expect(prefs.string(forKey: "k") == "second")
        #expect(prefs.integer(forKey: "only1") == 1)
        prefs.removeSuite(named: "com.example.suite2")
        #expect(prefs.string(forKey: "k") == "first")
        #expect(prefs.object(forKey: "only2") == nil)
        // Adding twice, the app itself or the global domain changes nothing; a bad name is reported.
        prefs.addSuite(named: "com.example.suite1")
        prefs.addSuite(named: "com.example.App")
        prefs.addSuite(named: "NSGlobalDomain")
        prefs.addSuite(named: "bad/name")
        #expect(prefs.suites == ["com.example.suite1"])
        #expect(fixture.log.all.map(\.code) == [.invalidName])
        // Writes still go to the app's own domain.
        prefs.set("mine", forKey: "k")
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App")?["k"] == "mine")
        #expect(try fixture.stored("com.example.suite1")?["k"] == "first")
    }

    @Test func suiteNameInstancesWriteTheSuiteAndRefuseNonSuites() throws {
        let fixture = try FacadeFixture()
        let suite = try #require(Preferences(suiteName: "group.example.shared", storage: fixture.storage))
        #expect(suite.domain == "group.example.shared")
        suite.set(7, forKey: "Shared")
        suite.synchronize()
        #expect(try fixture.stored("group.example.shared") == ["Shared": 7])
        #expect(Preferences(suiteName: "NSGlobalDomain", storage: fixture.storage) == nil)
        #expect(Preferences(suiteName: Preferences.applicationDomain, storage: fixture.storage) == nil)
        #expect(Preferences(suiteName: "not a name", storage: fixture.storage) == nil)
        #expect(Preferences(suiteName: nil, storage: fixture.storage)?.domain == Preferences.applicationDomain)
    }

    @Test func objectIsForcedReportsAdministratorValues() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["Locked": true], domain: "com.example.App", scope: .forced)
        try fixture.install(["GlobalLock": 1], domain: "NSGlobalDomain", scope: .forced)
        let prefs = try fixture.preferences()
        #expect(prefs.objectIsForced(forKey: "Locked"))
        #expect(prefs.objectIsForced(forKey: "GlobalLock"))
        #expect(!prefs.objectIsForced(forKey: "Free"))
        #expect(prefs.objectIsForced(forKey: "Locked", inDomain: "com.example.App"))
        #expect(!prefs.objectIsForced(forKey: "Locked", inDomain: "com.example.Other"))
        #expect(prefs.objectIsForced(forKey: "GlobalLock", inDomain: "com.example.Other"))
        #expect(!prefs.objectIsForced(forKey: "Locked", inDomain: "../bad"))
    }

    @Test func writingAForcedKeyIsRefusedAndReported() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["Locked": "admin"], domain: "com.example.App", scope: .forced)
        let prefs = try fixture.preferences()
        prefs.set("user", forKey: "Locked")
        prefs.removeObject(forKey: "Locked")
        #expect(prefs.string(forKey: "Locked") == "admin")
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App") == nil)
        let forcedPath = fixture.path("com.example.App", .forced)
        #expect(
            fixture.log.messages == [
                "key Locked of domain com.example.App is forced by the administrator in \(forcedPath); the write was "
                    + "refused",
                "key Locked of domain com.example.App is forced by the administrator in \(forcedPath); the write was "
                    + "refused",
            ])
    }

    @Test func synchronizeWritesAtOnceAndReadsOtherWritersIn() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        prefs.set(1, forKey: "n")
        #expect(try fixture.stored("com.example.App") == nil)  // the flush delay (60 s here) has not passed
        #expect(prefs.synchronize())
        #expect(try fixture.stored("com.example.App") == ["n": 1])
        // Another program replaces the file; synchronize reads it in even without the watcher's help.
        try fixture.install(["n": 2, "added": "x"], domain: "com.example.App", scope: .user)
        #expect(prefs.synchronize())
        #expect(prefs.integer(forKey: "n") == 2)
        #expect(prefs.string(forKey: "added") == "x")
    }

    @Test func synchronizeReturnsFalseAndReportsWhenTheDirectoryCannotBeCreated() throws {
        let directory = try FacadeFixture()
        let blocker = directory.directory.file("file")
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        let log = ErrorLog()
        let storage = PreferencesStorage.directories(
            preferences: blocker + "/prefs", machineID: FacadeFixture.machineID,
            diagnostics: { [log] in log.append($0) })
        let prefs = try Preferences(domain: "com.example.App", storage: storage)
        prefs.set(1, forKey: "n")
        #expect(prefs.integer(forKey: "n") == 1)
        #expect(!prefs.synchronize())
        #expect(log.all.first?.code == .storeUnavailable)
        #expect(log.messages.first?.hasPrefix("cannot lock domain com.example.App for writing") == true)
    }
}
