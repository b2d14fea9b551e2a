// SPDX-License-Identifier: Apache-2.0
/// The search-list layer a value came from, in `getEffective` provenance (DESIGN §3, first hit wins, in this
/// order).
public enum WireLayer: String, Sendable, Hashable, CaseIterable {
    /// The administrator's forced layer, for the app or the global domain; such a value cannot be changed.
    case forced
    /// The fleet's forced layer (mirrored from etcd), for the app or the global domain; searched after ``forced``.
    case fleetForced
    /// The volatile argument domain of one process; the server never reports it (it lives in the client).
    case argument
    /// The application's own domain (by-host, then plain).
    case app
    /// A suite domain (by-host, then plain), in the order the search list names them.
    case suite
    /// The global domain (by-host, then plain).
    case global
    /// The administrator's system layer, for the app or the global domain.
    case system
    /// The fleet's defaults (mirrored from etcd), for the app or the global domain; searched after ``system``.
    case fleetDefault
    /// Registration defaults: shipped domain files (the server) or `register(defaults:)` (the client process).
    case registration
}
