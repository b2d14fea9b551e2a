// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOPosix
import PrefsPOSIX
import PrefsPlist
import PrefsStore
import PrefsWire

/// Serves one client connection: the `hello` gate, requests performed one at a time in the order received,
/// replies in the same order, subscriptions with their bounded event queue, and the `closing` event before the
/// server closes the connection for a reason.
///
/// Everything here runs on the connection's event loop. Store callbacks (change events) hop onto it first.
///
/// One client cannot make the daemon hold more than a bounded amount for it: requests are performed only while the
/// peer takes the replies (the channel is writable), reads stop while replies or requests wait, the work of a
/// closed connection is dropped, and a connection that makes no progress for the idle timeout is closed (one with
/// subscriptions waits for events, and is never idle).
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = InboundFrames
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Sent down the pipeline when the daemon stops: finish the request in progress, then close with
    /// `shuttingDown`.
    struct ShutdownEvent: Sendable {}

    /// Sent down the pipeline when the connection table is full and this idle connection is the one to close:
    /// finish the request in progress, if one started meanwhile, then close with `limitExceeded`
    /// (`maxConnections`).
    struct EvictEvent: Sendable {}

    /// A subscription of this connection.
    private struct ActiveSubscription {
        let filter: WireSubscriptionFilter
        let storeFilter: ChangeFilter
        /// Counts store subscriptions made for it; events of an older one (before a resync) are dropped.
        var generation: UInt64
        var token: ObservationToken
    }

    /// At most this many received requests wait before the connection stops reading.
    private static let maxPendingRequests = 256

    private let shared: DaemonShared
    private let policy: ConnectionPolicy
    private var limits: WireLimits { policy.limits }
    private let activity: ConnectionActivity
    private let credentials: PeerCredentials
    private let origin: ChangeOrigin
    private let logger: Logger

    private var negotiated = false
    /// Whole frames received and not yet performed (length prefixes included), and how many.
    private var pendingFrames: ByteBuffer?
    private var pendingCount = 0
    /// A request is being performed off the event loop (`synchronize`); later ones wait for it.
    private var isPerforming = false
    private var inputClosed = false
    private var isClosing = false
    /// The error to close with once the request in progress is done (shutdown, eviction).
    private var closeAfterRequest: WireError?
    private var readHeld = false {
        didSet { activity.readsHeld = readHeld }
    }
    private var idleCheck: Scheduled<Void>?
    /// Replies were written since the last flush; they are flushed once per read, so a pipelined batch of requests
    /// is answered with one write.
    private var needsFlush = false
    /// Frames encoded since the last flush: the replies of one batch of requests go out as one buffer.
    private var outbound: ByteBuffer?
    /// The last buffer handed to the channel, kept to be cleared and filled again: once the channel has written it
    /// (usually within the flush), this handler holds its only reference and reuses its memory, so a connection that
    /// sends one request at a time does not allocate a buffer for every reply.
    private var spareOutbound: ByteBuffer?
    /// Buffers larger than this are not kept: an idle connection holds at most this much for its next replies.
    private static let maxSpareOutboundCapacity = 64 * 1024
    /// The handler is inside `channelRead`; `channelReadComplete` will flush.
    private var isReading = false
    private var subscriptions: [UInt64: ActiveSubscription] = [:]
    private var nextSubscriptionID: UInt64 = 1
    private var eventQueue: WireEventQueue
    /// Whether events were written straight to the outbound buffer
    /// (``deliver(_:subscription:filter:origin:context:conversions:isWholeBatch:)``) and wait for the flush at the end
    /// of ``writeEvents(context:)``.
    private var pendingEventFlush = false
    /// The domain the previous request addressed, as a name and with its store identifier.
    private var recentDomainName = RecentDomainName()
    private var recentDomain = RecentDomain()
    private var context: ChannelHandlerContext?

    init(
        shared: DaemonShared, policy: ConnectionPolicy, activity: ConnectionActivity,
        credentials: PeerCredentials
    ) {
        self.shared = shared
        self.policy = policy
        self.activity = activity
        self.credentials = credentials
        self.origin = .client(pid: credentials.processID, uid: credentials.userID)
        self.eventQueue = WireEventQueue(capacity: policy.limits.subscriptionQueueLength)
        var logger = shared.logger
        logger[metadataKey: "prefs.client.pid"] = "\(credentials.processID)"
        logger[metadataKey: "prefs.client.uid"] = "\(credentials.userID)"
        self.logger = logger
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        activity.recordProgress()
        scheduleIdleCheck(context: context)
    }

    func channelActive(context: ChannelHandlerContext) {
        logger.debug("client connected")
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        endSubscriptions()
        // The work of a closed connection is dropped: nobody would read its replies.
        dropPending()
        outbound = nil
        spareOutbound = nil
        idleCheck?.cancel()
        idleCheck = nil
        logger.debug("client disconnected")
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endSubscriptions()
        idleCheck?.cancel()
        idleCheck = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        let frames = unwrapInboundIn(data)
        if var waiting = pendingFrames.take() {
            var more = frames.bytes
            waiting.writeBuffer(&more)
            pendingFrames = waiting
        } else {
            pendingFrames = frames.bytes
        }
        pendingCount += frames.count
        isReading = true
        processPending(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Every read passes here, whether or not it completed a frame: bytes arriving are progress.
        activity.recordProgress()
        isReading = false
        if needsFlush {
            needsFlush = false
            flushOutbound(context: context)
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ShutdownEvent {
            closeAfterCurrentRequest(WireError(.shuttingDown, "prefsd is stopping; reconnect later"), context: context)
            return
        }
        if event is EvictEvent {
            let idle = NIODeadline.now() - activity.lastProgressTime
            logger.notice("closing an idle connection to make room for a new one (maxConnections)")
            closeAfterCurrentRequest(
                WireError(
                    .limitExceeded,
                    "prefsd serves maxConnections (\(limits.maxConnections)) connections and a new one came; this one "
                        + "was idle the longest (\(idle.nanoseconds / 1_000_000) ms) and is closed to make room",
                    limit: .maxConnections),
                context: context)
            return
        }
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            inputClosed = true
            closeIfFinished(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let framing = error as? PrefsWireError {
            closeForBadFrame(framing, context: context)
            return
        }
        if isClosing { return }
        logger.debug("connection failed", metadata: ["error": "\(error)"])
        isClosing = true
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            activity.recordProgress()
            writeEvents(context: context)
            // Requests held back while the peer did not take their replies go on now.
            processPending(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Holds reads while the peer does not take its replies, or requests wait: this bounds what one connection
    /// costs the daemon.
    func read(context: ChannelHandlerContext) {
        if isClosing || !context.channel.isWritable || pendingCount >= Self.maxPendingRequests {
            readHeld = true
            return
        }
        context.read()
    }

    // MARK: - Requests

    /// Performs waiting requests while the peer takes their replies: once the channel is not writable (its
    /// outbound buffer is above the high-water mark), the rest wait for ``channelWritabilityChanged(context:)``,
    /// so unread replies never pile up.
    private func processPending(context: ChannelHandlerContext) {
        var wrote = false
        while !isPerforming, !isClosing, context.channel.isActive, context.channel.isWritable,
            let payload = nextPendingFrame()
        {
            if performFrame(payload, context: context) { wrote = true }
        }
        if wrote {
            if isReading {
                needsFlush = true
            } else {
                flushOutbound(context: context)
            }
        }
        resumeReadingIfHeld(context: context)
        closeIfFinished(context: context)
    }

    /// Takes the next frame waiting: its payload.
    private func nextPendingFrame() -> ByteBuffer? {
        guard pendingCount > 0, var frames = pendingFrames.take() else { return nil }
        // The decoder handed whole frames only, each length checked.
        guard let length = frames.readInteger(endianness: .big, as: UInt32.self),
            let payload = frames.readSlice(length: Int(length))
        else {
            logger.error("a received frame was cut short; dropping the frames after it")
            pendingCount = 0
            return nil
        }
        pendingCount -= 1
        if pendingCount > 0 { pendingFrames = frames }
        return payload
    }

    /// Reads and performs one frame's request; returns whether a reply was written.
    private func performFrame(_ payload: ByteBuffer, context: ChannelHandlerContext) -> Bool {
        // The frequent requests, read in place and performed without the general request value.
        let flat = payload.withUnsafeReadableBytes { bytes in
            WireFlatRequest(payload: bytes, limits: limits, recentDomain: &recentDomainName)
        }
        if let flat, negotiated {
            if flat.name != .get { traceWrite(flat) }
            let result = shared.requests.perform(flat, origin: origin, recent: &recentDomain)
            write(WireReply(id: flat.id, result), context: context)
            return true
        }
        let request: WireRequest
        if let flat {
            request = flat.request
        } else {
            let decoded = payload.withUnsafeReadableBytes { bytes in
                Result { () throws(PrefsWireError) in try WireFrame.decodePayload(bytes, limits: limits) }
            }
            let message: PlistDictionary
            switch decoded {
            case .success(let dictionary): message = dictionary
            case .failure(let error):
                closeForBadFrame(error, context: context)
                return false
            }
            do throws(WireRequest.Rejection) {
                request = try WireRequest(dictionary: message)
            } catch {
                guard let reply = error.reply else {
                    close(context: context, with: error.error)
                    return false
                }
                write(reply, context: context)
                return true
            }
        }
        guard let reply = perform(request, context: context) else { return false }
        write(reply, context: context)
        return true
    }

    /// Out of line: the log call's metadata cost a `get` too when it was inline (about 120 instructions).
    @inline(never)
    private func traceWrite(_ flat: WireFlatRequest) {
        logger.trace("write", metadata: ["prefs.domain": "\(flat.domain)", "prefs.operation": "\(flat.name.rawValue)"])
    }

    /// Performs a request; returns its reply, or `nil` when the reply comes later.
    private func perform(_ request: WireRequest, context: ChannelHandlerContext) -> WireReply? {
        let operation = request.operation
        if case .hello(let hello) = operation {
            guard !negotiated else {
                return WireReply(
                    id: request.id, .failure(.badField("op", "is hello again: the version is already negotiated")))
            }
            do throws(WireError) {
                let version = try hello.negotiatedVersion()
                negotiated = true
                logger.debug(
                    "client said hello", metadata: ["client": "\(hello.client ?? "unnamed")", "version": "\(version)"])
                return WireReply(
                    id: request.id,
                    .success(
                        .hello(WireHelloResult(version: version, server: shared.serverName, limits: limits))))
            } catch {
                return WireReply(id: request.id, .failure(error))
            }
        }
        guard negotiated else {
            return WireReply(
                id: request.id,
                .failure(.badField("op", "is \(operation.name.rawValue) before hello: the first request must be hello"))
            )
        }
        switch operation {
        case .subscribe(let filter):
            return WireReply(id: request.id, subscribe(filter, context: context))
        case .unsubscribe(let subscription):
            guard let removed = subscriptions.removeValue(forKey: subscription) else {
                return WireReply(
                    id: request.id,
                    .failure(WireError(.notFound, "this connection has no subscription \(subscription)")))
            }
            removed.token.cancel()
            eventQueue.removeSubscription(subscription)
            activity.holdsSubscriptions = !subscriptions.isEmpty
            return WireReply(id: request.id, .success(.unsubscribe))
        case .fleetStatus:
            return WireReply(id: request.id, .success(.fleetStatus(shared.fleetStatus?.status)))
        case .synchronize:
            performOffLoop(request, context: context)
            return nil
        case .getEffective(let list, _):
            if let refusal = refusal(of: list) { return WireReply(id: request.id, .failure(refusal)) }
            return WireReply(id: request.id, shared.requests.perform(operation, origin: origin, recent: &recentDomain))
        default:
            if operation.isWrite, let domain = operation.domain {
                logger.trace(
                    "write", metadata: ["prefs.domain": "\(domain)", "prefs.operation": "\(operation.name.rawValue)"])
            }
            return WireReply(id: request.id, shared.requests.perform(operation, origin: origin, recent: &recentDomain))
        }
    }

    /// Performs a blocking request on the thread pool; later requests wait, so replies stay in order.
    private func performOffLoop(_ request: WireRequest, context: ChannelHandlerContext) {
        isPerforming = true
        let requests = shared.requests
        let origin = self.origin
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBoundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        shared.threadPool.runIfActive(eventLoop: context.eventLoop) {
            requests.perform(request.operation, origin: origin)
        }.whenComplete { result in
            let handler = loopBoundSelf.value
            let context = loopBoundContext.value
            handler.isPerforming = false
            guard handler.context != nil, !handler.isClosing else { return }
            let outcome: Result<WireResult, WireError>
            switch result {
            case .success(let value): outcome = value
            case .failure(let error):
                outcome = .failure(WireError(.internal, "the request was not performed: \(error)"))
            }
            handler.write(WireReply(id: request.id, outcome), context: context)
            handler.flushOutbound(context: context)
            if let error = handler.closeAfterRequest {
                handler.close(context: context, with: error)
                return
            }
            handler.processPending(context: context)
        }
    }

    /// Writes a reply; one too large for a frame becomes a `limitExceeded` error reply.
    private func write(_ reply: WireReply, context: ChannelHandlerContext) {
        // Taken out of `outbound` first: a second reference would make each write copy the whole buffer.
        var buffer = outbound.take() ?? emptyOutbound(context: context, capacity: 4096)
        let wroteFlat = FlatReplyEncoder.appendFrame(of: reply, to: &buffer, maxFrameBytes: limits.maxFrameBytes)
        gather(buffer, context: context)
        if wroteFlat { return }
        do throws(PrefsWireError) {
            try writeFrame(reply.dictionary, context: context)
        } catch {
            let failure = WireReply(
                id: reply.id,
                .failure(
                    error.code == .limitExceeded
                        ? WireError(.limitExceeded, error.message, limit: .maxFrameBytes)
                        : WireError(.internal, error.description)))
            try? writeFrame(failure.dictionary, context: context)
        }
    }

    private func writeFrame(_ dictionary: PlistDictionary, context: ChannelHandlerContext) throws(PrefsWireError) {
        let payload: [UInt8]
        if let flat = FlatReplyEncoder.encode(dictionary), flat.count <= limits.maxFrameBytes {
            payload = flat
        } else {
            payload = try WireFrame.encodePayload(dictionary, maxFrameBytes: limits.maxFrameBytes)
        }
        append(payload, context: context)
    }

    /// Adds one frame's payload to the frames gathered for the next flush.
    private func append(_ payload: [UInt8], context: ChannelHandlerContext) {
        // Taken out of `outbound` first: a second reference would make each append copy the whole buffer.
        var buffer = outbound.take() ?? emptyOutbound(context: context, capacity: max(4096, payload.count + 4))
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        gather(buffer, context: context)
    }

    /// Keeps the gathered frames for the next flush, or hands them to the channel once they reach 64 KiB.
    private func gather(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        if buffer.readableBytes >= 64 * 1024 {
            context.write(wrapOutboundOut(buffer), promise: nil)
        } else if buffer.readableBytes > 0 {
            outbound = buffer
        }
    }

    /// Hands the frames gathered since the last flush to the channel, as one buffer, and flushes.
    private func flushOutbound(context: ChannelHandlerContext) {
        writeOutbound(context: context)
        context.flush()
    }

    /// An empty buffer for the next frames: the spare one when it is large enough (its memory is reused when the channel
    /// is done with it, and copied on write otherwise), else a new one.
    private func emptyOutbound(context: ChannelHandlerContext, capacity: Int) -> ByteBuffer {
        if var spare = spareOutbound.take(), spare.capacity >= capacity {
            spare.clear()
            return spare
        }
        return context.channel.allocator.buffer(capacity: capacity)
    }

    /// Hands the gathered frames to the channel without flushing, so that what is written next follows them.
    private func writeOutbound(context: ChannelHandlerContext) {
        guard let buffer = outbound else { return }
        outbound = nil
        if buffer.capacity <= Self.maxSpareOutboundCapacity { spareOutbound = buffer }
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    // MARK: - Subscriptions

    private func subscribe(
        _ filter: WireSubscriptionFilter, context: ChannelHandlerContext
    ) -> Result<WireResult, WireError> {
        if case .effective(let list) = filter.target, let refusal = refusal(of: list) { return .failure(refusal) }
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
            // The shared frame is written as it is, after the frames gathered before it.
            writeOutbound(context: context)
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
                try? writeFrame(event.dictionary, context: context)
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
                    try writeFrame(event.dictionary, context: context)
                } catch {
                    logger.error(
                        "cannot send a resync snapshot; closing the connection", metadata: ["error": "\(error)"])
                    close(context: context, with: error.wireError)
                    return
                }
                wrote = true
            }
        }
        if wrote { flushOutbound(context: context) }
    }

    private func endSubscriptions() {
        for subscription in subscriptions.values { subscription.token.cancel() }
        subscriptions.removeAll()
        activity.holdsSubscriptions = false
    }

    /// The refusal of a search list longer than `maxSuites`, or `nil`.
    private func refusal(of list: WireSearchList) -> WireError? {
        guard list.suites.count > limits.maxSuites else { return nil }
        return .limitExceeded(.maxSuites, value: limits.maxSuites, "search list of \(list.suites.count) suites")
    }

    // MARK: - Idle connections

    /// Checks for idleness when the idle timeout could have passed since the last progress.
    private func scheduleIdleCheck(context: ChannelHandlerContext) {
        guard let timeout = policy.idleTimeout else { return }
        let deadline = activity.lastProgressTime + .nanoseconds(timeout.nanoseconds)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.idleCheck = nil
            handler.closeIfIdle(context: context)
        }
    }

    /// Closes the connection with `timedOut` when it made no progress for the idle timeout and waits for nothing
    /// of the server's (a request in progress, events of its subscriptions); else checks again later.
    private func closeIfIdle(context: ChannelHandlerContext) {
        guard let timeout = policy.idleTimeout, !isClosing, self.context != nil else { return }
        let idle = NIODeadline.now() - activity.lastProgressTime
        if idle.nanoseconds >= timeout.nanoseconds, subscriptions.isEmpty, !isPerforming {
            logger.debug("closing an idle connection", metadata: ["idle.ms": "\(idle.nanoseconds / 1_000_000)"])
            close(
                context: context,
                with: WireError(
                    .timedOut,
                    "this connection made no progress for \(timeout) (IdleTimeoutSeconds); reconnect when needed"))
            return
        }
        if idle.nanoseconds >= timeout.nanoseconds { activity.recordProgress() }
        scheduleIdleCheck(context: context)
    }

    // MARK: - Closing

    /// Closes with `error` now, or once the request in progress is answered.
    private func closeAfterCurrentRequest(_ error: WireError, context: ChannelHandlerContext) {
        closeAfterRequest = closeAfterRequest ?? error
        if !isPerforming { close(context: context, with: error) }
    }

    private func resumeReadingIfHeld(context: ChannelHandlerContext) {
        guard readHeld, !isClosing, context.channel.isWritable, pendingCount < Self.maxPendingRequests else { return }
        readHeld = false
        context.read()
    }

    /// After the peer closed its side: close once every reply is sent, unless events are still wanted.
    private func closeIfFinished(context: ChannelHandlerContext) {
        guard inputClosed, !isClosing, !isPerforming, pendingCount == 0, subscriptions.isEmpty else { return }
        isClosing = true
        let channel = context.channel
        writeOutbound(context: context)
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Closes for a frame that breaks the protocol, after answering the frames before it.
    private func closeForBadFrame(_ error: PrefsWireError, context: ChannelHandlerContext) {
        logger.notice("closing a connection that sent a bad frame", metadata: ["error": "\(error)"])
        close(context: context, with: error.wireError)
    }

    private func dropPending() {
        pendingFrames = nil
        pendingCount = 0
    }

    /// Sends a `closing` event with the reason, then closes.
    private func close(context: ChannelHandlerContext, with error: WireError) {
        guard !isClosing else { return }
        isClosing = true
        dropPending()
        endSubscriptions()
        writeOutbound(context: context)
        let event = WireEvent.closing(error).dictionary
        // A peer that does not read would never receive the event: do not wait for it.
        guard context.channel.isWritable, let payload = try? WireFrame.encodePayload(event, maxFrameBytes: .max) else {
            context.close(promise: nil)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: WireFrame.headerLength + payload.count)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
