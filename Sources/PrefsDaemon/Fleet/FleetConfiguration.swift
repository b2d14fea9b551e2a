// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsFleet
import Synchronization

/// The fleet settings in force, which a reload (`SIGHUP`) may replace without a restart (docs/FLEET.md, "Reloading
/// the settings"): ``FleetService`` and ``FleetHostService`` read them each time they connect, and a replacement
/// signalled on ``changes`` makes them connect again with the new ones, while prefsd goes on serving the cached
/// policy to its clients.
///
/// Joining or leaving a fleet, and the roaming domains, take effect at the next start.
package final class FleetConfiguration: Sendable {
    private let settings: Mutex<FleetSettings>
    /// Signalled each time the settings are replaced.
    let changes = ChangeSignal()

    package init(_ settings: FleetSettings) {
        self.settings = Mutex(settings)
    }

    /// How many times the settings were replaced.
    package var generation: UInt64 { changes.generation }

    /// The settings now.
    package var current: FleetSettings { settings.withLock { $0 } }

    /// What a reload would change.
    package struct Changes: Equatable {
        /// One line per setting that changes now: `FleetGroups web -> web,eu`.
        package var applied: [String] = []
        /// One line per setting that changes only at the next start.
        package var atNextStart: [String] = []
    }

    /// Replaces the settings with `new`, except what changes only at the next start (the roaming domains and
    /// user), and signals ``changes`` when anything changed.
    /// - Returns: What changed.
    @discardableResult
    package func replace(with new: FleetSettings) -> Changes {
        let (changes, replaced) = settings.withLock { settings in
            let changes = Self.changes(from: settings, to: new)
            guard !changes.applied.isEmpty else { return (changes, false) }
            var kept = new
            kept.roamingDomains = settings.roamingDomains
            kept.roamingUser = settings.roamingUser
            settings = kept
            return (changes, true)
        }
        if replaced { self.changes.signal() }
        return changes
    }

    /// The changes from `old` to `new`, each as `<setting> <old> -> <new>` (a password only as "changed").
    package static func changes(from old: FleetSettings, to new: FleetSettings) -> Changes {
        var changes = Changes()
        func compare(_ name: String, _ before: String, _ after: String, atNextStart: Bool = false) {
            guard before != after else { return }
            let line = "\(name) \(before) -> \(after)"
            if atNextStart { changes.atNextStart.append(line) } else { changes.applied.append(line) }
        }
        func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ",") }
        compare("FleetEndpoints", list(old.endpoints.map(\.description)), list(new.endpoints.map(\.description)))
        compare("FleetPrefix", old.layout.prefix, new.layout.prefix)
        compare("FleetGroups", list(old.groups), list(new.groups))
        compare("FleetMaxValueBytes", "\(old.maxValueBytes)", "\(new.maxValueBytes)")
        compare("FleetUser", old.credentials?.user ?? "none", new.credentials?.user ?? "none")
        if old.credentials?.user == new.credentials?.user, old.credentials?.password != new.credentials?.password {
            changes.applied.append("FleetPasswordFile: the password changed")
        }
        compare("FleetCAFile", old.tls?.configuration.caFile ?? "none", new.tls?.configuration.caFile ?? "none")
        compare("FleetCRLFile", old.tls?.configuration.crlFile ?? "none", new.tls?.configuration.crlFile ?? "none")
        compare(
            "FleetCertificateFile", old.tls?.configuration.certificateFile ?? "none",
            new.tls?.configuration.certificateFile ?? "none")
        compare("FleetKeyFile", old.tls?.configuration.keyFile ?? "none", new.tls?.configuration.keyFile ?? "none")
        if let before = old.tls, let after = new.tls, before.configuration == after.configuration,
            before.fingerprint != after.fingerprint
        {
            changes.applied.append("TLS files: the certificates, revocation lists or the key were renewed")
        }
        compare("FleetHostTTL", "\(old.hostTTL)", "\(new.hostTTL)")
        compare("FleetHostName", old.hostName, new.hostName)
        compare("FleetWatchCheckSeconds", "\(old.watchCheckInterval)", "\(new.watchCheckInterval)")
        compare(
            "FleetRoamingDomains", list(old.roamingDomains.map(\.rawValue)), list(new.roamingDomains.map(\.rawValue)),
            atNextStart: true)
        compare("FleetRoamingUser", old.roamingUser, new.roamingUser, atNextStart: true)
        return changes
    }
}
