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

    /// When each host's subscriber saw each value of `Step`, and any value that came after a later one.
    final class Arrivals: Sendable {
        private struct State {
            var seen: [[Int64: ContinuousClock.Instant]] = Array(repeating: [:], count: hostCount)
            var outOfOrder: [String] = []
        }
        private let state = Mutex(State())

        func record(host: Int, step: Int64, at instant: ContinuousClock.Instant) {
            state.withLock { state in
                if let latest = state.seen[host].keys.max(), step <= latest {
                    state.outOfOrder.append("host \(host): \(step) after \(latest)")
                }
                state.seen[host][step] = instant
            }
        }

        func instant(host: Int, step: Int64) -> ContinuousClock.Instant? { state.withLock { $0.seen[host][step] } }
        func count(host: Int) -> Int { state.withLock { $0.seen[host].count } }
        var outOfOrder: [String] { state.withLock { $0.outOfOrder } }
    }

    @Test func everyManagedChangeReachesTenHostsInOrder() throws {
        let cluster = try EtcdCluster()
        let hosts = try (0..<Self.hostCount).map { _ in try FleetHost(settings: FleetHost.settings(cluster)) }
        for host in hosts { try host.start() }

        let arrivals = Arrivals()
        var clients: [PrefsBlockingClient] = []
        var subscriptions: [PrefsBlockingClient.Subscription] = []
        defer { for subscription in subscriptions { subscription.cancel() } }
        for (index, host) in hosts.enumerated() {
            let client = try PrefsBlockingClient(socketPath: host.socketPath, clientName: "propagation \(index)")
            clients.append(client)
            let filter = WireSubscriptionFilter(.effective(WireSearchList(app: app)), keys: .key("Step"))
            subscriptions.append(
                try client.subscribe(filter) { event in
                    guard case .changes(let changes, _)? = event else { return }
                    let now = ContinuousClock.now
                    for change in changes {
                        if case .integer(let step)? = change.new, let value = step.int64Value {
                            arrivals.record(host: index, step: value, at: now)
                        }
                    }
                })
        }

        let environment = ["PREFERENCES_FLEET_ENDPOINTS": cluster.endpoints.joined(separator: ",")]
        var latencies: [Duration] = []
        var writeDurations: [Duration] = []
        for step in 1...Int64(Self.changeCount) {
            // From the start of the administrator's command: its own run is part of what a change costs.
            let started = ContinuousClock.now
            let result = try FleetHost.defaults.run(
                ["fleet", "write", "-forced", app, "Step", "-int", "\(step)"], environment: environment)
            guard result.status == 0 else { throw TestFailure("defaults fleet write Step \(step): \(result)") }
            writeDurations.append(ContinuousClock.now - started)
            try waitUntil("step \(step) on every host", timeout: .seconds(20)) {
                (0..<Self.hostCount).allSatisfy { arrivals.instant(host: $0, step: step) != nil }
            }
            for host in 0..<Self.hostCount {
                if let arrived = arrivals.instant(host: host, step: step) { latencies.append(arrived - started) }
            }
        }

        #expect(arrivals.outOfOrder.isEmpty, "\(arrivals.outOfOrder)")
        for host in 0..<Self.hostCount {
            #expect(arrivals.count(host: host) == Self.changeCount, "host \(host) saw \(arrivals.count(host: host))")
            // The cache files follow the events (prefsd tells its subscribers first, then writes them).
            try hosts[host].waitForCached(
                "forced", app, "Step", .integer(.init(Int64(Self.changeCount))), timeout: .seconds(5))
        }
        #expect(latencies.count == Self.hostCount * Self.changeCount)

        let sorted = latencies.sorted()
        let writes = writeDurations.sorted()
        func percentile(_ values: [Duration], _ fraction: Double) -> String {
            let index = min(values.count - 1, Int((Double(values.count) * fraction).rounded(.up)) - 1)
            let milliseconds =
                Double(values[max(0, index)].components.attoseconds) / 1e15
                + Double(values[max(0, index)].components.seconds) * 1000
            return String(format: "%.1f ms", milliseconds)
        }
        print(
            "fleet propagation, \(Self.changeCount) changes to \(Self.hostCount) hosts (\(latencies.count) events), "
                + "from the start of `defaults fleet write` to each host's subscriber: p50 \(percentile(sorted, 0.5)), "
                + "p99 \(percentile(sorted, 0.99)), max \(percentile(sorted, 1)); the command alone: p50 "
                + "\(percentile(writes, 0.5)), p99 \(percentile(writes, 0.99))")
    }
}
