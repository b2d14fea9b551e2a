// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

/// Ten real prefsd hosts on one real three-member etcd cluster, each with a subscriber: every one of 200 managed
/// changes reaches every host, in order, and the time it takes is measured (docs/FLEET.md, "Propagation").
///
/// The figures are printed, not asserted: speed is checked by benchmarks, and this suite runs beside the rest of
/// the tests. What is asserted is that nothing is lost or reordered.
@Suite(.timeLimit(.minutes(3))) struct FleetPropagationTests {
    let app = "com.example.Propagation"
    static let hostCount = 10
    static let changeCount = 200

    @Test func everyManagedChangeReachesTenHostsInOrder() throws {
        let cluster = try EtcdCluster()
        let hosts = try (0..<Self.hostCount).map { _ in try FleetHost(settings: FleetHost.settings(cluster)) }
        for host in hosts { try host.start() }

        let arrivals = PropagationArrivals(hostCount: Self.hostCount)
        let subscriptions = try arrivals.subscribe(hosts, app: app)
        defer { for subscription in subscriptions { subscription.cancel() } }

        var latencies: [Duration] = []
        var writeDurations: [Duration] = []
        for step in 1...Int64(Self.changeCount) {
            let (command, arrived) = try arrivals.write(
                step, app: app, cluster: cluster, hosts: hosts, timeout: .seconds(20))
            writeDurations.append(command)
            latencies += arrived
        }

        #expect(arrivals.outOfOrder.isEmpty, "\(arrivals.outOfOrder)")
        for host in 0..<Self.hostCount {
            #expect(arrivals.count(host: host) == Self.changeCount, "host \(host) saw \(arrivals.count(host: host))")
            // The cache files follow the events (prefsd tells its subscribers first, then writes them).
            try hosts[host].waitForCached(
                "forced", app, "Step", .integer(.init(Int64(Self.changeCount))), timeout: .seconds(5))
        }
        #expect(latencies.count == Self.hostCount * Self.changeCount)

        let percentile = PropagationArrivals.percentile
        print(
            "fleet propagation, \(Self.changeCount) changes to \(Self.hostCount) hosts (\(latencies.count) events), "
                + "from the start of `defaults fleet write` to each host's subscriber: p50 \(percentile(latencies, 0.5)), "
                + "p99 \(percentile(latencies, 0.99)), max \(percentile(latencies, 1)); the command alone: p50 "
                + "\(percentile(writeDurations, 0.5)), p99 \(percentile(writeDurations, 0.99))")
    }
}
