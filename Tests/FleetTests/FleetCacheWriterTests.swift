// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDomain
import PrefsFleet
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Synchronization
import Testing

/// prefsd's way of writing the cache: the store hears of a change first, a thread of its own writes the files.
@Suite struct FleetCacheWriterTests {
    let fixture: FleetCacheFixture
    var paths: StorePaths { fixture.paths }
    var layout: FleetKeyLayout { fixture.layout }
    var app: DomainName { fixture.app }
    var forced: DomainID { DomainID(app, scope: .fleetForced) }
    var list: SearchList { SearchList(domain: app, includesGlobal: false) }

    init() throws {
        fixture = try FleetCacheFixture(prefix: "fleet-writer")
    }

    /// A store as prefsd opens it: watching its files, not the fleet cache it writes itself.
    func daemonStore() -> PreferencesStore {
        var configuration = StoreConfiguration(flushesAtExit: false, diagnostics: { _ in })
        configuration.watchesFleetCache = false
        return PreferencesStore(paths: paths, configuration: configuration)
    }

    func mergedFile() throws -> PlistDictionary? {
        guard let data = FileManager.default.contents(atPath: try paths.path(for: forced)) else { return nil }
        return try PlistSerialization.decode(Array(data)).dictionaryValue
    }

    @Test func theStoreHearsOfAChangeAtOnceAndTheFilesFollow() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        let store = daemonStore()
        let events = Mutex<[PlistValue?]>([])
        let token = store.observe(.effectiveKey("Step", in: list)) { batch in
            events.withLock { $0 += batch.map(\.newValue) }
        }
        defer { token.cancel() }
        let failures = Mutex<[String]>([])
        let writer = FleetCacheWriter(cache: mirror.cache, store: store) { error in
            failures.withLock { $0.append(error.message) }
        }
        mirror.writer = writer

        for step in 2...50 {
            _ = try mirror.apply(
                [try fixture.put(["Step": .integer(.init(Int64(step)))], revision: Int64(step))], revision: Int64(step))
            // When apply returns, the store has the value: its observers heard of it on this thread.
            #expect(store.effectiveValue(forKey: "Step", in: list) == .integer(.init(Int64(step))))
            #expect(store.resolve("Step", in: list).winner?.fleetSource?.revision == Int64(step))
        }
        #expect(events.withLock { $0 } == (2...50).map { PlistValue.integer(.init(Int64($0))) })
        writer.finish()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try mergedFile() == ["Step": 50])
        let sources = FleetSource.read(path: try #require(paths.fleetSourcesPath(for: forced)))
        #expect(sources["Step"]?.revision == 50)
        // The state on disk reached the last change, in fewer appends than changes when they came in a burst.
        var restarted = try FleetMirror(paths: paths, layout: layout, groups: [])
        #expect(try restarted.prepare() == nil)
        #expect(restarted.revision == 50)
        #expect(restarted.entries == mirror.entries)
        #expect(try restarted.cache.log.read().records.count <= 49)
    }

    @Test func aFailedWriteIsReportedAndTriedAgain() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        let store = daemonStore()
        #expect(store.effectiveValue(forKey: "Step", in: list) == nil)
        let failures = Mutex<[String]>([])
        let writer = FleetCacheWriter(cache: mirror.cache, store: store) { error in
            failures.withLock { $0.append(error.message) }
        }
        mirror.writer = writer
        // A directory where the merged file goes: its rename fails.
        let merged = try paths.path(for: forced)
        try FileManager.default.createDirectory(atPath: merged + "/blocked", withIntermediateDirectories: true)

        _ = try mirror.apply([try fixture.put(["Step": 2], revision: 2)], revision: 2)
        #expect(store.effectiveValue(forKey: "Step", in: list) == 2)
        try waitUntil("the failed write to be reported") { !failures.withLock { $0 }.isEmpty }
        let failure = try #require(failures.withLock { $0.first })
        #expect(failure.contains("cannot write the fleet cache file \(merged)"), "\(failure)")
        // Meanwhile another change; once the way is clear, the retry writes the latest.
        _ = try mirror.apply([try fixture.put(["Step": 3], revision: 3)], revision: 3)
        try FileManager.default.removeItem(atPath: merged)
        try waitUntil("the retry to write the merged file", timeout: .seconds(10)) { try mergedFile() == ["Step": 3] }
        writer.finish()
        var restarted = try FleetMirror(paths: paths, layout: layout, groups: [])
        #expect(try restarted.prepare() == nil)
        #expect(restarted.revision == 3)
    }

    @Test func anAnnouncedDomainIsNeverReadFromItsFileAgain() throws {
        let fixture = try FleetMirror(paths: paths, layout: layout, groups: [])
        try fixture.cache.create()
        // A store that watches the cache, as a client's does: its domain is loaded from the file.
        let store = PreferencesStore(
            paths: paths, configuration: StoreConfiguration(flushesAtExit: false, diagnostics: { _ in }))
        let file = try paths.path(for: forced)
        try Data(try PlistSerialization.encode(["Step": 1], format: .binary)).write(to: URL(fileURLWithPath: file))
        try waitUntil("the store to read the file") { store.effectiveValue(forKey: "Step", in: list) == 1 }

        store.announceFileContents(
            ["Step": 2], fleetSources: ["Step": FleetSource(key: "/k", revision: 2)], of: forced,
            origin: .otherProcess(pid: 1))
        #expect(store.effectiveValue(forKey: "Step", in: list) == 2)
        #expect(store.resolve("Step", in: list).winner?.fleetSource == FleetSource(key: "/k", revision: 2))
        // The file lags what was announced (its writer has not reached it): reading it would step back.
        try Data(try PlistSerialization.encode(["Step": 1, "Old": true], format: .binary)).write(
            to: URL(fileURLWithPath: file + ".tmp"))
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.moveItem(atPath: file + ".tmp", toPath: file)
        // A marker domain outside the cache, written after: once its change is in, the cache's event was handled.
        let marker = DomainID(try DomainName("com.example.Marker"))
        #expect(store.value(forKey: "Written", in: marker) == nil)
        try Data(try PlistSerialization.encode(["Written": true], format: .binary)).write(
            to: URL(fileURLWithPath: try paths.path(for: marker)))
        try waitUntil("the marker") { store.value(forKey: "Written", in: marker) == true }
        #expect(store.effectiveValue(forKey: "Step", in: list) == 2)
        #expect(store.effectiveValue(forKey: "Old", in: list) == nil)
    }

    @Test func aDomainLoadedAfterItsAnnouncementStartsFromIt() throws {
        let mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        try mirror.cache.create()
        let file = try paths.path(for: forced)
        try Data(try PlistSerialization.encode(["Step": 1], format: .binary)).write(to: URL(fileURLWithPath: file))
        let store = daemonStore()
        // Announced while nobody has loaded the domain, its file not written yet: a later load must not step back.
        store.announceFileContents(
            ["Step": 2], fleetSources: ["Step": FleetSource(key: "/k", revision: 2)], of: forced,
            origin: .otherProcess(pid: 1))
        #expect(store.effectiveValue(forKey: "Step", in: list) == 2)
        #expect(store.resolve("Step", in: list).winner?.fleetSource == FleetSource(key: "/k", revision: 2))
        // A domain whose first file is not written yet reads as announced too.
        let other = DomainID(try DomainName("com.example.Other"), scope: .fleetDefault)
        store.announceFileContents(["New": true], of: other, origin: .otherProcess(pid: 1))
        #expect(store.value(forKey: "New", in: other) == true)
    }

}
