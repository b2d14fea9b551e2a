// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `SIGHUP` reloads a host's fleet settings without a restart (docs/FLEET.md, "Reloading the settings"): a host
/// started with a wrong endpoint joins once the endpoint is fixed, a host moved to another group holds that group's
/// policy, and a client subscribed to prefsd all along hears each change.
extension FleetClusterTests {
    @Test func sighupReloadsTheFleetSettingsWithoutDroppingSubscribers() throws {
        let cluster = try EtcdCluster(size: 1)
        try admin(cluster, ["write", "-forced", "-group", "lab", app, "Theme", "lab"])
        try admin(cluster, ["write", "-forced", "-group", "office", app, "Theme", "office"])
        let unreachable = "http://127.0.0.1:\(try freeLoopbackPorts(1)[0])"
        let host = try FleetHost(settings: [
            "FleetEndpoints": .array([.string(unreachable)]), "FleetGroups": .array(["lab"]),
        ])
        try host.start()
        let process = try #require(host.process)
        try waitUntil("the host's failure to reach \(unreachable): \(host.log)") {
            try Self.status(of: host).contains("last error: ")
        }

        let client = try PrefsBlockingClient(socketPath: host.socketPath, clientName: "reload test")
        let seen = Mutex<[PlistValue?]>([])
        let subscription = try client.subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: app)))) { event in
            if case .changes(let changes, _)? = event {
                seen.withLock { $0 += changes.filter { $0.key == "Theme" }.map(\.new) }
            }
        }
        defer { subscription.cancel() }

        // The endpoint fixed and SIGHUP: the host joins, and the subscriber hears the group's policy.
        #expect(try host.defaults(["write", "prefsd", "FleetEndpoints", "-array", cluster.endpoints[0]]).status == 0)
        kill(process.pid, SIGHUP)
        try host.waitForCached("forced", app, "Theme", "lab")
        try waitUntil("the subscriber hears lab") { seen.withLock { $0.last == "lab" } }
        try waitUntil("host status connected: \(host.log)") {
            try Self.status(of: host).hasPrefix("state: connected\n")
        }
        #expect(host.log.contains("setting changed: FleetEndpoints \(unreachable) -> \(cluster.endpoints[0])"))

        // Moved to another group: its policy replaces the old group's, and the registry shows the new group.
        #expect(try host.defaults(["write", "prefsd", "FleetGroups", "-array", "office"]).status == 0)
        kill(process.pid, SIGHUP)
        try host.waitForCached("forced", app, "Theme", "office")
        try waitUntil("the subscriber hears office") { seen.withLock { $0.last == "office" } }
        #expect(try Self.status(of: host).contains("\ngroups: office\n"))
        try waitUntil("the registry lists the host in group office") {
            let hosts = try hostsDocument(cluster).hosts
            return hosts[host.machineID]?["groups"] == .array(["office"])
        }
        #expect(host.log.contains("setting changed: FleetGroups lab -> office"))

        // What only a restart changes says so; a setting that cannot be used is refused and the fleet goes on.
        #expect(
            try host.defaults(["write", "prefsd", "FleetRoamingDomains", "-array", "com.example.Notes"]).status == 0)
        #expect(
            try host.defaults(["write", "prefsd", "FleetPasswordFile", host.directory.file("absent")]).status == 0)
        #expect(try host.defaults(["write", "prefsd", "FleetUser", "someone"]).status == 0)
        kill(process.pid, SIGHUP)
        try waitUntil("the refusal of the missing password file: \(host.log)") {
            host.log.contains("fleet reload refused: ")
        }
        try admin(cluster, ["write", "-forced", "-group", "office", app, "Theme", "late"])
        try host.waitForCached("forced", app, "Theme", "late")
        #expect(try host.defaults(["delete", "prefsd", "FleetPasswordFile"]).status == 0)
        #expect(try host.defaults(["delete", "prefsd", "FleetUser"]).status == 0)
        kill(process.pid, SIGHUP)
        try waitUntil("the roaming change for the next start: \(host.log)") {
            host.log.contains(
                "setting changed: FleetRoamingDomains none -> com.example.Notes (takes effect at the next start)")
        }
        #expect(process.isRunning)
    }
}
