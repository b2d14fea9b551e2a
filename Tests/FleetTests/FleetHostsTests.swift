// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// The fleet's registry of live hosts on a real cluster: `defaults fleet hosts`, `fleet wait`, `fleet write -wait`,
/// hosts leaving when they stop (at once) and when they die (when their lease expires), and `fleet status`'s host
/// fields (docs/FLEET.md, "Hosts").
extension FleetClusterTests {
    /// Runs `defaults fleet …` against the cluster, whatever its exit status.
    func fleet(_ cluster: EtcdCluster, _ arguments: [String]) throws -> BuiltProduct.Result {
        try FleetHost.defaults.run(
            ["fleet"] + arguments,
            environment: ["PREFERENCES_FLEET_ENDPOINTS": cluster.endpoints.joined(separator: ",")])
    }

    /// The hosts of `fleet hosts -format json`, by machine id, and the policy revision.
    func hostsDocument(
        _ cluster: EtcdCluster, _ options: [String] = []
    ) throws -> (policy: Int64, hosts: [String: PlistDictionary]) {
        let output = try admin(cluster, ["hosts", "-format", "json"] + options).standardOutput
        let document = try #require(try PlistSerialization.decode(Array(output.utf8)).dictionaryValue, "\(output)")
        guard case .integer(let policy)? = document["policyRevision"], let policyRevision = policy.int64Value else {
            throw TestFailure("no policyRevision in \(output)")
        }
        var hosts: [String: PlistDictionary] = [:]
        for case .dictionary(let host) in document["hosts"]?.arrayValue ?? [] {
            if case .string(let machineID)? = host["machineID"] { hosts[machineID] = host }
        }
        return (policyRevision, hosts)
    }

    static func integer(_ host: PlistDictionary?, _ name: String) -> Int64? {
        if case .integer(let value)? = host?[name] { return value.int64Value }
        return nil
    }

    @Test func hostsRegisterAreListedWaitedForAndLeaveWhenTheyStopOrDie() throws {
        let cluster = try EtcdCluster()
        let ttl: PlistDictionary = ["FleetHostTTL": .integer(5)]
        let web1 = try FleetHost(
            settings: FleetHost.settings(cluster, groups: ["web"], extra: ttl + ["FleetHostName": "web-1"]))
        let web2 = try FleetHost(
            settings: FleetHost.settings(cluster, groups: ["web", "eu"], extra: ttl + ["FleetHostName": "web-2"]))
        let db = try FleetHost(
            settings: FleetHost.settings(cluster, groups: ["db"], extra: ttl + ["FleetHostName": "db-1"]))
        let hosts = [web1, web2, db]
        for host in hosts { try host.start() }

        // Every host registers itself with its name and groups.
        var listed: [String: PlistDictionary] = [:]
        try waitUntil("three hosts in the registry: \(listed)") {
            listed = try hostsDocument(cluster).hosts
            return listed.count == 3
        }
        #expect(listed[web1.machineID]?["name"] == "web-1")
        #expect(listed[web2.machineID]?["groups"] == .array(["web", "eu"]))
        #expect(listed[db.machineID]?["state"] == "connected" || listed[db.machineID]?["state"] == "connecting")
        #expect(listed[db.machineID]?["version"] == .string(try version()))

        // A write to a group, waited for: the group's hosts have it when the command returns.
        let written = try admin(cluster, ["write", "-forced", "-group", "web", "-wait", app, "Theme", "dark"])
        let revision = try Self.writtenRevision(written)
        #expect(
            written.standardError.contains("2 of 2 hosts of group web have revision \(revision) after "),
            "\(written)")
        for host in [web1, web2] { #expect(host.cached("forced", app)?["Theme"] == "dark") }

        // Every host sees every managed change, so all three come to hold the revision.
        let waited = try admin(cluster, ["wait", "-timeout", "20", String(revision)])
        #expect(waited.standardError.hasPrefix("3 of 3 hosts have revision \(revision) after "), "\(waited)")
        let document = try hostsDocument(cluster)
        #expect(document.policy >= revision)
        for host in hosts {
            #expect((Self.integer(document.hosts[host.machineID], "appliedRevision") ?? 0) >= revision, "\(document)")
        }

        // The table, one group, and nobody behind.
        let table = try admin(cluster, ["hosts", "-group", "web"]).standardOutput
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("HOST") == true, "\(table)")
        #expect(lines.count == 4, "\(table)")
        #expect(table.contains(web1.machineID) && table.contains(web2.machineID) && !table.contains(db.machineID))
        #expect(lines.last?.hasSuffix("2 hosts, 0 behind") == true, "\(table)")
        #expect(try admin(cluster, ["hosts", "-behind"]).standardOutput.hasSuffix("0 hosts behind\n"))

        // fleet status shows the host's side of it.
        let status = try Self.status(of: web2)
        #expect(status.contains("\nhost: web-2\n"), "\(status)")
        #expect(status.contains("\nmachine id: \(web2.machineID)\n"), "\(status)")
        #expect(status.contains("\ngroups: web, eu\n"), "\(status)")
        #expect(status.contains("\nregistered: /preferences/hosts/\(web2.machineID) (lease "), "\(status)")

        // A revision no host has: the wait gives up after its timeout, naming the hosts behind.
        let future = try fleet(cluster, ["wait", "-timeout", "1", String(revision + 1000)])
        #expect(future.status == 1, "\(future)")
        #expect(future.standardError.contains("0 of 3 hosts have revision \(revision + 1000) after "), "\(future)")
        #expect(future.standardError.contains("host db-1 (\(db.machineID)) is behind at revision "), "\(future)")

        // A host that stops cleanly leaves at once; one killed leaves when its lease expires.
        db.stop()
        try waitUntil("db-1 to leave the registry", timeout: .seconds(3)) {
            try hostsDocument(cluster).hosts[db.machineID] == nil
        }
        web1.process?.kill()
        let killed = Date()
        #expect(try hostsDocument(cluster).hosts[web1.machineID] != nil)
        try waitUntil("web-1's lease to expire", timeout: .seconds(20)) {
            try hostsDocument(cluster).hosts[web1.machineID] == nil
        }
        #expect(Date().timeIntervalSince(killed) >= 3, "web-1 left before its lease could have expired")
        #expect(try hostsDocument(cluster).hosts.keys.sorted() == [web2.machineID])

        // A group with no live host: nothing to wait for, which is a failure a deployment script sees.
        let nobody = try fleet(cluster, ["wait", "-group", "db", "-timeout", "0.5", String(revision)])
        #expect(nobody.status == 1, "\(nobody)")
        #expect(nobody.standardError.contains("no live host of group db is in the fleet's registry"), "\(nobody)")
    }

    @Test func aHostCutOffFromEtcdIsListedBehindAndCatchesUp() throws {
        let cluster = try EtcdCluster()
        let settings = FleetHost.settings(cluster, extra: ["FleetHostTTL": .integer(30), "FleetHostName": "laptop"])
        let laptop = try FleetHost(settings: settings)
        let desk = try FleetHost(settings: FleetHost.settings(cluster, extra: ["FleetHostName": "desk"]))
        try laptop.start()
        try desk.start()
        let first = try Self.writtenRevision(try admin(cluster, ["write", "-forced", "-wait", app, "Theme", "dark"]))

        // The laptop's prefsd is stopped with SIGSTOP: its lease lives on, its record stays at the old revision.
        let pid = try #require(laptop.process?.pid)
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let second = try Self.writtenRevision(try admin(cluster, ["write", "-forced", app, "Theme", "light"]))
        try desk.waitForCached("forced", app, "Theme", "light")
        var rows: [String: PlistDictionary] = [:]
        try waitUntil("the desk at \(second): \(rows)") {
            rows = try hostsDocument(cluster).hosts
            return (Self.integer(rows[desk.machineID], "appliedRevision") ?? 0) >= second
        }
        let behind = try hostsDocument(cluster, ["-behind"]).hosts
        #expect(behind.keys.sorted() == [laptop.machineID], "\(behind)")
        #expect((Self.integer(behind[laptop.machineID], "appliedRevision") ?? 0) >= first)
        #expect((Self.integer(behind[laptop.machineID], "behindRevisions") ?? 0) > 0, "\(behind)")
        let table = try admin(cluster, ["hosts"]).standardOutput
        #expect(table.contains(" rev"), "\(table)")
        let waited = try fleet(cluster, ["wait", "-timeout", "1", String(second)])
        #expect(waited.status == 1)
        #expect(waited.standardError.contains("1 of 2 hosts have revision \(second)"), "\(waited)")
        #expect(waited.standardError.contains("host laptop (\(laptop.machineID)) is behind"), "\(waited)")

        // Resumed, it catches up, and the wait that was failing returns.
        kill(pid, SIGCONT)
        let caught = try admin(cluster, ["wait", "-timeout", "20", String(second)])
        #expect(caught.standardError.hasPrefix("2 of 2 hosts have revision \(second) after "), "\(caught)")
        #expect(laptop.cached("forced", app)?["Theme"] == "light")
    }

    @Test func anUnreadableManagedValueIsRepairedWithFleetWriteOrDelete() throws {
        let cluster = try EtcdCluster()
        let key = "/preferences/managed/all/forced/\(app)"
        try cluster.control(["put", key, "not a property list {"])

        // A key-wise edit cannot start from it, and says what repairs it.
        let keyDelete = try fleet(cluster, ["delete", "-forced", app, "Theme"])
        #expect(keyDelete.status == 1, "\(keyDelete)")
        #expect(keyDelete.standardError.contains("does not hold a property list dictionary"), "\(keyDelete)")
        #expect(keyDelete.standardError.contains("fleet delete of the whole domain removes it"), "\(keyDelete)")

        // fleet write replaces it, naming what it replaced.
        let written = try admin(cluster, ["write", "-forced", app, "Theme", "dark"])
        #expect(written.standardError.contains("warning: replacing the unreadable value of \(key) at revision "))
        #expect(written.standardError.contains("(21 bytes, not a property list dictionary)"), "\(written)")
        #expect(try admin(cluster, ["read", "-forced", app, "Theme"]).standardOutput == "dark\n")

        // fleet delete of the whole domain removes one.
        try cluster.control(["put", key, "garbage"])
        let deleted = try admin(cluster, ["delete", "-forced", app])
        #expect(deleted.standardError.contains("warning: replacing the unreadable value of \(key)"), "\(deleted)")
        #expect(try cluster.control(["get", key]).standardOutput.isEmpty)
    }

    @Test func aWatchOnAMemberWithoutALeaderIsLeftAndTheHostSaysSo() throws {
        let cluster = try EtcdCluster()
        let host = try FleetHost(settings: FleetHost.settings(cluster, extra: ["FleetWatchCheckSeconds": .integer(1)]))
        try host.start()
        try admin(cluster, ["write", "-forced", "-wait", app, "Theme", "dark"])
        var status = try Self.status(of: host)
        #expect(status.hasPrefix("state: connected\n"), "\(status)")

        // Two of three members gone: the one left has no leader, and its watch would never deliver a change made on
        // the other side of a partition. The host leaves it within a check and says why.
        let watched = try #require(status.firstMatch(of: /\nendpoint: (\S+)\n/).map { String($0.1) })
        let left = try #require(cluster.endpoints.firstIndex(of: watched))
        for member in 0..<3 where member != left { cluster.kill(member) }
        try waitUntil("the host to leave the leaderless member: \(host.log)", timeout: .seconds(20)) {
            host.log.contains("etcd member at \(watched) has no leader")
        }
        try waitUntil("fleet status offline: \(status)") {
            status = try Self.status(of: host)
            return status.hasPrefix("state: offline\n")
        }
        #expect(host.cached("forced", app)?["Theme"] == "dark")

        // The members back: connected again, and the registry has the host.
        for member in 0..<3 where member != left { try cluster.start(member) }
        try cluster.waitUntilHealthy()
        try waitUntil("connected again: \(status)", timeout: .seconds(30)) {
            status = try Self.status(of: host)
            return status.hasPrefix("state: connected\n")
        }
        try waitUntil("the host in the registry") { try hostsDocument(cluster).hosts[host.machineID] != nil }
    }

    /// The version `prefsd --version` prints.
    private func version() throws -> String {
        let line = try FleetHost.prefsd.run(["--version"]).standardOutput
        return String(line.dropFirst("prefsd ".count)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension PlistDictionary {
    fileprivate static func + (left: PlistDictionary, right: PlistDictionary) -> PlistDictionary {
        var merged = left
        for (key, value) in right { merged[key] = value }
        return merged
    }
}
