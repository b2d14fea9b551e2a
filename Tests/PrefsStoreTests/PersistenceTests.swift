// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPOSIX
import PrefsPlist
import PrefsTestSupport
import Synchronization
import Testing

@testable import PrefsStore

@Suite struct PersistenceTests {
    let app = user("com.example.App")

    @Test func synchronizeWritesDurablyWithPrivatePermissions() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set("hello", forKey: "greeting", in: app)
        try store.set(.integer(42), forKey: "answer", in: app)
        #expect(!fileExists(try fixture.path(app)), "nothing is written before the flush delay")
        try store.synchronize()
        let path = try fixture.path(app)
        #expect(try readDictionary(path) == ["greeting": "hello", "answer": 42])
        #expect(try readBytes(path).starts(with: Array("<?xml".utf8)), "domain files are XML for hand edits")
        #expect(permissions(path) == 0o600)
        #expect(permissions(fixture.paths.preferencesDirectory) == 0o700)
        #expect(permissions(fixture.paths.preferencesDirectory + "/.locks") == 0o700)
        #expect(permissions(fixture.paths.preferencesDirectory + "/.locks/com.example.App.lock") == 0o600)
        #expect(directoryEntries(fixture.paths.preferencesDirectory) == [".locks", "com.example.App.plist"])
    }

    @Test func changesReachDiskWithinTheFlushDelayAndCoalesce() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(flushDelay: .milliseconds(300))
        let path = try fixture.path(app)
        let start = ContinuousClock.now
        for index in 0..<100 { try store.set(.integer(PlistInteger(Int64(index))), forKey: "k\(index)", in: app) }
        let setting = ContinuousClock.now - start
        // Written by the worker without a synchronize; how soon depends on the machine's load, not on the store.
        #expect(eventually(timeout: .seconds(10)) { ((try? readDictionary(path))?.count ?? 0) == 100 })
        let elapsed = ContinuousClock.now - start
        // The deadline is the first set's time plus the delay, and `start` is earlier still.
        #expect(elapsed >= .milliseconds(300), "written after the delay, not at once: \(elapsed)")
        #expect(eventually { store.writeCount >= 1 })
        // One window, one write: when the 100 sets took less than the delay (a loaded machine can stall them longer),
        // they all fell in the first window.
        if setting < .milliseconds(300) {
            #expect(store.writeCount == 1, "100 sets in one delay window cost one write")
        }
    }

    @Test func aReleasedStoreWritesWhatIsPending() throws {
        let fixture = try StoreFixture()
        do {
            let store = fixture.makeStore()
            try store.set("kept", forKey: "key", in: app)
        }
        // The set woke the store's worker thread, which holds the store while it runs: when the test's reference goes
        // first, the worker's is the last, and the release (and its write) happens on that thread when it lets go.
        let path = try fixture.path(app)
        #expect(eventually(timeout: .seconds(10)) { (try? readDictionary(path)) == ["key": "kept"] })
    }

    @Test func writesMergeWithWhatOtherWritersPutOnDisk() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(watchesFiles: false)
        try store.set("mine", forKey: "mine", in: app)
        try store.synchronize()
        // Another writer adds a key; this store has not seen it (no watching) and sets its own.
        try fixture.install(["mine": "mine", "theirs": "theirs"], as: app)
        try store.set("mine 2", forKey: "mine", in: app)
        try store.synchronize()
        #expect(try readDictionary(try fixture.path(app)) == ["mine": "mine 2", "theirs": "theirs"])
        #expect(store.value(forKey: "theirs", in: app) == "theirs")
    }

    @Test func replacingAndRemovingADomain() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.setMany(["a": 1, "b": 2], in: app)
        try store.synchronize()
        try store.setPersistentDomain(["c": 3], for: app)
        #expect(try store.persistentDomain(app) == ["c": 3])
        try store.synchronize()
        #expect(try readDictionary(try fixture.path(app)) == ["c": 3])
        try store.removePersistentDomain(app)
        #expect(try store.persistentDomain(app) == nil)
        try store.synchronize()
        #expect(!fileExists(try fixture.path(app)))
        #expect(try store.persistentDomain(app) == nil)
        #expect(try store.persistentDomain(user("com.example.Never")) == nil)
    }

    @Test func aCorruptFileIsSkippedReportedAndSetAsideOnTheFirstWrite() throws {
        let fixture = try StoreFixture()
        let path = try fixture.path(app)
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        let garbage = Array("<?xml version=\"1.0\"?>\n<plist><dict><key>a</key><string>x</dict>".utf8)
        try writeFile(path, garbage)
        backdate(path)
        let store = fixture.makeStore()

        #expect(store.value(forKey: "a", in: app) == nil)
        let issue = try #require(store.domainIssue(app))
        #expect(issue.code == .corruptFile)
        #expect(issue.path == path)
        #expect((issue.cause as? PlistError)?.position != nil, "the parse error says where: \(issue)")
        #expect(throws: PrefsStoreError.self) { try store.persistentDomain(app) }
        #expect(fixture.diagnostics.withLock { $0.contains { $0.error.code == .corruptFile && $0.error.path == path } })
        #expect(try readBytes(path) == garbage, "reading never touches the file")

        try store.set("new", forKey: "b", in: app)
        try store.synchronize()
        let entries = directoryEntries(fixture.paths.preferencesDirectory)
        let aside = try #require(entries.first { $0.hasPrefix("com.example.App.plist.corrupt-") })
        #expect(
            aside.range(of: #"^com\.example\.App\.plist\.corrupt-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil)
        #expect(try readBytes(fixture.paths.preferencesDirectory + "/" + aside) == garbage)
        #expect(try readDictionary(path) == ["b": "new"])
        #expect(store.domainIssue(app) == nil)
        #expect(fixture.diagnostics.withLock { $0.contains { $0.error.message.contains("renamed to \(aside)") } })
    }

    @Test func aSecondCorruptionInTheSameSecondGetsItsOwnName() throws {
        let fixture = try StoreFixture()
        let location = try fixture.paths.location(of: app)
        try FileSystem.makeDirectories(location.directory)
        var names: [String] = []
        for attempt in 0..<3 {
            try writeFile(location.path, Array("broken \(attempt) (".utf8))
            names.append(try DomainFile.setAside(location))
        }
        #expect(Set(names).count == 3)
        for (attempt, name) in names.enumerated() {
            #expect(try readBytes(location.directory + "/" + name) == Array("broken \(attempt) (".utf8))
        }
    }

    @Test func anEmptyFileIsAnEmptyDomain() throws {
        let fixture = try StoreFixture()
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        try writeFile(try fixture.path(app), [])
        let store = fixture.makeStore()
        #expect(store.domainIssue(app) == nil)
        #expect(try store.persistentDomain(app) == [:])
    }

    @Test func readOnlyLayersRefuseWritesNamingTheFile() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        for scope in [DomainScope.system, .forced, .shipped] {
            let domain = DomainID(app.name, scope: scope)
            for write in [
                { try store.set("x", forKey: "k", in: domain) },
                { try store.setMany(["k": "x"], in: domain) },
                { try store.removePersistentDomain(domain) },
            ] as [() throws -> Void] {
                let error = #expect(throws: PrefsStoreError.self) { try write() }
                #expect(error?.code == .readOnlyDomain)
                #expect(error?.message.contains(try fixture.path(domain)) == true, "\(error?.message ?? "")")
            }
        }
    }

    @Test func byHostDomainsNeedAMachineID() throws {
        let fixture = try StoreFixture()
        let paths = StorePaths(
            preferencesDirectory: fixture.paths.preferencesDirectory, systemDirectory: nil, shippedDirectory: nil,
            machineID: nil)
        let store = PreferencesStore(paths: paths, configuration: StoreConfiguration(flushesAtExit: false))
        let error = #expect(throws: PrefsStoreError.self) {
            try store.set("x", forKey: "k", in: DomainID(app.name, scope: .byHost))
        }
        #expect(error?.code == .unavailable)
        #expect(store.value(forKey: "k", in: DomainID(app.name, scope: .byHost)) == nil)
    }

    @Test func byHostAndGlobalFilesUseTheirNames() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set("host", forKey: "k", in: DomainID(app.name, scope: .byHost))
        try store.set("global", forKey: "k", in: .global)
        try store.synchronize()
        let byHost = fixture.paths.byHostDirectory + "/com.example.App.\(StoreFixture.machineID).plist"
        #expect(try readDictionary(byHost) == ["k": "host"])
        #expect(try readDictionary(fixture.paths.preferencesDirectory + "/.GlobalPreferences.plist") == ["k": "global"])
        #expect(permissions(fixture.paths.byHostDirectory) == 0o700)
        #expect(try store.domainNames(scope: .user) == [.global])
        #expect(try store.domainNames(scope: .byHost) == [app.name])
    }

    @Test func limitsAreEnforcedWithErrorsNamingThem() throws {
        let fixture = try StoreFixture()
        let limits = StoreLimits(maxKeyBytes: 8, maxDomainBytes: 2000, maxDepth: 2)
        let store = fixture.makeStore(limits: limits)
        let longKey = #expect(throws: PrefsStoreError.self) { try store.set(1, forKey: "123456789", in: app) }
        #expect(longKey?.code == .limitExceeded)
        #expect(longKey?.message.contains("maxKeyBytes = 8") == true)

        let deep = #expect(throws: PrefsStoreError.self) { try store.set([[[1]]], forKey: "deep", in: app) }
        #expect(deep?.message.contains("maxDepth = 2") == true)
        try store.set([[1]], forKey: "ok", in: app)

        let big = PlistValue.string(String(repeating: "x", count: 3000))
        let size = #expect(throws: PrefsStoreError.self) { try store.set(big, forKey: "big", in: app) }
        #expect(size?.message.contains("maxDomainBytes = 2000") == true)
        let batch = #expect(throws: PrefsStoreError.self) {
            try store.setMany(["fine": 1, "big": big], in: app)
        }
        #expect(batch?.code == .limitExceeded)
        #expect(store.value(forKey: "fine", in: app) == nil, "a refused batch changes nothing")
        #expect(throws: PrefsStoreError.self) { try store.setPersistentDomain(["big": big], for: app) }
        #expect(try store.persistentDomain(app) == ["ok": [[1]]])
    }

    @Test func aFileBeyondTheSizeLimitIsReportedAndNeverReplaced() throws {
        let fixture = try StoreFixture()
        try fixture.install(["big": .string(String(repeating: "x", count: 5000))], as: app)
        let original = try readBytes(try fixture.path(app))
        let store = fixture.makeStore(limits: StoreLimits(maxKeyBytes: 64, maxDomainBytes: 4000, maxDepth: 8))
        #expect(store.domainIssue(app)?.code == .limitExceeded)
        try store.set("x", forKey: "small", in: app)
        let error = #expect(throws: PrefsStoreError.self) { try store.synchronize() }
        #expect(error?.message.contains("maxDomainBytes = 4000") == true)
        #expect(try readBytes(try fixture.path(app)) == original)
        #expect(store.writeError(app) != nil)
        #expect(store.value(forKey: "small", in: app) == "x", "the change stays pending")
    }

    @Test func valuesXMLCannotHoldAreWrittenAsBinary() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set("bell \u{7}", forKey: "control", in: app)
        try store.synchronize()
        let path = try fixture.path(app)
        #expect(try readBytes(path).starts(with: Array("bplist00".utf8)))
        #expect(try readDictionary(path) == ["control": "bell \u{7}"])
        let reader = fixture.makeStore()
        #expect(reader.value(forKey: "control", in: app) == "bell \u{7}")
    }

    @Test func symbolicLinksOutOfTheHomeDirectoryAreNotFollowed() throws {
        let fixture = try StoreFixture()
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        let elsewhere = try TemporaryDirectory(prefix: "prefs-elsewhere")
        let outside = elsewhere.file("outside.plist")
        try writeFile(outside, try PlistSerialization.encode(["secret": "outside"], format: .xml))
        let original = try readBytes(outside)
        #expect(symlink(outside, try fixture.path(app)) == 0)
        let store = fixture.makeStore()
        #expect(store.value(forKey: "secret", in: app) == nil)
        #expect(store.domainIssue(app)?.description.contains("symbolic link") == true)
        try store.set("x", forKey: "k", in: app)
        #expect(throws: PrefsStoreError.self) { try store.synchronize() }
        #expect(try readBytes(outside) == original)
    }

    @Test func staleTempFilesOfDeadWritersAreRemovedUnderTheLock() throws {
        let fixture = try StoreFixture()
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        let directory = fixture.paths.preferencesDirectory
        // pid_max is at most 2^22, so this pid cannot exist.
        let stale = directory + "/.com.example.App.plist.tmp-9999999-deadbeef"
        let otherDomain = directory + "/.com.example.Other.plist.tmp-9999999-deadbeef"
        try writeFile(stale, Array("half a file".utf8))
        try writeFile(otherDomain, Array("half a file".utf8))
        let store = fixture.makeStore()
        try store.set(1, forKey: "k", in: app)
        try store.synchronize()
        #expect(!fileExists(stale))
        #expect(fileExists(otherDomain), "only the locked domain's temp files are touched")
    }

    @Test("the longest name is written in both scopes; its stale temp files are removed, a corrupt file set aside")
    func longestNameIsWritable() throws {
        let fixture = try StoreFixture()
        let longest = name(String(repeating: "l", count: DomainName.maxLength))
        let plain = DomainID(longest)
        let byHost = DomainID(longest, scope: .byHost)
        #expect(try fixture.path(byHost).split(separator: "/").last?.utf8.count == 255)
        try FileSystem.makeDirectories(fixture.paths.byHostDirectory)
        // A dead writer's temp file, named as the writer names it.
        let byHostFile = String(try fixture.path(byHost).split(separator: "/").last ?? "")
        let stale = fixture.paths.byHostDirectory + "/" + TemporaryFileName.make(for: byHostFile, processID: 9_999_999)
        try writeFile(stale, Array("half a file".utf8))
        // A corrupt file in place of the by-host domain's.
        try writeFile(try fixture.path(byHost), Array("<plist><dict>".utf8))

        let store = fixture.makeStore()
        try store.set("plain", forKey: "k", in: plain)
        try store.set("by host", forKey: "k", in: byHost)
        try store.synchronize()
        #expect(!fileExists(stale))
        let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.paths.byHostDirectory)
            .filter { $0.contains(".corrupt-") }
        #expect(aside.count == 1)
        #expect(aside.allSatisfy { $0.utf8.count <= 255 })

        let reopened = fixture.makeStore()
        #expect(reopened.value(forKey: "k", in: plain) == "plain")
        #expect(reopened.value(forKey: "k", in: byHost) == "by host")
        #expect(try reopened.domainNames(scope: .byHost) == [longest])
        #expect(throws: PrefsStoreError.self) {
            try DomainName(String(repeating: "l", count: DomainName.maxLength + 1))
        }
    }

    @Test func unwrittenChangesAreListedAndReadBack() throws {
        let fixture = try StoreFixture()
        try fixture.install(["a": 1], as: user("com.example.OnDisk"))
        let store = fixture.makeStore()
        try store.set(1, forKey: "a", in: user("com.example.Pending"))
        #expect(try store.domainNames(scope: .user) == [name("com.example.OnDisk"), name("com.example.Pending")])
        #expect(store.snapshot(of: user("com.example.Pending")).values == ["a": 1])
    }
}
