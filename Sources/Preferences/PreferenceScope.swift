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

    // The facade names the store's scopes without making the store part of its API: the same cases, by name, which
    // a test holds (every DomainScope has its PreferenceScope and back).

    /// The facade's name of a store scope.
    init(_ scope: DomainScope) {
        // Same names by construction (PreferenceScopeTests); `user` would only stand in for a scope added to the
        // store and not here, which that test fails on first.
        self = PreferenceScope(rawValue: scope.rawValue) ?? .user
    }

    /// The store's scope of this name.
    var storeScope: DomainScope {
        DomainScope(rawValue: rawValue) ?? .user
    }
}
