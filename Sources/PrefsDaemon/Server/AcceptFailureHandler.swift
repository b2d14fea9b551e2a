// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// Watches the listening channel for accepts that fail because descriptors or memory ran out, and hands them to
/// the server, which stops accepting for a while.
///
/// NIO leaves such a listening socket registered for reading after the failed `accept`, so the event loop would
/// try again at once, forever, at 100 % of a core (NIO's `AcceptBackoffHandler` cannot help: the failed accept
/// leaves its read pending, so no new read is asked for). The server turns the channel's `autoRead` off instead,
/// which takes the socket out of the read interest, and on again after a pause.
final class AcceptFailureHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel

    private let onExhaustion: @Sendable (any Error, any Channel) -> Void

    init(onExhaustion: @escaping @Sendable (any Error, any Channel) -> Void) {
        self.onExhaustion = onExhaustion
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if DaemonSystem.isResourceExhaustion(error) {
            onExhaustion(error, context.channel)
            return
        }
        context.fireErrorCaught(error)
    }
}
