// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import DefaultsCommand
import PrefsDomain
import PrefsFleet
import PrefsPOSIX
import PrefsPlist
import Synchronization

extension EtcdFleetAdministration {
    // The administrator's view of the fleet's registry (docs/FLEET.md, "Hosts"): which hosts are live, which have a
    // revision, which are behind and why.

    /// Reads the registry and the newest managed change.
    func roster(client: EtcdClient, layout: FleetKeyLayout) async throws(EtcdError) -> (FleetHostRoster, Int64) {
        let hosts = try await client.range(prefix: layout.hostsPrefix)
        var roster = FleetHostRoster(keyValues: hosts.keyValues, layout: layout)
        roster.newestManagedRevision = try await client.newestModRevision(prefix: layout.managedPrefix).newest
        return (roster, hosts.revision)
    }

    /// The text `fleet hosts` prints: a table, or a JSON object `{policyRevision, hosts: […]}`.
    func hostsListing(_ roster: FleetHostRoster, command: FleetCommand, now: Double) -> String {
        var rows = roster.rows(selecting: command.target ?? .all, now: now)
        if command.behindOnly { rows.removeAll { $0.behindRevisions == 0 } }
        switch command.hostsFormat {
        case .json:
            let hosts: [PlistValue] = rows.map { row in
                guard case .dictionary(var object) = row.record.jsonValue else { return row.record.jsonValue }
                object["machineID"] = .string(row.record.machineID)
                object["behindRevisions"] = .integer(PlistInteger(row.behindRevisions))
                if let seconds = row.behindSeconds { object["behindSeconds"] = .real(seconds) }
                return .dictionary(object)
            }
            let document: PlistValue = .dictionary([
                "policyRevision": .integer(PlistInteger(roster.policyRevision)), "hosts": .array(hosts),
            ])
            let bytes = (try? PlistSerialization.encodeJSON(document, pretty: true)) ?? Array("{}".utf8)
            return String(decoding: bytes, as: UTF8.self) + "\n"
        case .text:
            var table = [["HOST", "NAME", "GROUPS", "STATE", "APPLIED", "BEHIND", "LAST ERROR"]]
            for row in rows {
                let record = row.record
                let behind: String =
                    row.behindRevisions == 0
                    ? "-"
                    : "\(row.behindRevisions) rev" + (row.behindSeconds.map { ", \(Self.seconds($0))" } ?? "")
                let error = record.lastError.map { message in
                    record.lastErrorDate.map { "\(Self.seconds(now - $0)) ago: \(message)" } ?? message
                }
                table.append([
                    record.machineID, record.name, record.groups.isEmpty ? "-" : record.groups.joined(separator: ","),
                    record.state, String(record.appliedRevision), behind, error ?? "-",
                ])
            }
            var lines = Self.aligned(table)
            let behindCount = rows.count { $0.behindRevisions > 0 }
            lines.append(
                "policy revision \(roster.policyRevision); \(rows.count) \(rows.count == 1 ? "host" : "hosts")"
                    + (command.behindOnly ? " behind" : ", \(behindCount) behind"))
            for (key, problem) in roster.problems.sorted(by: { $0.key < $1.key }) {
                lines.append("unreadable registry entry \(key): \(problem)")
            }
            return lines.map { $0 + "\n" }.joined()
        }
    }

    /// What a wait found.
    struct WaitOutcome: Sendable {
        /// Whether every selected host had the revision in time.
        var complete: Bool
        /// One sentence: how many hosts have it after how long, and which are behind.
        var summary: String
    }

    /// Waits until every live host that `target` selects has applied `revision`, or `timeout` has passed: reads the
    /// registry, then watches it for the hosts' updates (and their leaving), reading it again when the watch breaks.
    func waitForHosts(
        revision: Int64, target: FleetTarget, timeout: Duration, client: EtcdClient, layout: FleetKeyLayout
    ) async throws(EtcdError) -> WaitOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + timeout
        let state = SharedRoster()
        while true {
            let hosts = try await client.range(prefix: layout.hostsPrefix)
            state.roster.withLock { $0 = FleetHostRoster(keyValues: hosts.keyValues, layout: layout) }
            if Self.isComplete(state.roster.withLock { $0 }, revision: revision, target: target)
                || clock.now >= deadline
            {
                break
            }
            let finished = await Self.watchUntilComplete(
                client: client, layout: layout, from: hosts.revision + 1, deadline: deadline, state: state
            ) { roster in Self.isComplete(roster, revision: revision, target: target) }
            if finished || clock.now >= deadline { break }
            // The watch broke: read the registry again after a short pause.
            do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
        }
        let elapsed = Self.seconds(clock.now - started)
        let roster = state.roster.withLock { $0 }
        let (total, behind) = roster.progress(toward: revision, selecting: target)
        let hosts = target == .all ? "hosts" : "hosts of \(target)"
        guard total > 0 else {
            return WaitOutcome(
                complete: false,
                summary: "no live \(target == .all ? "host" : "host of \(target)") is in the fleet's registry after "
                    + "\(elapsed): none has revision \(revision)")
        }
        var summary = "\(total - behind.count) of \(total) \(hosts) have revision \(revision) after \(elapsed)"
        for record in behind.prefix(10) {
            summary += "; host \(record.name) (\(record.machineID)) is behind at revision \(record.appliedRevision)"
            if let error = record.lastError { summary += ": \(error)" } else { summary += " (\(record.state))" }
        }
        if behind.count > 10 { summary += "; and \(behind.count - 10) more" }
        return WaitOutcome(complete: behind.isEmpty, summary: summary)
    }

    private static func isComplete(_ roster: FleetHostRoster, revision: Int64, target: FleetTarget) -> Bool {
        let (total, behind) = roster.progress(toward: revision, selecting: target)
        return total > 0 && behind.isEmpty
    }

    /// Watches the registry from `start`, applying each change to `state`, until `complete` holds (`true`), the
    /// deadline passes or the watch breaks (`false`).
    private static func watchUntilComplete(
        client: EtcdClient, layout: FleetKeyLayout, from start: Int64, deadline: ContinuousClock.Instant,
        state: SharedRoster, complete: @escaping @Sendable (FleetHostRoster) -> Bool
    ) async -> Bool {
        struct Complete: Error {}
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await client.watch(
                        prefix: layout.hostsPrefix, startRevision: start, endpoint: client.currentEndpoint
                    ) { message in
                        guard case .events(let events, _) = message else { return }
                        let roster = state.roster.withLock { roster in
                            for event in events {
                                switch event.kind {
                                case .put: roster.apply(put: event.keyValue, layout: layout)
                                case .delete: roster.apply(delete: event.keyValue.keyText, layout: layout)
                                }
                            }
                            return roster
                        }
                        if complete(roster) { throw Complete() }
                    }
                    return false
                } catch is Complete {
                    return true
                } catch {
                    client.advanceEndpoint()
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// The roster a wait and its watch share.
    final class SharedRoster: Sendable {
        let roster = Mutex(FleetHostRoster())
    }

    /// Seconds as `fleet hosts` and `fleet wait` print them: `0.3 s`, `12 s`, `4 min 2 s`.
    static func seconds(_ duration: Duration) -> String {
        let components = duration.components
        return seconds(Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }

    static func seconds(_ value: Double) -> String {
        let seconds = max(0, value)
        if seconds < 10 {
            let tenths = Int((seconds * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) s"
        }
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    /// Columns padded to their widest cell (the last one is not padded).
    private static func aligned(_ table: [[String]]) -> [String] {
        guard let columns = table.map(\.count).max() else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in table {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return table.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
