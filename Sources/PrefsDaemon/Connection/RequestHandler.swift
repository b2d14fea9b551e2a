// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOPosix
import PrefsPOSIX
import PrefsPlist
import PrefsStore
import PrefsWire

/// Performs one connection's requests after its ``HelloGateHandler``: one at a time in the order received, with
/// replies in the same order, gathered into one write per batch of pipelined requests; `subscribe` and
/// `unsubscribe` handed on, in their turn, to the ``SubscriptionHandler`` behind it; and the `closing` event before
/// the server closes the connection for a reason (shutdown, eviction, idleness, a bad frame).
///
/// Everything here runs on the connection's event loop.
///
/// One client cannot make the daemon hold more than a bounded amount for it: requests are performed only while the
/// peer takes the replies (the channel is writable), reads stop while replies or requests wait, the work of a
/// closed connection is dropped, and a connection that sends nothing for the idle timeout (NIO's
/// `IdleStateHandler` before the gate says so) is closed, unless it waits for the server: a request in progress,
/// or events of its subscriptions.
final class RequestHandler: ChannelDuplexHandler {
    typealias InboundIn = InboundFrames
    typealias InboundOut = SubscriptionHandler.Request
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// At most this many received requests wait before the connection stops reading.
    private static let maxPendingRequests = 256

    private let shared: DaemonShared
    private let policy: ConnectionPolicy
    private var limits: WireLimits { policy.limits }
    private let activity: ConnectionActivity
    private let origin: ChangeOrigin
    private let logger: Logger

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
    /// The domain the previous request addressed, as a name and with its store identifier.
    private var recentDomainName = RecentDomainName()
    private var recentDomain = RecentDomain()
    private var context: ChannelHandlerContext?

    /// - Parameters:
    ///   - logger: The connection's logger, with the client's pid and uid as metadata.
    init(
        shared: DaemonShared, policy: ConnectionPolicy, activity: ConnectionActivity, origin: ChangeOrigin,
        logger: Logger
    ) {
        self.shared = shared
        self.policy = policy
        self.activity = activity
        self.origin = origin
        self.logger = logger
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        activity.recordProgress()
    }

    func channelActive(context: ChannelHandlerContext) {
        logger.debug("client connected")
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The work of a closed connection is dropped: nobody would read its replies.
        dropPending()
        outbound = nil
        spareOutbound = nil
        logger.debug("client disconnected")
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
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
        switch event as? ConnectionEvent {
        case .shutdown:
            closeAfterCurrentRequest(WireError(.shuttingDown, "prefsd is stopping; reconnect later"), context: context)
            return
        case .closing:
            // The gate closes the connection: nothing of this handler's follows.
            isClosing = true
            dropPending()
            context.fireUserInboundEventTriggered(event)
            return
        case .evict:
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
        case nil:
            break
        }
        if event is IdleStateHandler.IdleStateEvent {
            closeIfIdle(context: context)
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
            // Requests held back while the peer did not take their replies go on now.
            processPending(context: context)
        }
        // The subscription handler writes the events that waited.
        context.fireChannelWritabilityChanged()
    }

    /// What the subscription handler writes goes out after the replies gathered before it.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        writeOutbound(context: context)
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        writeOutbound(context: context)
        context.flush()
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
        if let flat {
            if flat.name != .get { traceWrite(flat) }
            let result = shared.requests.perform(flat, origin: origin, recent: &recentDomain)
            writeReply(WireReply(id: flat.id, result), context: context)
            return true
        }
        let request: WireRequest
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
            writeReply(reply, context: context)
            return true
        }
        switch perform(request, context: context) {
        case .reply(let reply):
            writeReply(reply, context: context)
            return true
        case .handedOn:
            return true
        case .later:
            return false
        }
    }

    /// Out of line: the log call's metadata cost a `get` too when it was inline (about 120 instructions).
    @inline(never)
    private func traceWrite(_ flat: WireFlatRequest) {
        logger.trace("write", metadata: ["prefs.domain": "\(flat.domain)", "prefs.operation": "\(flat.name.rawValue)"])
    }

    /// What performing a request gave.
    private enum Performed {
        /// The reply, to write now.
        case reply(WireReply)
        /// The subscription handler writes the reply (already written when `perform` returns).
        case handedOn
        /// The reply comes later (a request performed off the event loop).
        case later
    }

    /// Performs a request.
    private func perform(_ request: WireRequest, context: ChannelHandlerContext) -> Performed {
        let operation = request.operation
        switch operation {
        case .hello:
            return .reply(
                WireReply(
                    id: request.id, .failure(.badField("op", "is hello again: the version is already negotiated"))))
        case .subscribe(let filter):
            context.fireChannelRead(wrapInboundOut(.init(id: request.id, operation: .subscribe(filter))))
            return .handedOn
        case .unsubscribe(let subscription):
            context.fireChannelRead(wrapInboundOut(.init(id: request.id, operation: .unsubscribe(subscription))))
            return .handedOn
        case .fleetStatus:
            return .reply(WireReply(id: request.id, .success(.fleetStatus(shared.fleetStatus?.status))))
        case .synchronize:
            performOffLoop(request, context: context)
            return .later
        case .getEffective(let list, _):
            if let refusal = limits.refusal(of: list) { return .reply(WireReply(id: request.id, .failure(refusal))) }
            return .reply(
                WireReply(id: request.id, shared.requests.perform(operation, origin: origin, recent: &recentDomain)))
        default:
            if operation.isWrite, let domain = operation.domain {
                logger.trace(
                    "write", metadata: ["prefs.domain": "\(domain)", "prefs.operation": "\(operation.name.rawValue)"])
            }
            return .reply(
                WireReply(id: request.id, shared.requests.perform(operation, origin: origin, recent: &recentDomain)))
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
            handler.writeReply(WireReply(id: request.id, outcome), context: context)
            handler.flushOutbound(context: context)
            if let error = handler.closeAfterRequest {
                handler.close(context: context, with: error)
                return
            }
            handler.processPending(context: context)
        }
    }

    /// Writes a reply; one too large for a frame becomes a `limitExceeded` error reply.
    private func writeReply(_ reply: WireReply, context: ChannelHandlerContext) {
        // Taken out of `outbound` first: a second reference would make each write copy the whole buffer.
        var buffer = outbound.take() ?? emptyOutbound(context: context, capacity: 4096)
        ConnectionFrames.appendReply(reply, to: &buffer, maxFrameBytes: limits.maxFrameBytes)
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

    // MARK: - Idle connections

    /// Closes the connection with `timedOut` when it sent nothing for the idle timeout (the `IdleStateHandler` says
    /// so) and waits for nothing of the server's: a request in progress, events of its subscriptions.
    private func closeIfIdle(context: ChannelHandlerContext) {
        guard let timeout = policy.idleTimeout, !isClosing, !isPerforming, !activity.holdsSubscriptions else { return }
        let idle = NIODeadline.now() - activity.lastProgressTime
        logger.debug("closing an idle connection", metadata: ["idle.ms": "\(idle.nanoseconds / 1_000_000)"])
        close(
            context: context,
            with: WireError(
                .timedOut, "this connection made no progress for \(timeout) (IdleTimeoutSeconds); reconnect when needed"
            ))
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
        guard inputClosed, !isClosing, !isPerforming, pendingCount == 0, !activity.holdsSubscriptions else { return }
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

    /// Sends a `closing` event with the reason after the replies gathered, then closes; subscriptions end first.
    private func close(context: ChannelHandlerContext, with error: WireError) {
        guard !isClosing else { return }
        isClosing = true
        dropPending()
        context.fireUserInboundEventTriggered(ConnectionEvent.closing)
        writeOutbound(context: context)
        ConnectionFrames.close(context, with: error)
    }
}
