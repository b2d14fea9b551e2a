// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDomain
import PrefsFleet
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

/// The cache prefsd writes, on real files: merging, refusals, deletions and full reads.
@Suite struct FleetMirrorTests {
    let fixture: FleetCacheFixture
    var paths: StorePaths { fixture.paths }
    var layout: FleetKeyLayout { fixture.layout }
    var app: DomainName { fixture.app }

    init() throws {
        fixture = try FleetCacheFixture(prefix: "fleet-mirror")
    }

    func store() -> PreferencesStore {
        PreferencesStore(
            paths: paths,
            configuration: StoreConfiguration(watchesFiles: false, flushesAtExit: false, diagnostics: { _ in }))
    }

    @Test func hostWinsOverGroupsInTheirOrderAndGroupsOverAllHosts() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: ["first", "second"])
        _ = try mirror.prepare()
        let refusals = try mirror.apply(
            [
                try fixture.put(
                    ["a": "all", "b": "all", "c": "all", "d": "all"], revision: 2, target: .all, kind: .forced),
                try fixture.put(
                    ["b": "second", "c": "second", "d": "second"], revision: 3, target: .group("second"), kind: .forced),
                try fixture.put(["c": "first", "d": "first"], revision: 4, target: .group("first"), kind: .forced),
                try fixture.put(["d": "host"], revision: 5, target: .host(FleetCacheFixture.machineID), kind: .forced),
                try fixture.put(["a": "other"], revision: 6, target: .group("other"), kind: .forced),
                try fixture.put(
                    ["a": "elsewhere"], revision: 7, target: .host("ffffffffffffffffffffffffffffffff"), kind: .forced),
            ], revision: 7)
        #expect(refusals.isEmpty)
        #expect(mirror.revision == 7)
        let list = SearchList(domain: app, includesGlobal: false)
        let resolved = store()
        #expect(resolved.effectiveValue(forKey: "a", in: list) == "all")
        #expect(resolved.effectiveValue(forKey: "b", in: list) == "second")
        #expect(resolved.effectiveValue(forKey: "c", in: list) == "first")
        #expect(resolved.effectiveValue(forKey: "d", in: list) == "host")
        let resolution = resolved.resolve("c", in: list)
        #expect(resolution.isForced)
        #expect(
            resolution.winner?.fleetSource
                == FleetSource(key: "/preferences/managed/group/first/forced/com.example.App", revision: 4))
    }

    @Test func refusedValuesKeepTheLastGoodAndDeletionsAndFullReadsRemove() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [], limits: .init(maxValueBytes: 1024))
        _ = try mirror.prepare()
        _ = try mirror.apply([try fixture.put(["k": "good"], revision: 2, target: .all, kind: .default)], revision: 2)
        let key = layout.key(target: .all, kind: .default, domain: app)
        let bad = EtcdWatchEvent(
            kind: .put, keyValue: EtcdKeyValue(key: Array(key.utf8), value: Array("(1,".utf8), modRevision: 3))
        let refusals = try mirror.apply([bad], revision: 3)
        #expect(refusals.map { $0.key } == [key])
        #expect(refusals.first?.revision == 3)
        let file = try paths.path(for: DomainID(app, scope: .fleetDefault))
        #expect(
            try PlistSerialization.decode(Array(FileManager.default.contents(atPath: file) ?? Data())) == ["k": "good"])

        // A new run reads the state and goes on from its revision.
        var again = try FleetMirror(paths: paths, layout: layout, groups: [], limits: .init(maxValueBytes: 1024))
        #expect(try again.prepare() == nil)
        #expect(again.revision == 3 && again.entries[key]?.values == ["k": "good"])

        // A full read without the key removes the domain's files.
        _ = try again.replaceAll(with: [], revision: 9)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(again.revision == 9)
    }

    @Test func aStartRebuildsTheMergedFilesFromTheDurableState() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.apply([try fixture.put(["k": "policy"], revision: 2, target: .all, kind: .forced)], revision: 2)
        let merged = try paths.path(for: DomainID(app, scope: .fleetForced))
        let sources = try #require(paths.fleetSourcesPath(for: DomainID(app, scope: .fleetForced)))

        // As a crash can leave them (they are not fsynced): torn, and missing; a stale file of a domain no longer
        // managed too.
        try Data("bplist00 torn".utf8).write(to: URL(fileURLWithPath: merged))
        try FileManager.default.removeItem(atPath: sources)
        let stale = try paths.path(for: DomainID(try DomainName("com.example.Gone"), scope: .fleetForced))
        try Data(PlistSerialization.encode(.dictionary(["k": "old"]), format: .binary)).write(
            to: URL(fileURLWithPath: stale))

        var restarted = try FleetMirror(paths: paths, layout: layout, groups: [])
        #expect(try restarted.prepare() == nil)
        #expect(store().effectiveValue(forKey: "k", in: SearchList(domain: app, includesGlobal: false)) == "policy")
        #expect(FileManager.default.fileExists(atPath: sources))
        #expect(!FileManager.default.fileExists(atPath: stale))
    }
}
