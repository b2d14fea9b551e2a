// SPDX-License-Identifier: Apache-2.0
import PrefsWire

/// What a new connection is held to: the limits and timeouts in force when it was accepted. A reload of the
/// settings (`SIGHUP`) applies to connections accepted after it.
struct ConnectionPolicy: Sendable, Equatable {
    /// The limits enforced and reported by `hello`.
    var limits: WireLimits
    /// How long a connection may make no progress before it is closed; `nil` never.
    var idleTimeout: Duration?
    /// How long a frame may take to arrive whole.
    var frameTimeout: Duration
}

extension Duration {
    /// The duration as a NIO time amount, in nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
