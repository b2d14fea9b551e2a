// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization

/// When each host's subscriber saw each value of an app's `Step` key, and any value that came after a later one:
/// what the propagation tests measure and check.
final class PropagationArrivals: Sendable {
    private struct State {
        var seen: [[Int64: ContinuousClock.Instant]]
        var outOfOrder: [String] = []
    }
    private let state: Mutex<State>
    let hostCount: Int

    init(hostCount: Int) {
        self.hostCount = hostCount
        state = Mutex(State(seen: Array(repeating: [:], count: hostCount)))
    }

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

    /// Whether every host has seen `step`.
    func everyHostHas(_ step: Int64) -> Bool { (0..<hostCount).allSatisfy { instant(host: $0, step: step) != nil } }

    /// Subscribes to `app`'s effective `Step` on each host's prefsd, recording what arrives; cancel the
    /// subscriptions returned when done.
    func subscribe(_ hosts: [FleetHost], app: String) throws -> [PrefsBlockingClient.Subscription] {
        var subscriptions: [PrefsBlockingClient.Subscription] = []
        for (index, host) in hosts.enumerated() {
            let client = try PrefsBlockingClient(socketPath: host.socketPath, clientName: "propagation \(index)")
            let filter = WireSubscriptionFilter(.effective(WireSearchList(app: app)), keys: .key("Step"))
            subscriptions.append(
                try client.subscribe(filter) { [self] event in
                    guard case .changes(let changes, _)? = event else { return }
                    let now = ContinuousClock.now
                    for change in changes {
                        if case .integer(let step)? = change.new, let value = step.int64Value {
                            record(host: index, step: value, at: now)
                        }
                    }
                })
        }
        return subscriptions
    }

    /// Writes `step` to `app`'s forced `Step` with `defaults fleet write` against `cluster` and waits until every
    /// host has seen it; `hosts` are named in the failure.
    /// - Returns: How long the command ran, and the time from its start to each host's arrival.
    func write(
        _ step: Int64, app: String, cluster: EtcdCluster, hosts: [FleetHost], timeout: Duration
    ) throws -> (command: Duration, arrivals: [Duration]) {
        // From the start of the administrator's command: its own run is part of what a change costs.
        let started = ContinuousClock.now
        let result = try FleetHost.defaults.run(
            ["fleet", "write", "-forced", app, "Step", "-int", "\(step)"],
            environment: ["PREFERENCES_FLEET_ENDPOINTS": cluster.endpoints.joined(separator: ",")])
        guard result.status == 0 else { throw TestFailure("defaults fleet write Step \(step): \(result)") }
        let command = ContinuousClock.now - started
        try waitUntil("step \(step) on every host: \(hosts.map(\.log))", timeout: timeout) { everyHostHas(step) }
        return (command, (0..<hostCount).compactMap { instant(host: $0, step: step).map { $0 - started } })
    }

    /// The value at `fraction` (0.5 for the median) of `values`, sorted, in milliseconds with one decimal.
    static func percentile(_ values: [Duration], _ fraction: Double) -> String {
        let sorted = values.sorted()
        let value = sorted[max(0, min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))]
        let milliseconds = Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1000
        return String(format: "%.1f ms", milliseconds)
    }
}
