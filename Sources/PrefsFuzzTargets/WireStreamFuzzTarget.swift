// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsWire

/// The fuzz target of prefsd's receiving path: the input is the byte stream of one connection.
///
/// The stream is split into frames as the daemon's NIO decoder splits it (``WireFrame/decodeFrame(atStartOf:limits:)``
/// on the bytes not yet consumed, until a frame is incomplete or fails), and each frame is read as a request, as
/// the connection handler reads it (``WireRequest/init(dictionary:)``). Besides "no crash", it checks that:
/// - where the daemon's fast path for frequent requests (``WireRequest/init(flatPayload:limits:)``) reads a frame,
///   the general way reads the same frame and the same request;
/// - the client's incremental ``WireFrameDecoder``, fed the same stream whole and in chunks whose sizes the input
///   chooses, agrees: it delivers the same frames, fails exactly when the daemon's split fails, and leaves the
///   same bytes over;
/// - a frame re-encodes to a frame that decodes to the same message, and re-encoding that gives the same bytes;
/// - a request reads back unchanged from its own dictionary, also through a frame;
/// - the daemon's answer to a refused request (an error reply, or a `closing` event when the request's `id`
///   cannot be read) encodes, and the client reads it back as the same message;
/// - a frame that reads as a server message (the client's path) reads back unchanged from its own dictionary.
public enum WireStreamFuzzTarget {
    /// What the daemon's decoder makes of a stream.
    struct Split {
        /// The frames it delivers, in order.
        var frames: [PlistDictionary] = []
        /// For each frame, what `WireRequest(dictionary:)` made of it when the fast path's check already called it
        /// (`checkRequest` needs the same call on the same message, a function of it); `nil` otherwise.
        var requests: [Result<WireRequest, WireRequest.Rejection>?] = []
        /// The error that ends the connection, if any.
        var failure: PrefsWireError?
        /// The bytes of an incomplete last frame, when there is no failure.
        var leftover = 0
    }

    /// Runs the checks on one input.
    /// - Parameter input: The bytes a connection receives.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let limits = WireLimits.default
        let split = daemonSplit(input, limits: limits)
        checkDecoder(input, chunked: false, against: split, limits: limits)
        checkDecoder(input, chunked: true, against: split, limits: limits)
        for (frame, read) in zip(split.frames, split.requests) {
            let reencoded = checkFrame(frame, limits: limits)
            checkRequest(frame, read: read, reencoded: reencoded, limits: limits)
            checkServerMessage(frame, limits: limits)
        }
    }

    /// Splits a stream as `WireFrameChannelDecoder` does.
    static func daemonSplit(_ input: UnsafeRawBufferPointer, limits: WireLimits) -> Split {
        var split = Split()
        var offset = 0
        reading: while true {
            let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
            let fast = fastRequest(atStartOf: rest, limits: limits)
            do throws(PrefsWireError) {
                guard let frame = try WireFrame.decodeFrame(atStartOf: rest, limits: limits) else {
                    FuzzInvariant.require(fast == nil, "the fast path read a frame the general way finds incomplete")
                    break reading
                }
                var read: Result<WireRequest, WireRequest.Rejection>?
                if let fast {
                    read = Result { () throws(WireRequest.Rejection) in try WireRequest(dictionary: frame.message) }
                    let general = try? read?.get()
                    FuzzInvariant.require(
                        general == fast,
                        "the fast path read \(fast), the general way \(general.map { "\($0)" } ?? "no request")")
                }
                FuzzInvariant.require(
                    frame.length > WireFrame.headerLength && frame.length <= rest.count,
                    "a frame of \(frame.length) bytes was decoded from \(rest.count) bytes")
                split.frames.append(frame.message)
                split.requests.append(read)
                offset += frame.length
            } catch {
                FuzzInvariant.require(fast == nil, "the fast path read \(fast!), the general way refused it: \(error)")
                FuzzInvariant.require(!error.message.isEmpty, "a framing error has no message")
                split.failure = error
                return split
            }
        }
        split.leftover = input.count - offset
        return split
    }

    /// What the daemon's fast path reads from the frame at the start of `bytes`, when the whole frame is there.
    static func fastRequest(atStartOf bytes: UnsafeRawBufferPointer, limits: WireLimits) -> WireRequest? {
        guard bytes.count >= WireFrame.headerLength,
            let length = try? WireFrame.payloadLength(header: bytes, limits: limits),
            bytes.count - WireFrame.headerLength >= length
        else { return nil }
        let payload = UnsafeRawBufferPointer(
            rebasing: bytes[WireFrame.headerLength..<(WireFrame.headerLength + length)])
        return WireRequest(flatPayload: payload, limits: limits)
    }

    /// Feeds the stream to a ``WireFrameDecoder`` and compares what it delivers with the daemon's split.
    static func checkDecoder(_ input: UnsafeRawBufferPointer, chunked: Bool, against split: Split, limits: WireLimits) {
        let name = chunked ? "WireFrameDecoder fed in chunks" : "WireFrameDecoder fed the whole stream"
        var decoder = WireFrameDecoder(limits: limits)
        var frames: [PlistDictionary] = []
        var failure: PrefsWireError?
        var start = 0
        feeding: while start < input.count {
            // The byte at a chunk's start chooses the chunk's size, so the input controls the chunking too.
            let end = chunked ? min(input.count, start + 1 + Int(input[start]) % 61) : input.count
            do throws(PrefsWireError) {
                try decoder.append(UnsafeRawBufferPointer(rebasing: input[start..<end]))
                while let frame = try decoder.nextFrame() { frames.append(frame) }
            } catch {
                failure = error
                break feeding
            }
            start = end
        }
        FuzzInvariant.require(
            frames.count <= split.frames.count && Array(split.frames.prefix(frames.count)) == frames,
            "\(name) delivered \(frames.count) frames that are not the first ones the daemon's decoder delivered")
        FuzzInvariant.require(
            (failure == nil) == (split.failure == nil),
            "\(name) \(failure.map { "failed (\($0))" } ?? "did not fail"), the daemon's decoder "
                + "\(split.failure.map { "failed (\($0))" } ?? "did not fail")")
        if let failure {
            FuzzInvariant.require(!failure.message.isEmpty, "a framing error has no message")
            // A failed decoder stays failed, with the same error.
            do throws(PrefsWireError) {
                try decoder.append([UInt8]())
                FuzzInvariant.fail("\(name) accepted bytes after failing")
            } catch {
                FuzzInvariant.require(
                    error.code == failure.code && error.message == failure.message,
                    "\(name) failed with \(failure), then with \(error)")
            }
            return
        }
        FuzzInvariant.require(
            frames.count == split.frames.count,
            "\(name) delivered \(frames.count) frames, the daemon's decoder \(split.frames.count)")
        FuzzInvariant.require(
            decoder.bufferedByteCount == split.leftover,
            "\(name) holds \(decoder.bufferedByteCount) bytes, the daemon's decoder \(split.leftover)")
        let finished = Result { () throws(PrefsWireError) in try decoder.finish() }
        if case .failure(let error) = finished {
            FuzzInvariant.require(split.leftover > 0, "\(name) refused a stream that ended between frames: \(error)")
        } else {
            FuzzInvariant.require(split.leftover == 0, "\(name) accepted a stream that ended inside a frame")
        }
    }

    /// A frame's message re-encodes to a frame that decodes to it, and the encoding is a fixed point.
    /// - Returns: The re-encoded frame and what it decoded to, when the message fits in a frame.
    @discardableResult
    static func checkFrame(
        _ message: PlistDictionary, limits: WireLimits
    ) -> (frame: [UInt8], decoded: PlistDictionary)? {
        guard let encoded = encodeFrame(message, limits: limits, what: "a decoded frame") else { return nil }
        let again = decodeWholeFrame(encoded, limits: limits, what: "a re-encoded frame")
        FuzzInvariant.require(again == message, "a re-encoded frame decodes to another message")
        FuzzInvariant.require(
            encodeFrame(again, limits: limits, what: "a re-decoded frame") == encoded,
            "encoding a decoded frame again gives other bytes")
        return (encoded, again)
    }

    /// A frame as the daemon's connection handler reads it: a request, or a rejection it answers.
    /// - Parameters:
    ///   - read: What `WireRequest(dictionary: message)` gave, when it was already called; `nil` calls it.
    ///   - reencoded: The message's own frame and what it decoded to (``checkFrame(_:limits:)``), if any.
    static func checkRequest(
        _ message: PlistDictionary, read: Result<WireRequest, WireRequest.Rejection>? = nil,
        reencoded: (frame: [UInt8], decoded: PlistDictionary)? = nil, limits: WireLimits
    ) {
        let request: WireRequest
        switch read ?? Result(catching: { () throws(WireRequest.Rejection) in try WireRequest(dictionary: message) }) {
        case .success(let read): request = read
        case .failure(let error):
            checkRejection(error, of: message, limits: limits)
            return
        }
        if case .hello(let hello) = request.operation {
            // The handler's next step for a hello; a version outside the supported range is an error, not a crash.
            _ = Result { () throws(WireError) in try hello.negotiatedVersion() }
        }
        let dictionary = request.dictionary
        do throws(WireRequest.Rejection) {
            FuzzInvariant.require(
                try WireRequest(dictionary: dictionary) == request, "a request reads back changed from its dictionary")
            guard let frame = encodeFrame(dictionary, limits: limits, what: "a request") else { return }
            // Most requests' dictionaries are the message itself; the same bytes were decoded, whole, by checkFrame,
            // and decoding is a function of the bytes, so that result stands for this one.
            let decoded =
                reencoded.flatMap { $0.frame == frame ? $0.decoded : nil }
                ?? decodeWholeFrame(frame, limits: limits, what: "a request's frame")
            FuzzInvariant.require(
                try WireRequest(dictionary: decoded) == request, "a request reads back changed from its frame")
        } catch {
            FuzzInvariant.fail("a request's own dictionary is refused: \(error.error)")
        }
    }

    /// The daemon's answer to a refused request reaches the client intact.
    static func checkRejection(
        _ rejection: WireRequest.Rejection, of message: PlistDictionary, limits: WireLimits
    ) {
        FuzzInvariant.require(!rejection.error.message.isEmpty, "a refused request's error has no message")
        if case .integer(let id)? = message["id"], id.uint64Value != nil {
            FuzzInvariant.require(
                rejection.id == id.uint64Value, "a request with id \(id) was refused without its id: \(rejection.error)"
            )
        }
        let answer: WireServerMessage = rejection.reply.map { .reply($0) } ?? .event(.closing(rejection.error))
        guard let frame = encodeFrame(answer.dictionary, limits: limits, what: "the answer to a refused request")
        else { return }
        let decoded = decodeWholeFrame(frame, limits: limits, what: "the answer to a refused request")
        do throws(WireError) {
            FuzzInvariant.require(
                try WireServerMessage(dictionary: decoded) == answer,
                "the client reads the answer to a refused request (\(rejection.error)) as another message")
        } catch {
            FuzzInvariant.fail("the client cannot read the answer to a refused request (\(rejection.error)): \(error)")
        }
    }

    /// A frame as the client reads a server's message.
    static func checkServerMessage(_ message: PlistDictionary, limits: WireLimits) {
        guard let serverMessage = try? WireServerMessage(dictionary: message) else { return }
        do throws(WireError) {
            FuzzInvariant.require(
                try WireServerMessage(dictionary: serverMessage.dictionary) == serverMessage,
                "a server message reads back changed from its dictionary")
        } catch {
            FuzzInvariant.fail("a server message's own dictionary is refused: \(error)")
        }
    }

    /// A message as a whole frame; `nil` only when it is larger than a frame may be.
    static func encodeFrame(_ message: PlistDictionary, limits: WireLimits, what: String) -> [UInt8]? {
        do throws(PrefsWireError) {
            return try WireFrame.encode(message, maxFrameBytes: limits.maxFrameBytes)
        } catch {
            FuzzInvariant.require(error.code == .limitExceeded, "\(what) cannot be encoded: \(error)")
            return nil
        }
    }

    /// The message of a frame that must decode, whole, to exactly one message.
    static func decodeWholeFrame(_ frame: [UInt8], limits: WireLimits, what: String) -> PlistDictionary {
        let decoded = frame.withUnsafeBytes { bytes in
            Result { () throws(PrefsWireError) in try WireFrame.decodeFrame(atStartOf: bytes, limits: limits) }
        }
        switch decoded {
        case .success(let result?):
            FuzzInvariant.require(
                result.length == frame.count, "\(what) of \(frame.count) bytes decodes as \(result.length) bytes")
            return result.message
        case .success(nil):
            FuzzInvariant.fail("\(what) of \(frame.count) bytes is not a whole frame")
        case .failure(let error):
            FuzzInvariant.fail("\(what) does not decode: \(error)")
        }
    }
}
