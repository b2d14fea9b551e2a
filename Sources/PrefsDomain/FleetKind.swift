// SPDX-License-Identifier: Apache-2.0
/// Whether a managed domain is enforced or a default the user may override.
package enum FleetKind: String, Sendable, Hashable, CaseIterable {
    /// The user cannot override it (`objectIsForced` is true).
    case forced
    /// Searched just above the registration defaults; the user's own value overrides it.
    case `default`
}
