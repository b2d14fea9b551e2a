import NIOCore
import PrefsPlist
import PrefsWire

/// Splits a connection's bytes into frames and decodes each one in place, as a NIO `ByteToMessageDecoder`.
///
/// A frame's length is checked as soon as its four bytes arrive, so an oversized frame fails before its payload
/// is buffered. Errors are ``PrefsWireError``s; the connection handler answers them with a `closing` event.
struct WireFrameChannelDecoder: ByteToMessageDecoder {
    typealias InboundOut = [String: PlistValue]

    let limits: WireLimits

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let frame = try buffer.withUnsafeReadableBytes { bytes throws(PrefsWireError) in
            try WireFrame.decodeFrame(atStartOf: bytes, limits: limits)
        }
        guard let frame else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: frame.length)
        context.fireChannelRead(wrapInboundOut(frame.message))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        let pending = buffer.readableBytes
        guard pending > 0 else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: pending)
        if pending < WireFrame.headerLength {
            throw PrefsWireError(
                .malformedFrame, "stream ended inside a frame header: \(pending) of its 4 bytes arrived")
        }
        throw PrefsWireError(.malformedFrame, "stream ended inside a frame: \(pending) of its bytes arrived")
    }
}
