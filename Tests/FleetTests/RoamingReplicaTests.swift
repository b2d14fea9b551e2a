// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsFleet
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

/// The merge rules of roaming domains, on real state files: local edits become stamped pending changes, etcd's
/// newer change of the same key wins, nothing either side wrote is dropped.
@Suite struct RoamingReplicaTests {
    let directory: TemporaryDirectory
    let editor = try! DomainName("com.example.Editor")
    let key = "/preferences/users/ada/com.example.Editor"

    init() throws {
        directory = try TemporaryDirectory(prefix: "roaming-replica")
    }

    func replica(host: String) -> RoamingReplica {
        RoamingReplica(domain: editor, key: key, host: host, directory: directory.file("roaming-\(host)"))
    }

    func date(_ seconds: Double) -> PlistDate { PlistDate(secondsSinceReferenceDate: seconds) }

    func entry(_ value: PlistValue?, at seconds: Double, host: String) -> RoamingDocument.Entry {
        RoamingDocument.Entry(value: value, modified: date(seconds), host: host)
    }

    @Test func localEditsArePendingUntilPushed() throws {
        var laptop = replica(host: "a")
        let noted = laptop.noteLocal(["Font": "Mono", "Size": 12], now: date(100))
        #expect(noted)
        #expect(laptop.pending["Font"] == entry("Mono", at: 100, host: "a"))
        let notedAgain = laptop.noteLocal(["Font": "Mono", "Size": 12], now: date(101))
        #expect(!notedAgain, "no edit: nothing new")
        let document = try #require(laptop.outgoing(now: date(102)))
        #expect(document.values == ["Font": "Mono", "Size": 12])
        laptop.pushed(document, modRevision: 7)
        #expect(laptop.pending.isEmpty && laptop.baseRevision == 7)
        #expect(laptop.outgoing(now: date(103)) == nil)

        // A removal is a pending tombstone.
        let removed = laptop.noteLocal(["Font": "Mono"], now: date(110))
        #expect(removed)
        #expect(laptop.pending["Size"] == entry(nil, at: 110, host: "a"))
        #expect(try #require(laptop.outgoing(now: date(111))).entries["Size"]?.value == nil)
    }

    @Test func etcdsNewerChangeWinsOnlyForTheKeysItChanged() throws {
        var laptop = replica(host: "a")
        let base = RoamingDocument(entries: [
            "Shared": entry("base", at: 10, host: "b"), "Untouched": entry("base", at: 10, host: "b"),
            "Later": entry("base", at: 10, host: "b"),
        ])
        laptop.receive(base, modRevision: 5)
        #expect(laptop.expectedValues == ["Shared": "base", "Untouched": "base", "Later": "base"])

        // Offline, this host changes three keys; meanwhile the other host changes two of them, one before and one
        // after, and adds one.
        laptop.noteLocal(["Shared": "mine", "Untouched": "mine", "Later": "mine", "OnlyMine": 1], now: date(100))
        var remote = base
        remote.entries["Shared"] = entry("theirs", at: 150, host: "b")
        remote.entries["Later"] = entry("theirs", at: 50, host: "b")
        remote.entries["OnlyTheirs"] = entry(2, at: 150, host: "b")
        laptop.receive(remote, modRevision: 9)

        #expect(
            laptop.expectedValues == [
                "Shared": "theirs", "Untouched": "mine", "Later": "mine", "OnlyMine": 1, "OnlyTheirs": 2,
            ])
        #expect(Set(laptop.pending.keys) == ["Untouched", "Later", "OnlyMine"])
        #expect(laptop.baseRevision == 9)
        // The push is based on etcd's version: it carries every key.
        #expect(try #require(laptop.outgoing(now: date(200))).values == laptop.expectedValues)
    }

    @Test func aKeyEtcdDidNotChangeKeepsTheLocalEditWhateverTheClocks() throws {
        var laptop = replica(host: "a")
        let base = RoamingDocument(entries: ["Theme": entry("light", at: 1000, host: "b")])
        laptop.receive(base, modRevision: 3)
        // This host's clock is behind: its edit is stamped just after the version it replaces.
        laptop.noteLocal(["Theme": "dark"], now: date(10))
        let stamp = try #require(laptop.pending["Theme"]?.modified)
        #expect(stamp > date(1000) && stamp < date(1000.01))
        var remote = base
        remote.entries["Other"] = entry(1, at: 2000, host: "b")
        laptop.receive(remote, modRevision: 4)
        #expect(laptop.expectedValues == ["Theme": "dark", "Other": 1])
    }

    @Test func removalsReachTheOtherHostAndEqualStampsOrderByHost() {
        var laptop = replica(host: "a")
        laptop.receive(RoamingDocument(entries: ["Old": entry(1, at: 10, host: "b")]), modRevision: 2)
        laptop.receive(RoamingDocument(entries: ["Old": entry(nil, at: 20, host: "b")]), modRevision: 3)
        #expect(laptop.expectedValues.isEmpty)

        // Two edits stamped alike: the greater machine id wins, on every host.
        laptop.noteLocal(["Tie": "a"], now: date(30))
        laptop.receive(
            RoamingDocument(entries: ["Old": entry(nil, at: 20, host: "b"), "Tie": entry("b", at: 30, host: "b")]),
            modRevision: 4)
        #expect(laptop.expectedValues == ["Tie": "b"])
    }

    @Test func aDeletedEtcdKeyLosesNothingAndAnOldEchoIsIgnored() throws {
        var laptop = replica(host: "a")
        laptop.receive(RoamingDocument(entries: ["Font": entry("Mono", at: 10, host: "b")]), modRevision: 8)
        let echo = laptop.receive(RoamingDocument(), modRevision: 8)
        #expect(!echo, "a version no newer than the base")
        let deleted = laptop.receive(nil, modRevision: 0)
        #expect(deleted)
        #expect(laptop.expectedValues == ["Font": "Mono"])
        #expect(try #require(laptop.outgoing(now: date(20))).values == ["Font": "Mono"])
        #expect(laptop.baseRevision == 0, "the next push creates the key again")
    }

    @Test func oldTombstonesAreDroppedFromPushes() throws {
        var laptop = replica(host: "a")
        let now = 10_000_000.0
        laptop.receive(
            RoamingDocument(entries: [
                "Ancient": entry(nil, at: now - RoamingReplica.tombstoneLifetime - 1, host: "b"),
                "Recent": entry(nil, at: now - 60, host: "b"),
            ]), modRevision: 2)
        laptop.noteLocal(["New": 1], now: date(now))
        let document = try #require(laptop.outgoing(now: date(now)))
        #expect(Set(document.entries.keys) == ["Recent", "New"])
    }

    @Test func stateSurvivesARestart() throws {
        var laptop = replica(host: "a")
        laptop.receive(RoamingDocument(entries: ["Font": entry("Mono", at: 10, host: "b")]), modRevision: 8)
        laptop.noteLocal(["Font": "Mono", "Offline": true], now: date(20))
        try laptop.save()
        var restarted = replica(host: "a")
        let problem = restarted.load(maxKeyBytes: 1024)
        #expect(problem == nil)
        #expect(restarted.base == laptop.base && restarted.baseRevision == 8 && restarted.pending == laptop.pending)

        try Data("garbage".utf8).write(to: URL(fileURLWithPath: laptop.statePath))
        var confused = replica(host: "a")
        let complaint = confused.load(maxKeyBytes: 1024)
        #expect(complaint?.contains("is malformed") == true)
        #expect(confused.baseRevision == 0 && confused.pending.isEmpty)
    }

    @Test(arguments: [
        ("not a plist", "is not a property list"),
        ("<plist><string>x</string></plist>", "not a roaming domain"),
        (
            "<plist><dict><key>Format</key><integer>2</integer><key>Keys</key><dict/></dict></plist>",
            "Format is not 1"
        ),
        (
            "<plist><dict><key>Format</key><integer>1</integer><key>Keys</key><dict><key>k</key><dict/></dict></dict>"
                + "</plist>", "has no Modified date or Host"
        ),
    ])
    func malformedDocumentsAreRefused(text: String, reason: String) {
        let result = RoamingDocument.decode(Array(text.utf8), limits: FleetMirror.Limits())
        guard case .failure(let refusal) = result else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(refusal.description.contains(reason), "\(refusal)")
    }

    @Test func documentsRoundTripAndOversizedOnesAreRefused() throws {
        let document = RoamingDocument(entries: [
            "Font": entry("Mono", at: 10, host: "a"), "Gone": entry(nil, at: 11, host: "b"),
        ])
        let bytes = try document.encoded()
        #expect(try RoamingDocument.decode(bytes, limits: FleetMirror.Limits()).get() == document)
        let small = FleetMirror.Limits(maxValueBytes: 16)
        guard case .failure(let refusal) = RoamingDocument.decode(bytes, limits: small) else {
            Issue.record("an oversized document was accepted")
            return
        }
        #expect(refusal.description.contains("more than the limit of 16"))
    }
}
