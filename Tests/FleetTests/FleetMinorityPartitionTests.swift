// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// A member of the cluster cut off from the other two by a real partition (docs/FLEET.md, "Failure behaviour"): the
/// member and one host run in a network namespace whose link is set down, so the member keeps answering the host
/// beside it but has no leader, and hosts outside lose the member without its connections being closed.
extension FleetClusterTests {
    @Test(.enabled(if: NetworkNamespace.isAvailable, "needs root and ip netns for a real partition"))
    func aMinorityMemberCutOffLosesItsHostsToTheMajorityAndItsOwnHostSaysItHasNoLeader() throws {
        let namespace = try NetworkNamespace()
        let cluster = try EtcdCluster(isolatedMemberNamespace: namespace)
        let isolated = cluster.endpoints[2]
        // Both hosts try the isolated member first, so that each watches it when the partition comes.
        let endpoints = PlistValue.array(([isolated] + cluster.endpoints.dropLast()).map(PlistValue.string))
        let settings: PlistDictionary = ["FleetEndpoints": endpoints, "FleetWatchCheckSeconds": .integer(1)]
        let inside = try FleetHost(settings: settings)
        let outside = try FleetHost(settings: settings)
        try inside.start(in: namespace)
        try outside.start()
        let administrator = Array(cluster.endpoints.dropLast())
        try admin(cluster, ["write", "-forced", "-wait", app, "Step", "-int", "1"])
        for host in [inside, outside] {
            try host.waitForCached("forced", app, "Step", 1)
            try waitUntil("\(host.machineID) watching the isolated member: \(host.log)") {
                try Self.status(of: host).contains("\nendpoint: \(isolated)\n")
            }
        }

        // Cut off: the majority goes on accepting changes. The host outside finds its member silent and moves to
        // the majority, which delivers them; the host inside still reaches its member, which answers but has no
        // leader, so the host says so and keeps the policy it has.
        try namespace.partition()
        for step in 2...4 {
            try adminAt(administrator, ["write", "-forced", app, "Step", "-int", "\(step)"])
        }
        try outside.waitForCached("forced", app, "Step", 4, timeout: .seconds(40))
        var status = try Self.status(of: outside)
        #expect(!status.contains("\nendpoint: \(isolated)\n"), "\(status)")
        try waitUntil("the host inside to say its member has no leader: \(inside.log)", timeout: .seconds(20)) {
            inside.log.contains("etcd member at \(isolated) has no leader")
        }
        try waitUntil("the host inside offline: \(status)", timeout: .seconds(20)) {
            status = try Self.status(of: inside)
            return status.hasPrefix("state: offline\n")
        }
        #expect(inside.cached("forced", app)?["Step"] == 1)
        #expect(try inside.defaults(["explain", app, "Step"]).standardOutput.hasPrefix("Step = 1 from fleet-managed"))

        // Healed: the member rejoins and catches up, and so does the host beside it.
        let healed = ContinuousClock.now
        try namespace.heal()
        try inside.waitForCached("forced", app, "Step", 4, timeout: .seconds(40))
        print(
            "minority partition: the host beside the isolated member had the changes \(ContinuousClock.now - healed) after healing"
        )
        try waitUntil("the host inside connected again: \(status)", timeout: .seconds(30)) {
            status = try Self.status(of: inside)
            return status.hasPrefix("state: connected\n")
        }
        try adminAt(administrator, ["write", "-forced", "-wait", app, "Step", "-int", "5"])
        for host in [inside, outside] { #expect(host.cached("forced", app)?["Step"] == 5) }
    }

    /// Runs `defaults fleet …` as an administrator against these endpoints only.
    @discardableResult
    func adminAt(_ endpoints: [String], _ arguments: [String]) throws -> BuiltProduct.Result {
        let result = try FleetHost.defaults.run(
            ["fleet"] + arguments, environment: ["PREFERENCES_FLEET_ENDPOINTS": endpoints.joined(separator: ",")])
        guard result.status == 0 else { throw TestFailure("defaults fleet \(arguments): \(result)") }
        return result
    }
}
