import NIOCore
import PrefsWire

/// Turns away a connection the daemon does not serve (another uid, too many connections): sends one `closing`
/// event with the reason, then closes.
final class RefusingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let error: WireError

    init(_ error: WireError) {
        self.error = error
    }

    private var sent = false

    /// The handler may be added after the channel became active (the peer's credentials are read first).
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context: context)
    }

    private func refuse(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let channel = context.channel
        guard let payload = try? WireFrame.encodePayload(WireEvent.closing(error).dictionary, maxFrameBytes: .max)
        else {
            channel.close(promise: nil)
            return
        }
        var buffer = channel.allocator.buffer(capacity: WireFrame.headerLength + payload.count)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Whatever the refused peer sends is dropped.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
