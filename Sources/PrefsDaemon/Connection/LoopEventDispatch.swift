// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsStore
import PrefsWire
import Synchronization

/// Store events bound for the subscriptions of one event loop's connections, handed to the loop in one task.
///
/// The store calls each observer in turn. Hopping to the event loop once per observer would cost a task each: a
/// change that a thousand connections watch would be a thousand tasks. Events wait here instead; the first of a burst
/// schedules the task that hands every waiting one over, in the order the store delivered them, and the wire form of
/// each batch of store events is made once for all the subscriptions that receive it (``ChangeConversions``).
final class LoopEventDispatch: Sendable {
    /// One subscription's batch of store events.
    struct Delivery: Sendable {
        let handler: NIOLoopBound<SubscriptionHandler>
        let subscription: UInt64
        let generation: UInt64
        let events: [ChangeEvent]
    }

    let eventLoop: any EventLoop
    private let waiting = Mutex<[Delivery]>([])

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Queues a delivery; the first one of a burst schedules the hand-over.
    func send(_ delivery: Delivery) {
        let isFirst = waiting.withLock { waiting in
            waiting.append(delivery)
            return waiting.count == 1
        }
        if isFirst { eventLoop.execute { self.handOver() } }
    }

    /// Runs on the event loop: hands every waiting delivery to its connection.
    private func handOver() {
        let deliveries = waiting.withLock { waiting in
            let deliveries = waiting
            waiting.removeAll()
            return deliveries
        }
        var conversions = ChangeConversions()
        for delivery in deliveries {
            delivery.handler.value.receive(
                delivery.events, subscription: delivery.subscription, generation: delivery.generation,
                conversions: &conversions)
        }
    }
}

/// The wire form of the store's events, made once per batch: the store hands every observer that receives all of a
/// batch the same array, so its conversion is kept for the next subscription that receives it.
struct ChangeConversions {
    /// A store event in wire form, with its origin.
    struct Converted {
        let change: WireChange
        let origin: ChangeOrigin
    }

    /// The batch converted last. Holding it keeps its storage alive, so no other array can have the same storage
    /// address while it is kept: equal addresses mean the same batch.
    private var events: [ChangeEvent] = []
    private var converted: [Converted] = []
    /// The converted changes alone, when they all have one origin (then one event carries them all).
    private var commonOriginChanges: [WireChange]?
    /// The frame of the whole batch made last, for one subscription identifier, filter and origin. Subscription
    /// identifiers count per connection, so the subscribers of a burst usually share all three (every client's first
    /// subscription is number 1), and the next delivery takes the frame as it is, without going to the shared
    /// ``EventFrameCache`` (its key, its lock, its comparisons).
    private var wholeBatchFrame: SharedFrame?

    private struct SharedFrame {
        let subscription: UInt64
        let filter: WireSubscriptionFilter
        let origin: WireOrigin
        let frame: ByteBuffer
    }

    /// The wire form of `events`, and the changes alone when they all have one origin.
    mutating func convert(_ events: [ChangeEvent]) -> (all: [Converted], commonOrigin: [WireChange]?) {
        if !events.isEmpty, events.count == self.events.count, Self.storage(of: events) == Self.storage(of: self.events)
        {
            return (converted, commonOriginChanges)
        }
        wholeBatchFrame = nil
        converted = events.map { Converted(change: Self.wireChange(of: $0), origin: $0.origin) }
        let origin = events.first?.origin
        commonOriginChanges =
            events.allSatisfy { $0.origin == origin } ? converted.map(\.change) : nil
        self.events = events
        return (converted, commonOriginChanges)
    }

    /// The frame made for the whole current batch, when it was made for the same subscription identifier, filter and
    /// origin.
    func wholeBatchFrame(subscription: UInt64, filter: WireSubscriptionFilter, origin: WireOrigin) -> ByteBuffer? {
        guard let made = wholeBatchFrame, made.subscription == subscription, made.origin == origin,
            made.filter == filter
        else { return nil }
        return made.frame
    }

    /// Keeps the frame made for the whole current batch (see ``wholeBatchFrame(subscription:filter:origin:)``).
    mutating func keepWholeBatchFrame(
        _ frame: ByteBuffer, subscription: UInt64, filter: WireSubscriptionFilter, origin: WireOrigin
    ) {
        wholeBatchFrame = SharedFrame(subscription: subscription, filter: filter, origin: origin, frame: frame)
    }

    private static func storage(of events: [ChangeEvent]) -> UnsafeRawPointer? {
        events.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// A store event as a wire change. An effective change names the layer that moved it, with that domain's own
    /// sequence number; the event's own domain is the subscribed (user or by-host) one, which always has a wire name.
    static func wireChange(of event: ChangeEvent) -> WireChange {
        var domain = (try? WireDomain(event.domain)) ?? WireDomain(event.domain.name.rawValue)
        var sequence = event.sequence
        if let layer = event.layer, let wire = try? WireDomain(layer.domain) {
            domain = wire
            sequence = layer.sequence
        }
        return WireChange(domain: domain, key: event.key, old: event.oldValue, new: event.newValue, sequence: sequence)
    }
}
