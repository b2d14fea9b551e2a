// SPDX-License-Identifier: Apache-2.0
public import PrefsWire

/// What a subscription of ``PrefsBlockingClient`` delivers to its handler.
///
/// Apply ``Event/changes(_:origin:)`` to the subscription's snapshot in order; on ``Event/resync(_:)`` (the daemon's
/// queue for this client overflowed) replace everything with the new snapshot.
public enum PrefsSubscription {
    /// One thing that happened to the watched values.
    public enum Event: Sendable, Hashable {
        /// Keys changed, in one atomic operation: each with its old and new value.
        case changes([WireChange], origin: WireOrigin)
        /// Start again from this snapshot.
        case resync(WireSnapshot)
    }
}
