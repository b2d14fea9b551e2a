// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// What ``WireFrameChannelDecoder`` hands the connection handler for one read: every whole frame that arrived, as
/// the bytes they came in (length prefixes included, each checked against the limits).
///
/// The handler reads each frame's request only when it performs it, straight from these bytes: requests do not pass
/// through a queue of decoded values, each of which would be copied on the way in and out.
struct InboundFrames {
    /// The frames, each a 4-byte big-endian payload length and its payload.
    var bytes: ByteBuffer
    /// How many frames `bytes` holds.
    var count: Int
}
