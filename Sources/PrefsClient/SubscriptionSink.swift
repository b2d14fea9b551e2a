import PrefsWire
import Synchronization

/// The client side of one subscription: where its events go, and what to subscribe to again after a reconnect.
final class SubscriptionSink: Sendable {
    let filter: WireSubscriptionFilter
    let continuation: AsyncStream<PrefsSubscription.Event>.Continuation
    /// The daemon's identifier for it on the current connection.
    let serverID = Mutex<UInt64?>(nil)

    init(filter: WireSubscriptionFilter, continuation: AsyncStream<PrefsSubscription.Event>.Continuation) {
        self.filter = filter
        self.continuation = continuation
    }
}
