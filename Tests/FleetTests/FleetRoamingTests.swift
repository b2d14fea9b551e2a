// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

/// Roaming user domains on a real cluster (docs/FLEET.md, "Roaming user domains"): two real prefsd hosts of one
/// user edit the same domain while apart, and after both are back every key written on either side is present,
/// each with its newest value.
extension FleetClusterTests {
    static let editor = "com.example.Editor"

    /// The settings of a host of user ada that roams the editor's domain, on `endpoints`.
    static func roamingSettings(_ endpoints: [String], extra: PlistDictionary = [:]) -> PlistDictionary {
        var settings: PlistDictionary = [
            "FleetEndpoints": .array(endpoints.map(PlistValue.string)),
            "FleetRoamingDomains": [.string(editor)], "FleetRoamingUser": "ada",
        ]
        for (key, value) in extra { settings[key] = value }
        return settings
    }

    /// Writes with `defaults` on `host` (through its prefsd when it runs, else to its files).
    static func edit(_ host: FleetHost, _ arguments: [String]) throws {
        let result = try host.defaults(arguments)
        guard result.status == 0 else { throw TestFailure("defaults \(arguments) on \(host.machineID): \(result)") }
    }

    /// Waits until every host's editor domain holds `expected` for each of its keys (`nil`: absent).
    static func waitForRoamed(
        _ hosts: [FleetHost], _ expected: [String: String?], timeout: Duration = .seconds(30)
    )
        throws
    {
        for host in hosts {
            try waitUntil(
                "roamed values \(expected) on host \(host.machineID): "
                    + "\((try? host.defaults(["read", editor]).standardOutput) ?? "?"); log: \(host.log)",
                timeout: timeout
            ) {
                try expected.allSatisfy { key, value in try host.read(editor, key) == value }
            }
        }
    }

    @Test func roamingEditsMadeWhileAHostIsStoppedMergeKeyByKey() throws {
        let cluster = try EtcdCluster()
        let laptop = try FleetHost(settings: Self.roamingSettings(cluster.endpoints))
        let desktop = try FleetHost(settings: Self.roamingSettings(cluster.endpoints))
        try laptop.start()
        try desktop.start()

        try Self.edit(laptop, ["write", Self.editor, "Font", "Mono"])
        try Self.edit(laptop, ["write", Self.editor, "Obsolete", "-int", "1"])
        try Self.waitForRoamed([desktop], ["Font": "Mono", "Obsolete": "1"])

        // The desktop is shut down, and edited in its files meanwhile; then the laptop changes one of those keys.
        desktop.stop()
        try Self.edit(desktop, ["write", Self.editor, "Shared", "desktop"])
        try Self.edit(desktop, ["write", Self.editor, "OnlyDesktop", "desktop"])
        try Self.edit(desktop, ["delete", Self.editor, "Obsolete"])
        Thread.sleep(forTimeInterval: 0.05)
        try Self.edit(laptop, ["write", Self.editor, "Shared", "laptop"])
        try Self.edit(laptop, ["write", Self.editor, "OnlyLaptop", "laptop"])

        // Back: the desktop's edits are as old as its file, so the laptop's later one wins for Shared; nothing
        // either side wrote is lost, and the removal reaches the laptop.
        try desktop.start()
        try Self.waitForRoamed(
            [laptop, desktop],
            [
                "Font": "Mono", "Shared": "laptop", "OnlyDesktop": "desktop", "OnlyLaptop": "laptop",
                "Obsolete": nil,
            ])
        let stored = try cluster.control(["get", "/preferences/users/ada/\(Self.editor)", "--print-value-only"])
        #expect(stored.standardOutput.contains("OnlyDesktop"), "etcd holds the merged domain")
    }

    @Test(.enabled(if: NetworkNamespace.isAvailable, "needs root and ip netns for a real partition"))
    func aPartitionedHostKeepsEditingAndMergesWhenItIsBack() throws {
        let cluster = try EtcdCluster(listensOnAllAddresses: true)
        let namespace = try NetworkNamespace()
        let laptop = try FleetHost(settings: Self.roamingSettings(cluster.endpoints))
        let desktop = try FleetHost(
            settings: Self.roamingSettings(cluster.clientPorts.map { "http://\(namespace.outerAddress):\($0)" }))
        try laptop.start()
        try desktop.start(in: namespace)

        try Self.edit(laptop, ["write", Self.editor, "Font", "Mono"])
        try Self.edit(laptop, ["write", Self.editor, "Obsolete", "-int", "1"])
        try Self.waitForRoamed([desktop], ["Font": "Mono", "Obsolete": "1"])

        // The desktop's network goes away while its prefsd runs; its user goes on editing through it.
        try namespace.partition()
        try Self.edit(desktop, ["write", Self.editor, "Shared", "desktop"])
        try Self.edit(desktop, ["write", Self.editor, "OnlyDesktop", "desktop"])
        try Self.edit(desktop, ["delete", Self.editor, "Obsolete"])
        try waitUntil("the desktop to fail to push: \(desktop.log)") {
            desktop.log.contains("cannot push roaming changes; they wait on this host")
        }
        try Self.edit(laptop, ["write", Self.editor, "Later", "laptop"])
        try Self.edit(laptop, ["write", Self.editor, "Shared", "laptop"])
        try Self.edit(laptop, ["write", Self.editor, "OnlyLaptop", "laptop"])
        Thread.sleep(forTimeInterval: 0.05)
        try Self.edit(desktop, ["write", Self.editor, "Later", "desktop"])
        #expect(try laptop.read(Self.editor, "OnlyDesktop") == nil, "the partition holds")
        #expect(try desktop.read(Self.editor, "OnlyLaptop") == nil, "the partition holds")
        // Four changes wait (the last is counted once the push in flight has failed).
        try waitUntil("four roaming changes waiting on the desktop") {
            try Self.status(of: desktop).contains("roaming: \(Self.editor) as ada\nroaming changes waiting: 4\n")
        }

        // The network is back: each key takes its newest value on both hosts.
        try namespace.heal()
        try Self.waitForRoamed(
            [laptop, desktop],
            [
                "Font": "Mono", "Shared": "laptop", "Later": "desktop", "OnlyDesktop": "desktop",
                "OnlyLaptop": "laptop", "Obsolete": nil,
            ])
        try waitUntil("nothing left to push") {
            try Self.status(of: desktop).contains("roaming changes waiting: 0\n")
        }
    }

    @Test func roamingNeedsTheUsersReadWriteGrant() throws {
        let cluster = try EtcdCluster()
        let secrets = try TemporaryDirectory(prefix: "fleet-secrets")
        try cluster.enableAuthentication(
            host: ("ada-laptop", "host-secret"), admin: ("admin", "admin-secret"), roamingUser: "ada")
        let password = try Self.passwordFile(in: secrets, "ada-laptop", "host-secret")
        let credentials: PlistDictionary = ["FleetUser": "ada-laptop", "FleetPasswordFile": .string(password)]

        // With ada's grant, the host roams ada's domain.
        let laptop = try FleetHost(settings: Self.roamingSettings(cluster.endpoints, extra: credentials))
        try laptop.start()
        try Self.edit(laptop, ["write", Self.editor, "Font", "Mono"])
        try waitUntil("the push to etcd: \(laptop.log)") {
            try cluster.control(["get", "/preferences/users/ada/\(Self.editor)", "--print-value-only"])
                .standardOutput.contains("Mono")
        }

        // Roaming under another user's name is refused by etcd, and the host says so.
        var other = Self.roamingSettings(cluster.endpoints, extra: credentials)
        other["FleetRoamingUser"] = "bob"
        let intruder = try FleetHost(settings: other)
        try intruder.start()
        try Self.edit(intruder, ["write", Self.editor, "Font", "Comic"])
        try waitUntil("permission denied in the log: \(intruder.log)") {
            intruder.log.contains("permission denied") && intruder.log.contains("/preferences/users/bob/")
        }
        #expect(try cluster.control(["get", "--prefix", "/preferences/users/bob/"]).standardOutput.isEmpty)
        #expect(try intruder.read(Self.editor, "Font") == "Comic", "the host keeps its value")
    }

    @Test func aBurstOfLocalChangesRoamsAsFewPushes() throws {
        let cluster = try EtcdCluster()
        let laptop = try FleetHost(settings: Self.roamingSettings(cluster.endpoints))
        let desktop = try FleetHost(settings: Self.roamingSettings(cluster.endpoints))
        try laptop.start()
        try desktop.start()

        // A client sets one key 1,000 times as fast as prefsd answers: the other host ends at the last value, and
        // etcd saw a push per look at the domain, not one per change.
        let client = try PrefsBlockingClient(socketPath: laptop.socketPath, clientName: "burst")
        for count in 1...1000 {
            _ = try client.send(
                .set(
                    WireDomain(Self.editor), key: "Counter", value: .integer(.init(Int64(count))), expectedVersion: nil)
            )
        }
        try Self.waitForRoamed([desktop], ["Counter": "1000"])
        let stored = try cluster.control(["get", "/preferences/users/ada/\(Self.editor)", "-w", "json"]).standardOutput
        let version = try #require(stored.firstMatch(of: /"version":(\d+)/).flatMap { Int($0.1) })
        #expect(version < 1000, "etcd's key was written \(version) times for 1,000 changes")
    }
}
