import NIOCore
import PrefsPlist
import PrefsWire

/// Splits the daemon's bytes into frames and decodes each one, as a NIO `ByteToMessageDecoder`.
struct ClientFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = [String: PlistValue]

    /// The limits applied to what the daemon sends; its frames are bounded by its own `maxFrameBytes`, so the
    /// client accepts up to that of the default limits, and nests as deep as the protocol allows.
    let limits: WireLimits

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes >= WireFrame.headerLength else { return .needMoreData }
        let length = try buffer.withUnsafeReadableBytes { bytes throws(PrefsWireError) in
            try WireFrame.payloadLength(header: bytes, limits: limits)
        }
        let frameLength = WireFrame.headerLength + length
        guard buffer.readableBytes >= frameLength else { return .needMoreData }
        let message = try buffer.withUnsafeReadableBytes { bytes throws(PrefsWireError) in
            try WireFrame.decodePayload(
                UnsafeRawBufferPointer(rebasing: bytes[WireFrame.headerLength..<frameLength]), limits: limits)
        }
        buffer.moveReaderIndex(forwardBy: frameLength)
        context.fireChannelRead(wrapInboundOut(message))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        let pending = buffer.readableBytes
        guard pending > 0 else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: pending)
        throw PrefsWireError(.malformedFrame, "prefsd closed the connection inside a frame (\(pending) bytes of it)")
    }
}
