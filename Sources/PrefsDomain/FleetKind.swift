// SPDX-License-Identifier: Apache-2.0
/// Whether a managed domain is enforced or a default the user may override: the fleet's half of ``DomainScope``
/// (its two fleet scopes), as etcd's key layout and `defaults fleet` name it.
package enum FleetKind: String, Sendable, Hashable, CaseIterable {
    /// The user cannot override it (`objectIsForced` is true): ``DomainScope/fleetForced``.
    case forced
    /// Searched just above the registration defaults; the user's own value overrides it:
    /// ``DomainScope/fleetDefault``.
    case `default`

    /// The kind of a fleet scope; `nil` for the others.
    package init?(_ scope: DomainScope) {
        switch scope {
        case .fleetForced: self = .forced
        case .fleetDefault: self = .default
        case .user, .byHost, .system, .forced, .shipped: return nil
        }
    }

    /// The scope of this kind's layer.
    package var scope: DomainScope {
        switch self {
        case .forced: .fleetForced
        case .default: .fleetDefault
        }
    }
}
