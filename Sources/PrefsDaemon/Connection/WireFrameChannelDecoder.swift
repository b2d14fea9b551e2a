// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsPlist
import PrefsWire

/// Splits a connection's bytes into frames, as a NIO `ByteToMessageDecoder`.
///
/// Every whole frame of a read goes to the connection handler at once (``InboundFrames``), which reads each
/// request when it performs it. A frame's length is checked as soon as its four bytes arrive, so an oversized frame
/// fails before its payload is buffered. The bytes of a frame still arriving are charged to the daemon's
/// ``FrameBudget`` (all connections together), and the frame must arrive whole within the frame timeout of its first
/// byte. Errors are ``PrefsWireError``s; the connection handler answers them with a `closing` event.
struct WireFrameChannelDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundFrames

    let limits: WireLimits
    private let partial: PartialFrame

    init(limits: WireLimits, budget: FrameBudget, frameTimeout: Duration, activity: ConnectionActivity) {
        self.limits = limits
        self.partial = PartialFrame(budget: budget, timeout: frameTimeout, activity: activity)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // Every whole frame of the buffer goes to the handler in one read: pipelined requests then cost one pass
        // through the pipeline, not one each.
        var wholeBytes = 0
        var count = 0
        do {
            while buffer.readableBytes - wholeBytes >= WireFrame.headerLength {
                let length = try buffer.withUnsafeReadableBytes { bytes throws(PrefsWireError) in
                    try WireFrame.payloadLength(
                        header: UnsafeRawBufferPointer(rebasing: bytes[wholeBytes...]), limits: limits)
                }
                let frameLength = WireFrame.headerLength + length
                guard buffer.readableBytes - wholeBytes >= frameLength else { break }
                wholeBytes += frameLength
                count += 1
            }
        } catch {
            // The frames before the bad one are answered before the connection is closed for it.
            handOver(&buffer, wholeBytes: wholeBytes, count: count, context: context)
            throw error
        }
        handOver(&buffer, wholeBytes: wholeBytes, count: count, context: context)
        return try needMore(context, buffer)
    }

    /// Hands the whole frames at the start of the buffer to the handler.
    private func handOver(_ buffer: inout ByteBuffer, wholeBytes: Int, count: Int, context: ChannelHandlerContext) {
        guard count > 0, let frames = buffer.readSlice(length: wholeBytes) else { return }
        partial.frameEnded()
        context.fireChannelRead(wrapInboundOut(InboundFrames(bytes: frames, count: count)))
    }

    /// Accounts for the bytes of the frame still arriving, then waits for more.
    private func needMore(_ context: ChannelHandlerContext, _ buffer: ByteBuffer) throws -> DecodingState {
        try partial.update(buffered: buffer.readableBytes, context: context, limits: limits)
        return .needMoreData
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        let pending = buffer.readableBytes
        guard pending > 0 else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: pending)
        partial.frameEnded()
        if pending < WireFrame.headerLength {
            throw PrefsWireError(
                .malformedFrame, "stream ended inside a frame header: \(pending) of its 4 bytes arrived")
        }
        throw PrefsWireError(.malformedFrame, "stream ended inside a frame: \(pending) of its bytes arrived")
    }

    mutating func decoderRemoved(context: ChannelHandlerContext) {
        partial.frameEnded()
    }
}

/// The frame of one connection that has begun to arrive: its bytes charged to the budget, and its deadline.
///
/// Used on the connection's event loop only.
private final class PartialFrame {
    private let budget: FrameBudget
    private let timeout: Duration
    private let activity: ConnectionActivity
    private var charged = 0
    private var deadline: Scheduled<Void>?

    init(budget: FrameBudget, timeout: Duration, activity: ConnectionActivity) {
        self.budget = budget
        self.timeout = timeout
        self.activity = activity
    }

    /// Charges or releases the difference from the last call, and starts the deadline at the frame's first byte.
    /// - Throws: ``PrefsWireError`` `limitExceeded` naming `maxBufferedFrameBytes` when the budget is spent.
    func update(buffered: Int, context: ChannelHandlerContext, limits: WireLimits) throws {
        guard buffered > 0 else {
            frameEnded()
            return
        }
        if buffered > charged {
            guard budget.charge(buffered - charged) else {
                let held = budget.usedBytes
                frameEnded()
                throw PrefsWireError(
                    .limitExceeded,
                    "a frame of this connection would bring the bytes of incomplete frames of all connections "
                        + "beyond maxBufferedFrameBytes (\(budget.capacityBytes); \(held) held)",
                    limit: .maxBufferedFrameBytes)
            }
        } else {
            budget.release(charged - buffered)
        }
        charged = buffered
        if deadline == nil { arm(context) }
    }

    /// Starts the frame's deadline; a frame the server stopped reading (its reads are held) gets another period.
    private func arm(_ context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            let (frame, context) = loopBound.value
            frame.deadline = nil
            guard frame.charged > 0 else { return }
            if frame.activity.readsHeld {
                frame.arm(context)
                return
            }
            context.fireErrorCaught(
                PrefsWireError(
                    .timedOut,
                    "a frame did not arrive whole within \(frame.timeout) of its first byte (FrameTimeoutSeconds)"))
        }
    }

    /// The frame arrived whole, or the connection ended: releases its bytes and its deadline.
    func frameEnded() {
        budget.release(charged)
        charged = 0
        deadline?.cancel()
        deadline = nil
    }
}
