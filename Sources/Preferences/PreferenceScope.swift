// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// Where a persistent domain's values come from: the user's files, this machine's, or the administrator's and
/// packages' read-only layers.
public enum PreferenceScope: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The user's domain, `<prefs>/<domain>.plist`; what ``Preferences`` writes.
    case user
    /// The user's domain for this machine only (`defaults -currentHost`), `<prefs>/ByHost/<domain>.<machine-id>.plist`.
    case byHost
    /// The administrator's default for every user, `/etc/preferences/<domain>.plist`.
    case system
    /// The administrator's enforced value, `/etc/preferences/forced/<domain>.plist`; no write changes it.
    case forced
    /// The registration defaults a package ships, `/usr/share/preferences/domains/<domain>.plist`.
    case shipped
    /// The fleet administrator's enforced value, mirrored from etcd by prefsd into `<prefs>/Fleet/forced`; no write
    /// changes it.
    case fleetForced
    /// The fleet administrator's default, mirrored from etcd by prefsd into `<prefs>/Fleet/default`; the user's
    /// own value overrides it.
    case fleetDefault

    /// The name: `user`, `byHost`, `system`, `forced`, `shipped`, `fleetForced`, `fleetDefault`.
    public var description: String { rawValue }

    init(_ scope: DomainScope) {
        switch scope {
        case .user: self = .user
        case .byHost: self = .byHost
        case .system: self = .system
        case .forced: self = .forced
        case .shipped: self = .shipped
        case .fleetForced: self = .fleetForced
        case .fleetDefault: self = .fleetDefault
        }
    }

    var storeScope: DomainScope {
        switch self {
        case .user: .user
        case .byHost: .byHost
        case .system: .system
        case .forced: .forced
        case .shipped: .shipped
        case .fleetForced: .fleetForced
        case .fleetDefault: .fleetDefault
        }
    }
}
