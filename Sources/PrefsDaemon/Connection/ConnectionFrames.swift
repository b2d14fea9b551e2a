// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsPlist
import PrefsWire

/// The frames a connection's handlers write, made one way for all of them: replies (the flat encoder where it
/// applies, the general one otherwise, a `limitExceeded` reply for one too large), events, and the `closing`
/// event before the server closes the connection.
enum ConnectionFrames {
    /// Appends the frame of a reply to `buffer`; one too large for a frame becomes a `limitExceeded` error reply.
    static func appendReply(_ reply: WireReply, to buffer: inout ByteBuffer, maxFrameBytes: Int) {
        if FlatReplyEncoder.appendFrame(of: reply, to: &buffer, maxFrameBytes: maxFrameBytes) { return }
        do throws(PrefsWireError) {
            try appendMessage(reply.dictionary, to: &buffer, maxFrameBytes: maxFrameBytes)
        } catch {
            let failure = WireReply(
                id: reply.id,
                .failure(
                    error.code == .limitExceeded
                        ? WireError(.limitExceeded, error.message, limit: .maxFrameBytes)
                        : WireError(.internal, error.description)))
            try? appendMessage(failure.dictionary, to: &buffer, maxFrameBytes: maxFrameBytes)
        }
    }

    /// Appends the frame of a message (a reply's or an event's dictionary) to `buffer`.
    /// - Throws: ``/PrefsWire/PrefsWireError`` when it cannot be encoded within `maxFrameBytes`.
    static func appendMessage(
        _ dictionary: PlistDictionary, to buffer: inout ByteBuffer, maxFrameBytes: Int
    ) throws(PrefsWireError) {
        let payload: [UInt8]
        if let flat = FlatReplyEncoder.encode(dictionary), flat.count <= maxFrameBytes {
            payload = flat
        } else {
            payload = try WireFrame.encodePayload(dictionary, maxFrameBytes: maxFrameBytes)
        }
        buffer.reserveCapacity(minimumWritableBytes: WireFrame.headerLength + payload.count)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
    }

    /// Sends a `closing` event with the reason, then closes the channel. A peer that does not read would never
    /// receive the event, so a channel that is not writable is closed at once.
    static func close(_ context: ChannelHandlerContext, with error: WireError) {
        let channel = context.channel
        var buffer = channel.allocator.buffer(capacity: 256)
        guard channel.isWritable,
            (try? appendMessage(WireEvent.closing(error).dictionary, to: &buffer, maxFrameBytes: .max)) != nil
        else {
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
