// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsFleet
import PrefsPlist
import Testing

/// The registry's records and the administrator's reading of them: round trips, who is behind and for how long,
/// what a wait counts, and entries that are not host records.
@Suite struct FleetHostRosterTests {
    let layout = try! FleetKeyLayout()

    func record(
        _ name: String, _ id: Character, groups: [String] = [], applied: Int64, policy: Int64? = nil,
        policyDate: Double? = nil, error: String? = nil
    ) -> FleetHostRecord {
        FleetHostRecord(
            machineID: String(repeating: id, count: 32), name: name, groups: groups, version: "1.0.0",
            state: "connected", appliedRevision: applied, policyRevision: policy ?? applied, policyDate: policyDate,
            lastError: error, lastErrorDate: error == nil ? nil : 1_790_000_000, refusedValues: 0,
            registeredDate: 1_789_999_000)
    }

    func keyValue(_ record: FleetHostRecord) -> EtcdKeyValue {
        EtcdKeyValue(
            key: Array(layout.hostKey(machineID: record.machineID).utf8), value: record.encoded, modRevision: 1)
    }

    @Test func aRecordRoundTripsThroughItsJSON() throws {
        let original = record(
            "web-1", "a", groups: ["web", "eu"], applied: 40, policy: 42, policyDate: 1.5, error: "x")
        let decoded = try FleetHostRecord(json: original.encoded, machineID: original.machineID)
        #expect(decoded == original)
        let text = String(decoding: original.encoded, as: UTF8.self)
        #expect(text.contains("\"appliedRevision\":40"), "\(text)")
    }

    @Test(arguments: [
        "", "[]", "{\"name\": \"n\"}", "{\"name\": \"n\", \"state\": \"connected\", \"appliedRevision\": -1}",
    ])
    func aValueThatIsNotARecordIsRefusedNamingTheField(_ text: String) {
        #expect(throws: EtcdError.self) {
            try FleetHostRecord(json: Array(text.utf8), machineID: String(repeating: "a", count: 32))
        }
    }

    @Test func hostsBehindThePolicyAreCountedInRevisionsAndSeconds() {
        let ahead = record("b-ahead", "b", groups: ["web"], applied: 50, policy: 50, policyDate: 1000)
        let behind = record("a-behind", "a", groups: ["web"], applied: 40, policy: 40, policyDate: 900)
        let other = record("c-db", "c", groups: ["db"], applied: 50, policy: 48, policyDate: 990)
        let roster = FleetHostRoster(keyValues: [ahead, behind, other].map(keyValue), layout: layout)
        #expect(roster.policyRevision == 50)
        let rows = roster.rows(now: 1010)
        #expect(rows.map(\.record.name) == ["a-behind", "b-ahead", "c-db"])
        #expect(rows[0].behindRevisions == 10)
        // Since the first host that knew of a change this one lacks: c-db learned of 48 at 990.
        #expect(rows[0].behindSeconds == 20)
        #expect(rows[1].behindRevisions == 0 && rows[1].behindSeconds == nil)
        #expect(roster.rows(selecting: .group("db"), now: 1010).map(\.record.name) == ["c-db"])
        #expect(roster.rows(selecting: .host(behind.machineID), now: 1010).count == 1)

        // A managed key newer than every host makes every host behind, with no time known.
        var newer = roster
        newer.newestManagedRevision = 55
        #expect(newer.rows(now: 1010).allSatisfy { $0.behindRevisions > 0 })
        #expect(newer.rows(now: 1010)[1].behindSeconds == nil)

        let progress = roster.progress(toward: 45, selecting: .group("web"))
        #expect(progress.total == 2 && progress.behind.map(\.name) == ["a-behind"])
    }

    @Test func putsAndDeletesMoveTheRosterAndStrayKeysAreProblems() {
        var roster = FleetHostRoster()
        let host = record("h", "d", applied: 3)
        roster.apply(put: keyValue(host), layout: layout)
        #expect(roster.hosts.count == 1)
        roster.apply(
            put: EtcdKeyValue(key: Array("/preferences/hosts/NOTANID".utf8), value: [], modRevision: 2), layout: layout)
        roster.apply(
            put: EtcdKeyValue(
                key: Array(layout.hostKey(machineID: String(repeating: "e", count: 32)).utf8),
                value: Array("garbage".utf8), modRevision: 3), layout: layout)
        #expect(roster.hosts.count == 1)
        #expect(roster.problems.count == 2)
        roster.apply(delete: layout.hostKey(machineID: host.machineID), layout: layout)
        #expect(roster.hosts.isEmpty)
        #expect(layout.machineID(ofHostKey: "/preferences/hosts/" + String(repeating: "a", count: 32)) != nil)
        #expect(layout.machineID(ofHostKey: "/preferences/managed/all") == nil)
    }
}
