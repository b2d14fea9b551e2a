// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

/// A real three-member etcd cluster and real prefsd hosts joined to it (docs/FLEET.md). Each test has its own
/// cluster on its own ports, so they may run in parallel.
@Suite(.timeLimit(.minutes(3))) struct FleetClusterTests {
    let app = "com.example.App"

    /// Runs `defaults fleet …` as an administrator against the cluster.
    @discardableResult
    func admin(_ cluster: EtcdCluster, _ arguments: [String]) throws -> BuiltProduct.Result {
        let result = try FleetHost.defaults.run(
            ["fleet"] + arguments,
            environment: ["PREFERENCES_FLEET_ENDPOINTS": cluster.endpoints.joined(separator: ",")])
        guard result.status == 0 else { throw TestFailure("defaults fleet \(arguments): \(result)") }
        return result
    }

    @Test func managedChangesReachTheirHostsWithForcedAndDefaultSemantics() throws {
        let cluster = try EtcdCluster()
        let lab1 = try FleetHost(settings: FleetHost.settings(cluster, groups: ["lab"]))
        let lab2 = try FleetHost(settings: FleetHost.settings(cluster, groups: ["lab"]))
        let office = try FleetHost(settings: FleetHost.settings(cluster))
        let hosts = [lab1, lab2, office]
        for host in hosts { try host.start() }

        // A subscriber to lab1's effective values of the app sees the managed change as an event.
        let client = try PrefsBlockingClient(socketPath: lab1.socketPath, clientName: "fleet test")
        let seen = Mutex<[WireChange]>([])
        let subscription = try client.subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: app)))) { event in
            if case .changes(let changes, _)? = event { seen.withLock { $0 += changes } }
        }
        defer { subscription.cancel() }

        try admin(cluster, ["write", "-forced", app, "Theme", "dark"])
        for host in hosts { try host.waitForCached("forced", app, "Theme", "dark") }
        try waitUntil("the subscriber's event") {
            seen.withLock { changes in changes.contains { change in change.key == "Theme" && change.new == "dark" } }
        }

        // explain names the fleet layer, the etcd key and its revision.
        let explained = try office.defaults(["explain", app, "Theme"])
        #expect(explained.standardOutput.contains("Theme = dark from fleet-managed forced com.example.App"))
        #expect(explained.standardOutput.contains("etcd key /preferences/managed/all/forced/com.example.App revision "))

        // Forced: the user's own value does not win. Default: it does.
        try admin(cluster, ["write", "-default", "-group", "lab", app, "Font", "Mono"])
        for host in [lab1, lab2] { try host.waitForCached("default", app, "Font", "Mono") }
        #expect(try lab1.defaults(["write", app, "Theme", "light"]).status == 0)
        #expect(try lab1.defaults(["write", app, "Font", "Sans"]).status == 0)
        let theme = try lab1.defaults(["explain", app, "Theme"]).standardOutput
        #expect(theme.hasPrefix("Theme = dark from fleet-managed forced"), "\(theme)")
        let font = try lab1.defaults(["explain", app, "Font"]).standardOutput
        #expect(font.hasPrefix("Font = Sans from user"), "\(font)")
        #expect(font.contains("shadows Mono from fleet-managed default com.example.App"))
        #expect(
            try lab2.defaults(["explain", app, "Font"]).standardOutput.hasPrefix(
                "Font = Mono from fleet-managed default"))

        // Host targeting wins over all hosts for that host only; the group's default never reached the office.
        try admin(cluster, ["write", "-forced", "-host", office.machineID, app, "Theme", "office"])
        try office.waitForCached("forced", app, "Theme", "office")
        try admin(cluster, ["write", "-forced", app, "Marker", "-int", "1"])
        for host in hosts { try host.waitForCached("forced", app, "Marker", 1) }
        #expect(office.cached("default", app) == nil)
        #expect(lab1.cached("forced", app)?["Theme"] == "dark")

        // read and list show what etcd holds; delete takes the host's value away again.
        #expect(try admin(cluster, ["read", "-forced", app, "Theme"]).standardOutput == "dark\n")
        let listed = try admin(cluster, ["list"]).standardOutput
        #expect(listed.contains("group lab default com.example.App revision "))
        #expect(listed.contains("host \(office.machineID) forced com.example.App revision "))
        try admin(cluster, ["delete", "-forced", "-host", office.machineID, app])
        try office.waitForCached("forced", app, "Theme", "dark")

        // Administrators writing the same domain at once never lose each other's change.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            do {
                try admin(cluster, ["write", "-default", app, "Writer\(index)", "-int", "\(index)"])
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        for index in 0..<4 { try lab2.waitForCached("default", app, "Writer\(index)", .integer(.init(Int64(index)))) }
    }

    @Test func hostsKeepThePolicyThroughMemberLossAndConvergeAfterStopsAndCompaction() throws {
        let cluster = try EtcdCluster()
        let steady = try FleetHost(settings: FleetHost.settings(cluster))
        let stopped = try FleetHost(settings: FleetHost.settings(cluster))
        for host in [steady, stopped] { try host.start() }
        try admin(cluster, ["write", "-forced", app, "Step", "-int", "1"])
        for host in [steady, stopped] { try host.waitForCached("forced", app, "Step", 1) }

        // One member killed: nothing is lost, changes go on reaching every host.
        cluster.kill(0)
        try admin(cluster, ["write", "-forced", app, "Step", "-int", "2"])
        for host in [steady, stopped] { try host.waitForCached("forced", app, "Step", 2) }

        // No quorum: hosts keep the cached policy and still answer; they converge once quorum is back.
        cluster.kill(1)
        #expect(try steady.defaults(["explain", app, "Step"]).standardOutput.hasPrefix("Step = 2 from fleet-managed"))
        try cluster.start(0)
        try cluster.start(1)
        try cluster.waitUntilHealthy()
        try admin(cluster, ["write", "-forced", app, "Step", "-int", "3"])
        for host in [steady, stopped] { try host.waitForCached("forced", app, "Step", 3) }

        // A host stopped during 100 changes resumes from its revision.
        stopped.stop()
        for step in 4...103 { try admin(cluster, ["write", "-forced", app, "Step", "-int", "\(step)"]) }
        try stopped.start()
        try stopped.waitForCached("forced", app, "Step", 103)
        #expect(!stopped.log.contains("compacted"))

        // Stopped again while history is compacted away: it reads everything once and converges.
        stopped.stop()
        try admin(cluster, ["write", "-forced", app, "Step", "-int", "104"])
        try admin(cluster, ["write", "-default", app, "Extra", "yes"])
        let status = try cluster.control(["endpoint", "status", "-w", "json"]).standardOutput
        let revision = try #require(status.firstMatch(of: /"revision":(\d+)/).map { String($0.1) })
        try cluster.control(["compact", revision])
        try stopped.start()
        try stopped.waitForCached("forced", app, "Step", 104)
        try stopped.waitForCached("default", app, "Extra", "yes")
        #expect(stopped.log.contains("compacted"))
        try steady.waitForCached("forced", app, "Step", 104)
    }

    @Test func corruptOversizedDeepAndMisnamedValuesAreRefusedAndTheLastGoodStays() throws {
        let cluster = try EtcdCluster()
        let host = try FleetHost(settings: FleetHost.settings(cluster, extra: ["FleetMaxValueBytes": 2048]))
        try host.start()
        try admin(cluster, ["write", "-forced", app, "Good", "yes"])
        try host.waitForCached("forced", app, "Good", "yes")
        let key = "/preferences/managed/all/forced/\(app)"

        try cluster.control(["put", key, "this is not a property list {"])
        try waitUntil("the refusal of the corrupt value") { host.log.contains("refused etcd key \(key) at revision") }
        let large =
            "<plist><dict><key>Big</key><string>" + String(repeating: "x", count: 4000) + "</string></dict></plist>"
        try cluster.control(["put", key, large])
        try waitUntil("the refusal of the large value") { host.log.contains("more than the limit of 2048") }
        let deep =
            "<plist>" + String(repeating: "<array>", count: 80) + String(repeating: "</array>", count: 80) + "</plist>"
        try cluster.control(["put", "/preferences/managed/all/default/com.example.Deep", deep])
        try waitUntil("the refusal of the deep value") {
            host.log.contains("/preferences/managed/all/default/com.example.Deep")
        }
        try cluster.control(["put", "/preferences/managed/all/forced/bad..name", "<plist><dict/></plist>"])
        try waitUntil("the refusal of the bad domain name") { host.log.contains("bad..name") }
        #expect(host.cached("forced", app) == ["Good": "yes"])
        #expect(host.cached("default", "com.example.Deep") == nil)
        #expect(!FileManager.default.fileExists(atPath: host.preferences + "/Fleet/forced/bad..name.plist"))

        // The next good value applies.
        try cluster.control(["put", key, "<plist><dict><key>Good</key><string>again</string></dict></plist>"])
        try host.waitForCached("forced", app, "Good", "again")
    }

    /// The inodes of the TCP and UDP sockets of this network namespace.
    static func networkSocketInodes() -> Set<String> {
        var inodes = Set<String>()
        for table in ["tcp", "tcp6", "udp", "udp6"] {
            // Read to the end: procfs files report no size, and a reader that trusts the size stops early.
            let handle = FileHandle(forReadingAtPath: "/proc/net/\(table)")
            let text = String(decoding: handle?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            try? handle?.close()
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 9 { inodes.insert(String(fields[9])) }
            }
        }
        return inodes
    }

    /// The inodes of a process's open sockets.
    static func socketInodes(of pid: Int32) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(
            entries.compactMap { entry in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
    }

    @Test func withoutFleetSettingsPrefsdOpensNoNetworkConnection() throws {
        let host = try FleetHost(settings: [:])
        try host.start()
        #expect(try host.defaults(["write", app, "Key", "value"]).status == 0)
        #expect(try host.defaults(["explain", app, "Key"]).standardOutput.hasPrefix("Key = value from user"))
        let pid = try #require(host.process?.pid)
        #expect(Self.socketInodes(of: pid).isDisjoint(with: Self.networkSocketInodes()))
        #expect(!FileManager.default.fileExists(atPath: host.preferences + "/Fleet"))

        // The same check finds the connection of a host that is in a fleet, so it can fail.
        let cluster = try EtcdCluster()
        let joined = try FleetHost(settings: FleetHost.settings(cluster))
        try joined.start()
        try admin(cluster, ["write", "-forced", app, "Key", "managed"])
        try joined.waitForCached("forced", app, "Key", "managed")
        let joinedPID = try #require(joined.process?.pid)
        #expect(!Self.socketInodes(of: joinedPID).isDisjoint(with: Self.networkSocketInodes()))
    }
}
