// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// A real network partition of a managed host (docs/FLEET.md, "Failure behaviour"): the host runs in a network
/// namespace whose link is set down, so its watch connection falls silent without being closed, as when a cable is
/// pulled or a switch fails.
extension FleetClusterTests {
    @Test(.enabled(if: NetworkNamespace.isAvailable, "needs root and ip netns for a real partition"))
    func aPartitionedHostNoticesKeepsThePolicyAndConvergesWhenItIsBack() throws {
        let cluster = try EtcdCluster(listensOnAllAddresses: true)
        let namespace = try NetworkNamespace()
        let host = try FleetHost(settings: [
            "FleetEndpoints": .array(cluster.clientPorts.map { .string("http://\(namespace.outerAddress):\($0)") })
        ])
        try host.start(in: namespace)
        try admin(cluster, ["write", "-forced", app, "Step", "-int", "1"])
        try host.waitForCached("forced", app, "Step", 1)
        try waitUntil("host status connected") { try Self.status(of: host).hasPrefix("state: connected\n") }

        // Cut off while changes are made: the silent watch is found dead (TCP keepalive), the host reports it is
        // offline and keeps enforcing the last policy it saw.
        try namespace.partition()
        for step in 2...6 { try admin(cluster, ["write", "-forced", app, "Step", "-int", "\(step)"]) }
        try waitUntil("host status offline: \(host.log)", timeout: .seconds(40)) {
            try Self.status(of: host).hasPrefix("state: offline\n")
        }
        #expect(host.cached("forced", app)?["Step"] == 1)
        #expect(try host.defaults(["explain", app, "Step"]).standardOutput.hasPrefix("Step = 1 from fleet-managed"))

        // Back on the network: it catches up from the revision it applied last.
        try namespace.heal()
        try host.waitForCached("forced", app, "Step", 6, timeout: .seconds(40))
        try waitUntil("host status connected again") { try Self.status(of: host).hasPrefix("state: connected\n") }
    }
}
