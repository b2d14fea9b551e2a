// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import PrefsPlist
import PrefsStore
import PrefsWire

/// The subscriptions of one connection, at the tail of its pipeline: `subscribe` and `unsubscribe` requests handed
/// on by the ``RequestHandler``, the store's change events (``LoopEventDispatch`` hands them over on the event loop),
/// and the bounded queue of events the peer has not taken yet, which coalesces and overflows into a resync.
///
/// Its replies and events go out through the request handler, which writes the replies it gathered first, so that
/// the order of replies is the order of requests.
final class SubscriptionHandler: ChannelInboundHandler {
    typealias InboundIn = Request
    typealias OutboundOut = ByteBuffer

    /// A subscription request, in the order of the connection's requests.
    struct Request {
        /// The request's `id`, for the reply.
        let id: UInt64
        let operation: Operation

        enum Operation {
            case subscribe(WireSubscriptionFilter)
            case unsubscribe(UInt64)
        }
    }

    /// A subscription of this connection.
    private struct ActiveSubscription {
        let filter: WireSubscriptionFilter
        let storeFilter: ChangeFilter
        /// Counts store subscriptions made for it; events of an older one (before a resync) are dropped.
        var generation: UInt64
        var token: ObservationToken
    }

    private let shared: DaemonShared
    private let limits: WireLimits
    private let activity: ConnectionActivity
    private let logger: Logger
    private var subscriptions: [UInt64: ActiveSubscription] = [:]
    private var nextSubscriptionID: UInt64 = 1
    private var eventQueue: WireEventQueue
    /// Whether events were written straight to the channel
    /// (``deliver(_:subscription:filter:origin:context:conversions:isWholeBatch:)``) and wait for the flush at the end
    /// of ``writeEvents(context:)``.
    private var pendingEventFlush = false
    /// The connection is closing: nothing more is written.
    private var isClosing = false
    private var context: ChannelHandlerContext?

    init(shared: DaemonShared, limits: WireLimits, activity: ConnectionActivity, logger: Logger) {
        self.shared = shared
        self.limits = limits
        self.activity = activity
        self.logger = logger
        self.eventQueue = WireEventQueue(capacity: limits.subscriptionQueueLength)
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endSubscriptions()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        endSubscriptions()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        let request = unwrapInboundIn(data)
        let outcome: Result<WireResult, WireError>
        switch request.operation {
        case .subscribe(let filter):
            outcome = subscribe(filter, context: context)
        case .unsubscribe(let subscription):
            outcome = unsubscribe(subscription)
        }
        var buffer = context.channel.allocator.buffer(capacity: 256)
        ConnectionFrames.appendReply(
            WireReply(id: request.id, outcome), to: &buffer, maxFrameBytes: limits.maxFrameBytes)
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writeEvents(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.closing) = event as? ConnectionEvent {
            isClosing = true
            endSubscriptions()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: - Subscriptions

    private func unsubscribe(_ subscription: UInt64) -> Result<WireResult, WireError> {
        guard let removed = subscriptions.removeValue(forKey: subscription) else {
            return .failure(WireError(.notFound, "this connection has no subscription \(subscription)"))
        }
        removed.token.cancel()
        eventQueue.removeSubscription(subscription)
        activity.holdsSubscriptions = !subscriptions.isEmpty
        return .success(.unsubscribe)
    }

    private func subscribe(
        _ filter: WireSubscriptionFilter, context: ChannelHandlerContext
    ) -> Result<WireResult, WireError> {
        if case .effective(let list) = filter.target, let refusal = limits.refusal(of: list) {
            return .failure(refusal)
        }
        guard subscriptions.count < limits.maxSubscriptions else {
            return .failure(
                .limitExceeded(
                    .maxSubscriptions, value: limits.maxSubscriptions,
                    "subscription \(subscriptions.count + 1) of this connection"))
        }
        let storeFilter: ChangeFilter
        do throws(WireError) {
            storeFilter = try Self.storeFilter(filter)
        } catch {
            return .failure(error)
        }
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        let (token, snapshot) = startStoreSubscription(id, storeFilter, generation: 0, context: context)
        subscriptions[id] = ActiveSubscription(filter: filter, storeFilter: storeFilter, generation: 0, token: token)
        activity.holdsSubscriptions = true
        return .success(.subscribe(subscription: id, snapshot: wireSnapshot(snapshot, filter: filter)))
    }

    /// The store's filter for a wire filter: prefix filters watch every key and are narrowed here.
    private static func storeFilter(_ filter: WireSubscriptionFilter) throws(WireError) -> ChangeFilter {
        switch (filter.target, filter.keys) {
        case (.domain(let domain), .key(let key)): return .key(key, in: try domain.domainID())
        case (.domain(let domain), _): return .domain(try domain.domainID())
        case (.effective(let list), .key(let key)): return .effectiveKey(key, in: try list.searchList())
        case (.effective(let list), _): return .effective(try list.searchList())
        }
    }

    private func startStoreSubscription(
        _ id: UInt64, _ filter: ChangeFilter, generation: UInt64, context: ChannelHandlerContext
    ) -> (ObservationToken, StoreSnapshot) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let dispatch = shared.eventDispatch(for: context.eventLoop)
        let subscription = shared.store.subscribe(filter) { events in
            dispatch.send(.init(handler: handler, subscription: id, generation: generation, events: events))
        }
        return (subscription.token, subscription.snapshot)
    }

    /// The wire snapshot of a store snapshot: the watched keys, and the sequence of each domain they came from (one
    /// for a domain subscription, every searched user, by-host, system and forced domain for an effective one).
    private func wireSnapshot(_ snapshot: StoreSnapshot, filter: WireSubscriptionFilter) -> WireSnapshot {
        var values = snapshot.values
        if case .prefix = filter.keys { values = values.filter { filter.keys.matches($0.key) } }
        switch filter.target {
        case .domain(let target):
            return WireSnapshot(values: values, sequences: [.init(domain: target, sequence: snapshot.sequence)])
        case .effective:
            // Shipped domains are not served, so they have no wire name and no sequence to report.
            let sequences = snapshot.layerSequences.compactMap { domain, sequence in
                (try? WireDomain(domain)).map { WireSnapshot.DomainSequence(domain: $0, sequence: sequence) }
            }
            .sorted { "\($0.domain)" < "\($1.domain)" }
            return WireSnapshot(values: values, sequences: sequences)
        }
    }

    /// Sends a batch of store events for a subscription, or queues what the peer cannot take yet (called by
    /// ``LoopEventDispatch`` on the event loop).
    func receive(
        _ events: [ChangeEvent], subscription id: UInt64, generation: UInt64, conversions: inout ChangeConversions
    ) {
        guard let context, !isClosing, let subscription = subscriptions[id], subscription.generation == generation
        else { return }
        let (converted, commonOrigin) = conversions.convert(events)
        if let commonOrigin, let origin = converted.first?.origin,
            commonOrigin.allSatisfy({ subscription.filter.keys.matches($0.key) })
        {
            // The usual case: every change is wanted and they have one origin, so the converted array is sent as
            // it is.
            deliver(
                commonOrigin, subscription: id, filter: subscription.filter, origin: WireOrigin(origin),
                context: context, conversions: &conversions, isWholeBatch: true)
            writeEvents(context: context)
            return
        }
        var changes: [WireChange] = []
        var batchOrigin: ChangeOrigin?
        for item in converted where subscription.filter.keys.matches(item.change.key) {
            if let batchOrigin, batchOrigin != item.origin {
                deliver(
                    changes, subscription: id, filter: subscription.filter, origin: WireOrigin(batchOrigin),
                    context: context, conversions: &conversions)
                changes = []
            }
            batchOrigin = item.origin
            changes.append(item.change)
        }
        if let batchOrigin, !changes.isEmpty {
            deliver(
                changes, subscription: id, filter: subscription.filter, origin: WireOrigin(batchOrigin),
                context: context, conversions: &conversions)
        }
        writeEvents(context: context)
    }

    /// Writes one operation's changes for a subscription at once when nothing waits in the queue and the peer
    /// takes more (the usual case, and the cheap one: a change that a thousand clients watch is sent a thousand
    /// times); otherwise queues them behind what waits, where they coalesce or overflow into a resync.
    ///
    /// When `changes` is the whole batch `conversions` holds (`isWholeBatch`), the frame made for it is shared with the
    /// next subscription of the same identifier, filter and origin.
    private func deliver(
        _ changes: [WireChange], subscription id: UInt64, filter: WireSubscriptionFilter, origin: WireOrigin,
        context: ChannelHandlerContext, conversions: inout ChangeConversions, isWholeBatch: Bool = false
    ) {
        guard eventQueue.isEmpty, context.channel.isWritable else {
            eventQueue.enqueue(subscription: id, changes: changes, origin: origin)
            return
        }
        let maxFrameBytes = limits.maxFrameBytes
        let frame: ByteBuffer
        if isWholeBatch, let kept = conversions.wholeBatchFrame(subscription: id, filter: filter, origin: origin) {
            frame = kept
        } else {
            // As the queue's dequeue does: a change that changes nothing is not sent.
            let changed = changes.contains { $0.old == $0.new } ? changes.filter { $0.old != $0.new } : changes
            guard !changed.isEmpty else { return }
            let key = EventFrameCache.Key(subscription: id, filter: filter, changes: changed)
            guard
                let made = try? shared.eventFrames.frame(
                    for: key,
                    encode: { () throws(PrefsWireError) in
                        let event: WireEvent =
                            changed.count == 1
                            ? .change(subscription: id, changed[0], origin: origin)
                            : .batch(subscription: id, changed, origin: origin)
                        return try WireFrame.encodePayload(event.dictionary, maxFrameBytes: maxFrameBytes)
                    })
            else {
                pendingEventFlush = true
                return
            }
            frame = made
            if isWholeBatch { conversions.keepWholeBatchFrame(frame, subscription: id, filter: filter, origin: origin) }
        }
        // Encoded for another connection, whose limit a reload may have left higher than this one's.
        if frame.readableBytes - 4 <= maxFrameBytes {
            // The shared frame is written as it is (the request handler writes the replies it gathered first).
            context.write(wrapOutboundOut(frame), promise: nil)
        }
        pendingEventFlush = true
    }

    /// Writes queued events while the peer takes them; a subscription that overflowed gets a fresh snapshot.
    private func writeEvents(context: ChannelHandlerContext) {
        var wrote = pendingEventFlush
        pendingEventFlush = false
        while !isClosing, context.channel.isWritable, let item = eventQueue.dequeue() {
            switch item {
            case .event(let event):
                try? write(event.dictionary, context: context)
                wrote = true
            case .resync(let id):
                guard var subscription = subscriptions[id] else { continue }
                subscription.token.cancel()
                subscription.generation += 1
                let (token, snapshot) = startStoreSubscription(
                    id, subscription.storeFilter, generation: subscription.generation, context: context)
                subscription.token = token
                subscriptions[id] = subscription
                let event = WireEvent.resync(
                    subscription: id, wireSnapshot(snapshot, filter: subscription.filter))
                do throws(PrefsWireError) {
                    try write(event.dictionary, context: context)
                } catch {
                    logger.error(
                        "cannot send a resync snapshot; closing the connection", metadata: ["error": "\(error)"])
                    isClosing = true
                    endSubscriptions()
                    ConnectionFrames.close(context, with: error.wireError)
                    return
                }
                wrote = true
            }
        }
        if wrote { context.flush() }
    }

    private func endSubscriptions() {
        for subscription in subscriptions.values { subscription.token.cancel() }
        subscriptions.removeAll()
        activity.holdsSubscriptions = false
    }

    /// Writes one event's frame.
    private func write(_ dictionary: PlistDictionary, context: ChannelHandlerContext) throws(PrefsWireError) {
        var buffer = context.channel.allocator.buffer(capacity: 256)
        try ConnectionFrames.appendMessage(dictionary, to: &buffer, maxFrameBytes: limits.maxFrameBytes)
        context.write(wrapOutboundOut(buffer), promise: nil)
    }
}
