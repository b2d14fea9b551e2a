import PrefsPlist
import PrefsWire

/// A subscription to a domain's or an application's effective values: the snapshot it starts from, and the
/// events that follow it.
///
/// Apply ``Event/changes(_:origin:)`` to the snapshot in order; on ``Event/resync(_:)`` (the daemon's queue for this
/// client overflowed, or the client reconnected to a daemon that may have restarted) replace everything with the
/// new snapshot. The sequence ends when the subscription is cancelled or the client is closed.
public struct PrefsSubscription: Sendable, AsyncSequence {
    /// One thing that happened to the watched values.
    public enum Event: Sendable, Hashable {
        /// Keys changed, in one atomic operation: each with its old and new value.
        case changes([WireChange], origin: WireOrigin)
        /// Start again from this snapshot.
        case resync(WireSnapshot)
    }

    /// The values when the subscription started, and their sequence numbers.
    public let snapshot: WireSnapshot
    /// What is watched.
    public var filter: WireSubscriptionFilter { sink.filter }

    let sink: SubscriptionSink
    let stream: AsyncStream<Event>
    let client: PrefsClient

    /// The events, in order.
    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator {
        stream.makeAsyncIterator()
    }

    /// Ends the subscription: the daemon stops sending its events, and the sequence ends.
    public func cancel() async {
        await client.cancel(sink)
    }
}
