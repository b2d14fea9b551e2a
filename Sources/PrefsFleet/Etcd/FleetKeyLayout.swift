// SPDX-License-Identifier: Apache-2.0
package import PrefsDomain
import PrefsStore

/// Where managed domains live in etcd, under a configurable prefix (docs/FLEET.md, "Key layout"):
///
/// ```
/// <prefix>managed/all/<kind>/<domain>
/// <prefix>managed/group/<group>/<kind>/<domain>
/// <prefix>managed/host/<machine-id>/<kind>/<domain>
/// ```
///
/// `<kind>` is `forced` or `default`; each key holds one domain as a binary property list dictionary. A user's
/// roaming domains are `<prefix>users/<user>/<domain>`, each a ``RoamingDocument``. Each live host registers itself
/// at `<prefix>hosts/<machine-id>` (a ``FleetHostRecord``, on a lease).
package struct FleetKeyLayout: Sendable, Hashable {
    /// The prefix, always ending in `/`; `/preferences/` by default.
    package let prefix: String

    /// The default prefix.
    package static let defaultPrefix = "/preferences/"

    /// Creates a layout.
    /// - Parameter prefix: A prefix starting with `/`; a missing trailing `/` is added.
    /// - Throws: ``EtcdError`` with code `invalidArgument` for an empty prefix, one without a leading `/`, or one
    ///   with a control character.
    package init(prefix: String = defaultPrefix) throws(EtcdError) {
        guard prefix.hasPrefix("/"), !prefix.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else {
            throw EtcdError(
                .invalidArgument, "fleet prefix \"\(prefix)\" must start with / and hold no control characters")
        }
        self.prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// The prefix of every managed domain: what a host watches.
    package var managedPrefix: String { prefix + "managed/" }

    /// The key of one managed domain.
    package func key(target: FleetTarget, kind: FleetKind, domain: DomainName) -> String {
        managedPrefix + targetPath(target) + kind.rawValue + "/" + domain.rawValue
    }

    /// The prefix of every key of one target and kind, for listing.
    package func prefix(target: FleetTarget, kind: FleetKind) -> String {
        managedPrefix + targetPath(target) + kind.rawValue + "/"
    }

    /// The prefix of one user's roaming domains: what that user's hosts watch, and what their etcd user may write.
    package func roamingPrefix(user: String) -> String { prefix + "users/" + user + "/" }

    /// The key of one roaming user domain.
    package func roamingKey(user: String, domain: DomainName) -> String { roamingPrefix(user: user) + domain.rawValue }

    /// The prefix of the host registry.
    package var hostsPrefix: String { prefix + "hosts/" }

    /// The registry key of one host.
    package func hostKey(machineID: String) -> String { hostsPrefix + machineID }

    /// The machine id a registry key names, or `nil` when the key is not `<prefix>hosts/<machine-id>`.
    package func machineID(ofHostKey key: String) -> String? {
        guard key.hasPrefix(hostsPrefix) else { return nil }
        let machineID = String(key.dropFirst(hostsPrefix.count))
        return FleetTarget.isValidMachineID(machineID) ? machineID : nil
    }

    /// A managed key, taken apart.
    package struct ManagedKey: Sendable, Hashable {
        /// The hosts it applies to.
        package var target: FleetTarget
        /// Forced or default.
        package var kind: FleetKind
        /// The domain.
        package var domain: DomainName
    }

    /// Takes a key under ``managedPrefix`` apart.
    /// - Throws: ``EtcdError`` with code `invalidArgument` saying what is wrong: not under the prefix, an unknown
    ///   target or kind, an invalid group name, machine id or domain name.
    package func parse(_ key: String) throws(EtcdError) -> ManagedKey {
        guard key.hasPrefix(managedPrefix) else {
            throw EtcdError(.invalidArgument, "key \(key) is not under \(managedPrefix)")
        }
        let parts = key.dropFirst(managedPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        let target: FleetTarget
        let rest: ArraySlice<String>
        switch parts.first {
        case "all":
            target = .all
            rest = parts.dropFirst()
        case "group" where parts.count >= 2:
            guard FleetTarget.isValidGroupName(parts[1]) else {
                throw EtcdError(
                    .invalidArgument, "key \(key) names an invalid group (1-128 bytes of A-Z a-z 0-9 . _ -)")
            }
            target = .group(parts[1])
            rest = parts.dropFirst(2)
        case "host" where parts.count >= 2:
            guard FleetTarget.isValidMachineID(parts[1]) else {
                throw EtcdError(
                    .invalidArgument, "key \(key) names an invalid machine id (32 lowercase hexadecimal digits)")
            }
            target = .host(parts[1])
            rest = parts.dropFirst(2)
        default:
            throw EtcdError(.invalidArgument, "key \(key) names no target (all, group/<name> or host/<machine-id>)")
        }
        guard rest.count == 2, let kind = FleetKind(rawValue: rest[rest.startIndex]) else {
            throw EtcdError(.invalidArgument, "key \(key) must end in forced/<domain> or default/<domain>")
        }
        let domain: DomainName
        do {
            domain = try DomainName(rest[rest.startIndex + 1])
        } catch {
            throw EtcdError(.invalidArgument, "key \(key) names an invalid domain: \(error.message)")
        }
        return ManagedKey(target: target, kind: kind, domain: domain)
    }

    private func targetPath(_ target: FleetTarget) -> String {
        switch target {
        case .all: "all/"
        case .group(let name): "group/\(name)/"
        case .host(let machineID): "host/\(machineID)/"
        }
    }
}
