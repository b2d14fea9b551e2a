// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDomain
import PrefsFleet
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

/// The fleet state's log on real files: framing, torn tails, replay after the state file, folding.
@Suite struct FleetStateLogTests {
    let fixture: FleetCacheFixture
    var paths: StorePaths { fixture.paths }
    var layout: FleetKeyLayout { fixture.layout }
    var app: DomainName { fixture.app }

    init() throws {
        fixture = try FleetCacheFixture(prefix: "fleet-log")
    }

    func entry(_ value: String, _ revision: Int64) -> FleetMirror.Entry {
        FleetMirror.Entry(modRevision: revision, values: ["k": .string(value)])
    }

    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    @Test func everyWholeRecordIsReadAndATornOrDamagedOneEndsTheLog() {
        let records = [
            FleetStateLog.Record(revision: 4, entries: ["/a": entry("one", 4)], removed: []),
            FleetStateLog.Record(revision: 5, entries: [:], removed: ["/a"]),
            FleetStateLog.Record(revision: 9, entries: ["/b": entry("two", 8), "/c": entry("three", 9)], removed: []),
        ]
        let frames = records.map(FleetStateLog.frame)
        let bytes = frames.flatMap { $0 }
        let ends = frames.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + $1.count) }
        // A crash may cut the log at any byte: every whole record before the cut is read, nothing after it.
        for length in 0...bytes.count {
            let contents = FleetStateLog.records(in: Array(bytes.prefix(length)))
            let whole = ends.filter { $0 <= length }
            #expect(contents.records == Array(records.prefix(whole.count)), "cut at \(length)")
            #expect(contents.validBytes == (whole.last ?? 0))
            #expect(contents.totalBytes == length)
        }
        // A changed byte in the last record's contents fails its checksum.
        var damaged = bytes
        damaged[damaged.count - 3] ^= 0x40
        #expect(FleetStateLog.records(in: damaged).records == Array(records.prefix(2)))
        // Zeros where a record should be (a file extended but never written) are no record.
        #expect(FleetStateLog.records(in: frames[0] + [UInt8](repeating: 0, count: 40)).records == [records[0]])
    }

    @Test func combiningRecordsKeepsTheLastWordOnEachKey() {
        let first = FleetStateLog.Record(revision: 3, entries: ["/a": entry("one", 3)], removed: ["/b"])
        let second = FleetStateLog.Record(revision: 5, entries: ["/b": entry("two", 5)], removed: ["/a"])
        let combined = first.followed(by: second)
        #expect(combined.revision == 5)
        #expect(combined.entries == ["/b": entry("two", 5)])
        #expect(combined.removed == ["/a"])
    }

    @Test func aStartReplaysTheLogAfterTheStateAndCutsATornTail() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        for step in 2...6 {
            _ = try mirror.apply(
                [try fixture.put(["Step": .integer(.init(Int64(step)))], revision: Int64(step))], revision: Int64(step))
        }
        let log = mirror.cache.log
        let whole = size(log.path)
        #expect(try log.read().records.map(\.revision) == [2, 3, 4, 5, 6])
        // A crash in the middle of the next append.
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        handle.seekToEndOfFile()
        handle.write(Data(FleetStateLog.frame(.init(revision: 7, entries: [:], removed: [])).prefix(9)))
        try handle.close()

        var restarted = try FleetMirror(paths: paths, layout: layout, groups: [])
        let problem = try #require(try restarted.prepare())
        #expect(problem.contains("9 bytes that are not a whole record"), "\(problem)")
        #expect(problem.contains("from revision 7"), "\(problem)")
        #expect(restarted.revision == 6)
        #expect(restarted.entries == mirror.entries)
        #expect(size(log.path) == whole)
        let merged = try paths.path(for: DomainID(app, scope: .fleetForced))
        #expect(try PlistSerialization.decode(Array(try Data(contentsOf: URL(fileURLWithPath: merged)))) == ["Step": 6])
    }

    @Test func recordsTheStateAlreadyHoldsAreSkipped() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        _ = try mirror.apply([try fixture.put(["Step": 2], revision: 2)], revision: 2)
        let stale = try Data(contentsOf: URL(fileURLWithPath: mirror.cache.log.path))
        // A full read folds everything into the state; a crash before the log is cut leaves the old record.
        _ = try mirror.replaceAll(
            with: [
                EtcdKeyValue(
                    key: Array(layout.key(target: .all, kind: .forced, domain: app).utf8),
                    value: try PlistSerialization.encode(["Step": 3], format: .binary), modRevision: 3)
            ], revision: 3)
        try stale.write(to: URL(fileURLWithPath: mirror.cache.log.path))

        var restarted = try FleetMirror(paths: paths, layout: layout, groups: [])
        #expect(try restarted.prepare() == nil)
        #expect(restarted.revision == 3)
        #expect(restarted.entries.values.map(\.values) == [["Step": 3]])
    }

    @Test func theLogIsFoldedIntoTheStateOnceItOutgrowsIt() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        let filler = String(repeating: "x", count: 16 << 10)
        var largest = 0
        for step in 2...40 {
            _ = try mirror.apply(
                [
                    try fixture.put(
                        ["Step": .integer(.init(Int64(step))), "Filler": .string(filler)], revision: Int64(step))
                ],
                revision: Int64(step))
            largest = max(largest, size(mirror.cache.log.path))
        }
        // 39 records of about 16 KiB would be 640 KiB; the log never passes the threshold by more than one record.
        #expect(largest <= FleetCache.minimumLogBytesToFold + (17 << 10), "the log reached \(largest) bytes")
        #expect(size(mirror.cache.log.path) < FleetCache.minimumLogBytesToFold)
        var restarted = try FleetMirror(paths: paths, layout: layout, groups: [])
        #expect(try restarted.prepare() == nil)
        #expect(restarted.revision == 40)
        #expect(restarted.entries == mirror.entries)
    }

    @Test func aBatchThatChangesNothingHereIsNotRecorded() throws {
        var mirror = try FleetMirror(paths: paths, layout: layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        let otherHost = try fixture.put(["k": 1], revision: 2, target: .host("ffffffffffffffffffffffffffffffff"))
        _ = try mirror.apply([otherHost], revision: 2)
        #expect(mirror.revision == 2)
        #expect(try mirror.cache.log.read().records.isEmpty)
        // The next change here carries the revision.
        _ = try mirror.apply([try fixture.put(["Step": 3], revision: 3)], revision: 3)
        #expect(try mirror.cache.log.read().records.map(\.revision) == [3])
    }
}

/// The log on a full disk (a small tmpfs): an append cut short is cut off, so the records after it are not lost.
@Suite(.enabled(if: SmallFileSystem.isAvailable, "mounting a small tmpfs needs root"))
struct FleetStateLogFullDiskTests {
    let fixture: FleetCacheFixture
    let disk: SmallFileSystem

    init() throws {
        fixture = try FleetCacheFixture(prefix: "fleet-log-full")
        disk = try SmallFileSystem(
            at: fixture.paths.preferencesDirectory, kilobytes: 128, owner: fixture.directory)
    }

    @Test func anAppendCutShortIsCutOffAndTheNextRecordsStay() throws {
        var mirror = try FleetMirror(paths: fixture.paths, layout: fixture.layout, groups: [])
        _ = try mirror.prepare()
        _ = try mirror.replaceAll(with: [], revision: 1)
        _ = try mirror.apply([try fixture.put(["Step": 2], revision: 2)], revision: 2)
        var cache = mirror.cache
        let before = try cache.log.read().validBytes
        // Room for part of the next record only: 8 KiB free, a record of about 40 KiB.
        let spare = fixture.paths.preferencesDirectory + "/spare"
        try Data(repeating: 1, count: 8192).write(to: URL(fileURLWithPath: spare))
        try disk.fill()
        try FileManager.default.removeItem(atPath: spare)
        let key = fixture.layout.key(target: .all, kind: .forced, domain: fixture.app)
        func record(_ values: PlistDictionary, _ revision: Int64) -> FleetStateLog.Record {
            FleetStateLog.Record(
                revision: revision, entries: [key: FleetMirror.Entry(modRevision: revision, values: values)],
                removed: [])
        }
        let big = PlistValue.data([UInt8](repeating: 7, count: 40_000))
        #expect(throws: EtcdError.self) { try cache.append(record(["Step": 3, "Big": big], 3), entries: [:]) }
        let contents = try cache.log.read()
        #expect(contents.totalBytes == before, "the log was left at \(contents.totalBytes) bytes, not \(before)")

        try disk.makeRoom()
        try cache.append(record(["Step": 4], 4), entries: [:])
        var restarted = try FleetMirror(paths: fixture.paths, layout: fixture.layout, groups: [])
        #expect(try restarted.prepare() == nil)
        #expect(restarted.revision == 4)
        #expect(restarted.entries.values.map(\.values) == [["Step": 4]])
    }
}
