// SPDX-License-Identifier: Apache-2.0
package import PrefsDomain

/// The live hosts of a fleet as the registry shows them at one revision, and how far each is behind: what
/// `defaults fleet hosts` prints and `defaults fleet wait` waits on (docs/FLEET.md, "Hosts").
package struct FleetHostRoster: Sendable {
    /// The hosts, by machine id.
    package private(set) var hosts: [String: FleetHostRecord] = [:]
    /// Registry entries that are not host records (a hand-written key, say), each one sentence.
    package private(set) var problems: [String: String] = [:]
    /// The newest `mod_revision` of a managed key, as a read of the managed prefix found it (0: not read).
    package var newestManagedRevision: Int64 = 0

    package init() {}

    /// Creates a roster from a range read of ``FleetKeyLayout/hostsPrefix``.
    package init(keyValues: [EtcdKeyValue], layout: FleetKeyLayout) {
        for keyValue in keyValues { apply(put: keyValue, layout: layout) }
    }

    /// Records a put of a registry key.
    package mutating func apply(put keyValue: EtcdKeyValue, layout: FleetKeyLayout) {
        let key = keyValue.keyText
        guard let machineID = layout.machineID(ofHostKey: key) else {
            problems[key] = "\(key) is not a host key (\(layout.hostsPrefix)<machine-id>)"
            return
        }
        do {
            hosts[machineID] = try FleetHostRecord(json: keyValue.value, machineID: machineID)
            problems[key] = nil
        } catch {
            hosts[machineID] = nil
            problems[key] = error.message
        }
    }

    /// Records a delete of a registry key: the host left (its lease expired or was revoked).
    package mutating func apply(delete key: String, layout: FleetKeyLayout) {
        problems[key] = nil
        if let machineID = layout.machineID(ofHostKey: key) { hosts[machineID] = nil }
    }

    /// The newest managed change the fleet knows of: the newest a host reports, or that a managed key shows.
    package var policyRevision: Int64 {
        max(newestManagedRevision, hosts.values.map(\.policyRevision).max() ?? 0)
    }

    /// One host, and how far it is behind ``policyRevision``.
    package struct Row: Sendable, Hashable {
        /// The host's record.
        package var record: FleetHostRecord
        /// How many revisions it is behind (0: it holds every managed change).
        package var behindRevisions: Int64
        /// For how long it has been behind, in seconds: since the first host knew of a change this one lacks; `nil`
        /// when it is not behind, or no host reported when it learned of the change.
        package var behindSeconds: Double?
    }

    /// The hosts that `target` selects (every host for `.all`), ordered by name then machine id.
    /// - Parameter now: The time now, in seconds since 1970.
    package func rows(selecting target: FleetTarget = .all, now: Double) -> [Row] {
        let policy = policyRevision
        return hosts.values.filter { Self.selects(target, $0) }
            .sorted { ($0.name, $0.machineID) < ($1.name, $1.machineID) }
            .map { record in
                let behind = max(0, policy - record.appliedRevision)
                guard behind > 0 else { return Row(record: record, behindRevisions: 0, behindSeconds: nil) }
                let since = hosts.values.filter { $0.policyRevision > record.appliedRevision }.compactMap(\.policyDate)
                    .min()
                return Row(record: record, behindRevisions: behind, behindSeconds: since.map { max(0, now - $0) })
            }
    }

    /// How many selected hosts hold `revision`, and the selected hosts that do not.
    package func progress(
        toward revision: Int64, selecting target: FleetTarget = .all
    ) -> (total: Int, behind: [FleetHostRecord]) {
        let selected = hosts.values.filter { Self.selects(target, $0) }
        let behind = selected.filter { $0.appliedRevision < revision }
            .sorted { ($0.name, $0.machineID) < ($1.name, $1.machineID) }
        return (selected.count, behind)
    }

    /// Whether a target names a host: every host, a host in the group, or the host itself.
    private static func selects(_ target: FleetTarget, _ record: FleetHostRecord) -> Bool {
        switch target {
        case .all: true
        case .group(let name): record.groups.contains(name)
        case .host(let machineID): record.machineID == machineID
        }
    }
}
