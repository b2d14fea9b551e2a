// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The framing of the protocol: a 4-byte big-endian payload length, then the payload, one binary property list
/// (`bplist00`) whose top-level object is a dictionary.
///
/// ``WireFrameDecoder`` reads a stream of frames; the static functions here serve a transport that splits the
/// stream itself (a NIO `ByteToMessageDecoder`, say) and wants to decode payloads in place.
public enum WireFrame {
    /// The length of the length prefix, in bytes.
    public static let headerLength = 4

    /// How many container levels a message adds around a stored value (e.g. a batch event → `changes` array →
    /// change dictionary → value), and so how much deeper than ``WireLimits/maxDepth`` a frame may nest.
    public static let envelopeDepth = 3

    /// Whether a payload starts with the magic bytes every payload starts with, `bplist00` (compared as one
    /// eight-byte word: every request checks it).
    static func startsWithBinaryPlistMagic(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard payload.count >= 8, let base = payload.baseAddress else { return false }
        // "bplist00" read as a big-endian word.
        return UInt64(bigEndian: base.loadUnaligned(as: UInt64.self)) == 0x6270_6C69_7374_3030
    }

    /// Encodes a message dictionary as a whole frame: length prefix and payload.
    /// - Parameters:
    ///   - dictionary: The message, e.g. ``WireReply/dictionary``.
    ///   - maxFrameBytes: The largest payload the peer accepts.
    /// - Returns: The frame's bytes.
    /// - Throws: ``PrefsWireError`` `limitExceeded` naming `maxFrameBytes` when the payload is larger, or
    ///   `unencodable` when the property-list writer fails.
    public static func encode(
        _ dictionary: PlistDictionary, maxFrameBytes: Int = WireLimits.default.maxFrameBytes
    ) throws(PrefsWireError) -> [UInt8] {
        let payload = try encodePayload(dictionary, maxFrameBytes: maxFrameBytes)
        var frame: [UInt8] = []
        frame.reserveCapacity(headerLength + payload.count)
        appendHeader(payloadLength: payload.count, to: &frame)
        frame.append(contentsOf: payload)
        return frame
    }

    /// Encodes a message dictionary as a frame payload, without the length prefix.
    /// - Parameters:
    ///   - dictionary: The message.
    ///   - maxFrameBytes: The largest payload the peer accepts.
    /// - Returns: The binary property list.
    /// - Throws: ``PrefsWireError`` `limitExceeded` naming `maxFrameBytes`, or `unencodable`.
    public static func encodePayload(
        _ dictionary: PlistDictionary, maxFrameBytes: Int = WireLimits.default.maxFrameBytes
    ) throws(PrefsWireError) -> [UInt8] {
        let payload: [UInt8]
        do {
            payload = try PlistSerialization.encode(.dictionary(dictionary), format: .binary)
        } catch {
            throw PrefsWireError(.unencodable, "message cannot be written as a binary property list", cause: error)
        }
        let limit = min(maxFrameBytes, Int(UInt32.max))
        guard payload.count <= limit else {
            throw PrefsWireError(
                .limitExceeded, "message of \(payload.count) bytes exceeds maxFrameBytes (\(limit))",
                limit: .maxFrameBytes)
        }
        return payload
    }

    /// Appends the 4-byte big-endian length prefix for a payload of `payloadLength` bytes.
    /// - Parameters:
    ///   - payloadLength: The payload's length; at most `UInt32.max`.
    ///   - bytes: Where to append the prefix.
    public static func appendHeader(payloadLength: Int, to bytes: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: payloadLength)
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
    }

    /// Reads a length prefix and checks it against the limits, so that a transport can refuse a frame before it
    /// buffers the payload.
    /// - Parameters:
    ///   - header: At least ``headerLength`` bytes; the first four are read.
    ///   - limits: The limits; `maxFrameBytes` applies.
    /// - Returns: The payload length.
    /// - Throws: ``PrefsWireError`` `malformedFrame` for a zero length or a short header, `limitExceeded` naming
    ///   `maxFrameBytes` for a longer payload than allowed.
    public static func payloadLength(
        header: UnsafeRawBufferPointer, limits: WireLimits = .default
    ) throws(PrefsWireError) -> Int {
        guard header.count >= headerLength else {
            throw PrefsWireError(.malformedFrame, "frame header of \(header.count) bytes is shorter than 4 bytes")
        }
        var length = 0
        for index in 0..<headerLength {
            length = length << 8 | Int(header[index])
        }
        return try checkedPayloadLength(length, limits: limits)
    }

    /// Decodes the frame at the start of buffered stream bytes, for a transport that buffers the stream itself (the
    /// daemon's NIO decoder): the length prefix is checked as soon as its four bytes are there, and the payload is
    /// decoded in place once all of it is.
    /// - Parameters:
    ///   - bytes: The buffered bytes, starting at a frame boundary; read only during the call.
    ///   - limits: The limits; `maxFrameBytes`, `maxFrameObjects` and `maxDepth` apply.
    /// - Returns: The message and the frame's length with its prefix (the bytes to drop), or `nil` while the
    ///   frame has not wholly arrived.
    /// - Throws: ``PrefsWireError`` as ``payloadLength(header:limits:)`` and ``decodePayload(_:limits:)`` do.
    public static func decodeFrame(
        atStartOf bytes: UnsafeRawBufferPointer, limits: WireLimits = .default
    ) throws(PrefsWireError) -> (message: PlistDictionary, length: Int)? {
        guard bytes.count >= headerLength else { return nil }
        let frameLength = headerLength + (try payloadLength(header: bytes, limits: limits))
        guard bytes.count >= frameLength else { return nil }
        let message = try decodePayload(
            UnsafeRawBufferPointer(rebasing: bytes[headerLength..<frameLength]), limits: limits)
        return (message, frameLength)
    }

    /// Checks a payload length read from a header.
    static func checkedPayloadLength(_ length: Int, limits: WireLimits) throws(PrefsWireError) -> Int {
        guard length > 0 else {
            throw PrefsWireError(.malformedFrame, "frame declares an empty payload; a frame holds one dictionary")
        }
        guard length <= limits.maxFrameBytes else {
            throw PrefsWireError(
                .limitExceeded, "frame of \(length) bytes exceeds maxFrameBytes (\(limits.maxFrameBytes))",
                limit: .maxFrameBytes)
        }
        return length
    }

    /// Decodes one frame payload (without its length prefix) in place.
    /// - Parameters:
    ///   - payload: The payload's bytes; read only during the call.
    ///   - limits: The limits; `maxFrameBytes`, `maxFrameObjects` and `maxDepth` apply.
    /// - Returns: The message dictionary.
    /// - Throws: ``PrefsWireError`` `malformedFrame` when the payload is not a binary property list dictionary,
    ///   `limitExceeded` when it is too large, too deep or has too many objects.
    public static func decodePayload(
        _ payload: UnsafeRawBufferPointer, limits: WireLimits = .default
    ) throws(PrefsWireError) -> PlistDictionary {
        _ = try checkedPayloadLength(payload.count, limits: limits)
        guard startsWithBinaryPlistMagic(payload) else {
            throw PrefsWireError(.malformedFrame, "frame payload is not a binary property list (no bplist00 header)")
        }
        let decodingLimits = limits.frameDecodingLimits
        let value: PlistValue
        do {
            value = try PlistSerialization.decode(payload, format: .binary, limits: decodingLimits).value
        } catch let error as PlistError where error.code == .limitExceeded {
            // The reader's depth errors say the value "nests"; its other limit errors are about object counts (the
            // input size was checked above).
            if error.message.containsText("nests") {
                throw PrefsWireError(
                    .limitExceeded,
                    "frame payload exceeds maxDepth (\(limits.maxDepth), plus \(envelopeDepth) levels of message)",
                    limit: .maxDepth, cause: error)
            }
            throw PrefsWireError(
                .limitExceeded, "frame payload exceeds maxFrameObjects (\(limits.maxFrameObjects))",
                limit: .maxFrameObjects, cause: error)
        } catch {
            throw PrefsWireError(.malformedFrame, "frame payload is not a valid binary property list", cause: error)
        }
        guard case .dictionary(let dictionary) = value else {
            throw PrefsWireError(.malformedFrame, "frame payload is of type \(value.typeName), not a dictionary")
        }
        return dictionary
    }
}
