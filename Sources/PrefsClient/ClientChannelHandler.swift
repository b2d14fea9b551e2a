import NIOCore
import PrefsPlist
import PrefsWire

/// One request on its way: the operation, and the promise its reply completes.
struct ClientRequest {
    let operation: WireOperation
    let promise: EventLoopPromise<Result<WireResult, WireError>>
    /// For `subscribe`: the subscription that receives the events once the reply arrives.
    let sink: SubscriptionSink?
    /// For a `subscribe` renewing a subscription after a reconnect: its snapshot is delivered as a resync.
    let isRenewal: Bool
}

/// The client end of one connection: numbers and frames requests, matches replies to them (they come in order),
/// and routes events to subscriptions.
///
/// Everything here runs on the connection's event loop.
final class ClientChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = [String: PlistValue]
    typealias OutboundIn = ClientRequest
    typealias OutboundOut = ByteBuffer

    private var nextID: UInt64 = 1
    private var waiting = CircularBuffer<(id: UInt64, request: ClientRequest)>()
    private var routes: [UInt64: SubscriptionSink] = [:]
    /// Why the connection ended, once it has.
    private var failure: PrefsClientError?
    private let maxFrameBytes: Int

    init(maxFrameBytes: Int) {
        self.maxFrameBytes = maxFrameBytes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let failure {
            request.promise.fail(failure)
            promise?.fail(failure)
            return
        }
        let id = nextID
        nextID &+= 1
        let payload: [UInt8]
        do {
            payload = try WireFrame.encodePayload(
                WireRequest(id: id, request.operation).dictionary, maxFrameBytes: maxFrameBytes)
        } catch {
            let failure = PrefsClientError(
                .refused, "the request cannot be sent: \(error.message)", serverError: error.wireError)
            request.promise.fail(failure)
            promise?.fail(failure)
            return
        }
        waiting.append((id, request))
        var buffer = context.channel.allocator.buffer(capacity: WireFrame.headerLength + payload.count)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message: WireServerMessage
        do throws(WireError) {
            message = try WireServerMessage(dictionary: unwrapInboundIn(data))
        } catch {
            fail(
                PrefsClientError(
                    .protocolViolation, "prefsd sent a message this client cannot read: \(error.message)",
                    serverError: error), context: context)
            return
        }
        switch message {
        case .reply(let reply):
            guard let (id, request) = waiting.popFirst(), id == reply.id else {
                fail(
                    PrefsClientError(.protocolViolation, "prefsd answered request \(reply.id), which was not next"),
                    context: context)
                return
            }
            if case .success(.subscribe(let serverID, let snapshot)) = reply.outcome, let sink = request.sink {
                routes[serverID] = sink
                sink.serverID.withLock { $0 = serverID }
                if request.isRenewal { sink.continuation.yield(.resync(snapshot)) }
            }
            if case .unsubscribe(let serverID) = request.operation, case .success = reply.outcome {
                routes[serverID] = nil
            }
            request.promise.succeed(reply.outcome)
        case .event(let event):
            switch event {
            case .change(let subscription, let change, let origin):
                routes[subscription]?.continuation.yield(.changes([change], origin: origin))
            case .batch(let subscription, let changes, let origin):
                routes[subscription]?.continuation.yield(.changes(changes, origin: origin))
            case .resync(let subscription, let snapshot):
                routes[subscription]?.continuation.yield(.resync(snapshot))
            case .closing(let error):
                failure = PrefsClientError(
                    error.code == .shuttingDown ? .connectionLost : .refused,
                    "prefsd closed the connection: \(error.code): \(error.message)", serverError: error)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(failure ?? PrefsClientError(.connectionLost, "the connection to prefsd was closed"), context: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        let failure: PrefsClientError
        if let framing = error as? PrefsWireError {
            failure = PrefsClientError(.protocolViolation, "prefsd sent a bad frame: \(framing)")
        } else {
            failure = PrefsClientError(.connectionLost, "the connection to prefsd failed: \(error)")
        }
        fail(failure, context: context)
    }

    /// Fails every waiting request and closes the connection.
    private func fail(_ error: PrefsClientError, context: ChannelHandlerContext?) {
        if failure == nil { failure = error }
        let reason = failure ?? error
        while let (_, request) = waiting.popFirst() { request.promise.fail(reason) }
        routes.removeAll()
        context?.close(promise: nil)
    }
}
