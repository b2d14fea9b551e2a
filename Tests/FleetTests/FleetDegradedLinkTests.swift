// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import Testing

/// Hosts behind a slow, lossy link to etcd (docs/FLEET.md, "Failure behaviour"): five real prefsd hosts in a network
/// namespace whose link delays every packet by 200 ms each way and drops 5 % of them each way (``DegradedLink``).
/// Every change must reach every host, in order; the propagation is printed (speed is for benchmarks to judge).
@Suite(.timeLimit(.minutes(3))) struct FleetDegradedLinkTests {
    let app = "com.example.Degraded"
    static let hostCount = 5
    static let changeCount = 30

    @Test(
        .enabled(
            if: DegradedLink.isAvailable,
            "needs root, ip netns, iptables-legacy (Debian's iptables) and the kernel's NFQUEUE target"))
    func everyChangeReachesHostsBehindALinkWith200MillisecondsAndFivePercentLoss() throws {
        let cluster = try EtcdCluster(listensOnAllAddresses: true)
        let namespace = try NetworkNamespace()
        let link = try DegradedLink(namespace, delay: .milliseconds(200), loss: 0.05)
        defer { withExtendedLifetime(link) {} }
        let endpoints = cluster.clientPorts.map { PlistValue.string("http://\(namespace.outerAddress):\($0)") }
        let hosts = try (0..<Self.hostCount).map { _ in try FleetHost(settings: ["FleetEndpoints": .array(endpoints)]) }
        for host in hosts { try host.start(in: namespace) }

        // The link is as slow as asked: a connection to a member takes a round trip of at least 400 ms.
        let handshake = try roundTrip(in: namespace, to: namespace.outerAddress, port: cluster.clientPorts[0])
        #expect(handshake >= .milliseconds(390), "a TCP handshake across the link took \(handshake)")

        let arrivals = PropagationArrivals(hostCount: Self.hostCount)
        let subscriptions = try arrivals.subscribe(hosts, app: app)
        defer { for subscription in subscriptions { subscription.cancel() } }
        var latencies: [Duration] = []
        for step in 1...Int64(Self.changeCount) {
            latencies += try arrivals.write(step, app: app, cluster: cluster, hosts: hosts, timeout: .seconds(40))
                .arrivals
        }

        // The first change waits for the hosts' watches, made across the link: the rest are the steady state.
        #expect(arrivals.outOfOrder.isEmpty, "\(arrivals.outOfOrder)")
        for host in 0..<Self.hostCount {
            #expect(arrivals.count(host: host) == Self.changeCount, "host \(host) saw \(arrivals.count(host: host))")
            try hosts[host].waitForCached("forced", app, "Step", .integer(.init(Int64(Self.changeCount))))
        }
        let steady = Array(latencies.dropFirst(Self.hostCount))
        let percentile = PropagationArrivals.percentile
        print(
            "fleet propagation across 200 ms each way and 5 % loss each way, \(Self.changeCount) changes to "
                + "\(Self.hostCount) hosts: p50 \(percentile(steady, 0.5)), p99 \(percentile(steady, 0.99)), max "
                + "\(percentile(steady, 1)) (first change \(percentile(Array(latencies.prefix(Self.hostCount)), 1)))")
    }

    /// How long a TCP connection from inside `namespace` to `address`:`port` takes to be established.
    private func roundTrip(in namespace: NetworkNamespace, to address: String, port: Int) throws -> Duration {
        let measure = """
            import socket, sys, time
            started = time.monotonic()
            socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10).close()
            print(time.monotonic() - started)
            """
        let result = try BuiltProduct(path: NetworkNamespace.ip).run(
            ["netns", "exec", namespace.name, "/usr/bin/python3", "-c", measure, address, "\(port)"], environment: [:])
        let seconds = try #require(
            Double(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result)")
        return .milliseconds(Int(seconds * 1000))
    }
}
