// SPDX-License-Identifier: Apache-2.0

/// What travels through a connection's pipeline besides frames, as an inbound user event.
enum ConnectionEvent: Sendable, Hashable {
    /// From the server when the daemon stops: finish the request in progress, then close with `shuttingDown`.
    case shutdown
    /// From the server when the connection table is full and this idle connection is the one to close: finish the
    /// request in progress, if one started meanwhile, then close with `limitExceeded` (`maxConnections`).
    case evict
    /// From the request handler as it starts closing the connection: nothing more may be written after the
    /// `closing` event, so subscriptions end now.
    case closing
}
