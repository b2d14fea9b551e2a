// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsWire

/// Turns away a connection the daemon does not serve (another uid, too many connections): sends one `closing`
/// event with the reason, then shuts its side down (a half-close), so that the peer reads the event and then end
/// of stream. What the peer sends meanwhile is read and dropped, and the connection is closed when the peer closes
/// its side, or after ``lingerTime`` at most: closing while unread bytes wait would reset the connection, and the
/// peer could lose the event.
final class RefusingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How long a refused connection is kept for its peer to read the event and close.
    static let lingerTime: TimeAmount = .seconds(2)

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
        channel.eventLoop.scheduleTask(in: Self.lingerTime) { channel.close(promise: nil) }
        guard let payload = try? WireFrame.encodePayload(WireEvent.closing(error).dictionary, maxFrameBytes: .max)
        else {
            channel.close(promise: nil)
            return
        }
        var buffer = channel.allocator.buffer(capacity: WireFrame.headerLength + payload.count)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
    }

    /// Whatever the refused peer sends is dropped.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    /// The peer closed its side after reading the event: close the connection.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            context.channel.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
