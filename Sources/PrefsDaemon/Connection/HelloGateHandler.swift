// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import PrefsPlist
import PrefsWire

/// The first stage of a connection: until a `hello` negotiates the protocol version, every other request is
/// answered with an error (`badField` "before hello") and performed nowhere. Once the version is negotiated the
/// gate hands on the frames received after the `hello` (a client may pipeline its first request behind it) and
/// removes itself, so that requests pass no check for it afterwards.
final class HelloGateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = InboundFrames
    typealias InboundOut = InboundFrames
    typealias OutboundOut = ByteBuffer

    private let limits: WireLimits
    private let serverName: String
    private let logger: Logger
    private var isClosing = false

    init(limits: WireLimits, serverName: String, logger: Logger) {
        self.limits = limits
        self.serverName = serverName
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        var frames = unwrapInboundIn(data)
        var replies = context.channel.allocator.buffer(capacity: 256)
        while frames.count > 0 {
            // The decoder hands whole frames only, each length checked.
            guard let length = frames.bytes.readInteger(endianness: .big, as: UInt32.self),
                let payload = frames.bytes.readSlice(length: Int(length))
            else { break }
            frames.count -= 1
            switch answer(payload) {
            case .reply(let reply, let negotiated):
                ConnectionFrames.appendReply(reply, to: &replies, maxFrameBytes: limits.maxFrameBytes)
                guard negotiated else { continue }
                context.writeAndFlush(wrapOutboundOut(replies), promise: nil)
                if frames.count > 0 { context.fireChannelRead(wrapInboundOut(frames)) }
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            case .close(let error):
                if replies.readableBytes > 0 { context.write(wrapOutboundOut(replies), promise: nil) }
                isClosing = true
                context.fireUserInboundEventTriggered(ConnectionEvent.closing)
                ConnectionFrames.close(context, with: error)
                return
            }
        }
        if replies.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(replies), promise: nil) }
    }

    /// What a frame received before the version is negotiated gets.
    private enum Answer {
        /// A reply; `negotiated` when it accepted a `hello`.
        case reply(WireReply, negotiated: Bool)
        /// The frame breaks the protocol: close with this error.
        case close(WireError)
    }

    private func answer(_ payload: ByteBuffer) -> Answer {
        let decoded = payload.withUnsafeReadableBytes { bytes in
            Result { () throws(PrefsWireError) in try WireFrame.decodePayload(bytes, limits: limits) }
        }
        let request: WireRequest
        switch decoded {
        case .success(let message):
            do throws(WireRequest.Rejection) {
                request = try WireRequest(dictionary: message)
            } catch {
                guard let reply = error.reply else { return .close(error.error) }
                return .reply(reply, negotiated: false)
            }
        case .failure(let error):
            logger.notice("closing a connection that sent a bad frame", metadata: ["error": "\(error)"])
            return .close(error.wireError)
        }
        guard case .hello(let hello) = request.operation else {
            let name = request.operation.name.rawValue
            return .reply(
                WireReply(
                    id: request.id,
                    .failure(.badField("op", "is \(name) before hello: the first request must be hello"))
                ), negotiated: false)
        }
        do throws(WireError) {
            let version = try hello.negotiatedVersion()
            logger.debug(
                "client said hello", metadata: ["client": "\(hello.client ?? "unnamed")", "version": "\(version)"])
            let result = WireHelloResult(version: version, server: serverName, limits: limits)
            return .reply(WireReply(id: request.id, .success(.hello(result))), negotiated: true)
        } catch {
            return .reply(WireReply(id: request.id, .failure(error)), negotiated: false)
        }
    }
}
