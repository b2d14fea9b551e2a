// SPDX-License-Identifier: Apache-2.0
/// Where a domain's file lives, and whether the store may write it.
public enum DomainScope: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The user's domain: `<prefs>/<domain>.plist`. Writable.
    case user
    /// The user's domain for this machine only (`defaults -currentHost`):
    /// `<prefs>/ByHost/<domain>.<machine-id>.plist`. Writable.
    case byHost
    /// The administrator's any-user layer: `<system>/<domain>.plist`. Read-only.
    case system
    /// The administrator's enforced layer: `<system>/forced/<domain>.plist`. Read-only.
    case forced
    /// The registration defaults a package ships: `<domains>/<domain>.plist`. Read-only.
    case shipped
    /// The fleet administrator's enforced layer, mirrored from etcd by prefsd: `<fleet>/forced/<domain>.plist`.
    /// Searched after the local forced layer; read-only (docs/FLEET.md).
    case fleetForced
    /// The fleet administrator's defaults, mirrored from etcd by prefsd: `<fleet>/default/<domain>.plist`.
    /// Searched just above the registration defaults; read-only (docs/FLEET.md).
    case fleetDefault

    /// True for the scopes the store writes: ``user`` and ``byHost``.
    public var isWritable: Bool { self == .user || self == .byHost }

    /// True for the scopes whose values no write can override: ``forced`` and ``fleetForced``.
    public var isForced: Bool { self == .forced || self == .fleetForced }

    /// True for the scopes mirrored from the fleet: ``fleetForced`` and ``fleetDefault``.
    public var isFleet: Bool { self == .fleetForced || self == .fleetDefault }

    public var description: String { rawValue }
}
