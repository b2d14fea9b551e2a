// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// Splits a byte stream into frames and decodes each one: feed it chunks of any size as they arrive, then take
/// out the whole frames they completed.
///
/// A frame's length prefix is checked as soon as its four bytes arrive, so an oversized frame fails before its
/// payload is buffered. After any error the decoder stays failed (every call throws the same error): the
/// stream has no trustworthy frame boundary left, and the connection must be closed.
///
/// ```swift
/// var decoder = WireFrameDecoder(limits: limits)
/// try decoder.append(chunk)
/// while let message = try decoder.nextFrame() { handle(message) }
/// ```
public struct WireFrameDecoder: Sendable {
    /// The limits applied to every frame.
    public let limits: WireLimits

    /// Received bytes; `buffer[readIndex...]` is not yet delivered.
    private var buffer: [UInt8] = []
    /// The start of the first frame not yet delivered.
    private var readIndex = 0
    /// The start of the first frame whose length prefix has not been checked; at or after `readIndex`.
    private var checkedIndex = 0
    /// The error that ended the stream, repeated by every later call.
    private var failure: PrefsWireError?

    /// A buffer that grew past this for one large frame is released once it is drained, instead of being kept
    /// for the life of the connection.
    private static let retainedCapacity = 64 << 10

    /// Creates a decoder.
    /// - Parameter limits: The frame limits: `maxFrameBytes`, `maxFrameObjects`, `maxDepth`.
    public init(limits: WireLimits = .default) {
        self.limits = limits
    }

    /// The number of received bytes not yet delivered as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    /// - Parameter bytes: The next chunk of the stream, of any size.
    /// - Throws: ``PrefsWireError`` `malformedFrame` for a zero-length frame, `limitExceeded` naming
    ///   `maxFrameBytes` for a frame longer than allowed; the bytes are dropped.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(PrefsWireError) {
        if let failure { throw failure }
        compact()
        buffer.append(contentsOf: bytes)
        try checkHeaders()
    }

    /// Adds received bytes.
    /// - Parameter bytes: The next chunk of the stream, of any size.
    /// - Throws: ``PrefsWireError`` as ``append(_:)-(UnsafeRawBufferPointer)`` does.
    public mutating func append(_ bytes: [UInt8]) throws(PrefsWireError) {
        if let failure { throw failure }
        compact()
        buffer.append(contentsOf: bytes)
        try checkHeaders()
    }

    /// Decodes and removes the next whole frame.
    /// - Returns: The frame's message dictionary, or `nil` when no whole frame is buffered.
    /// - Throws: ``PrefsWireError`` `malformedFrame` when the payload is not a binary property list dictionary,
    ///   `limitExceeded` when it is too deep or has too many objects.
    public mutating func nextFrame() throws(PrefsWireError) -> PlistDictionary? {
        if let failure { throw failure }
        guard let length = headerLength(at: readIndex) else { return nil }
        let payloadStart = readIndex + WireFrame.headerLength
        guard buffer.count - payloadStart >= length else { return nil }
        let result = buffer.withUnsafeBytes { bytes in
            Result { () throws(PrefsWireError) in
                try WireFrame.decodePayload(
                    UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + length]), limits: limits)
            }
        }
        switch result {
        case .success(let dictionary):
            readIndex = payloadStart + length
            checkedIndex = max(checkedIndex, readIndex)
            return dictionary
        case .failure(let error):
            fail(error)
            throw error
        }
    }

    /// Checks that the stream ended between frames; call it when the peer closes its side.
    /// - Throws: ``PrefsWireError`` `malformedFrame` naming how much of a frame had arrived, or the error that
    ///   failed the decoder earlier.
    public func finish() throws(PrefsWireError) {
        if let failure { throw failure }
        let pending = bufferedByteCount
        guard pending > 0 else { return }
        let header = WireFrame.headerLength
        guard let length = headerLength(at: readIndex) else {
            throw PrefsWireError(
                .malformedFrame, "stream ended inside a frame header: \(pending) of its \(header) bytes arrived")
        }
        throw PrefsWireError(
            .malformedFrame, "stream ended inside a frame: \(pending - header) of its \(length) payload bytes arrived")
    }

    // MARK: - Buffer management

    /// The payload length declared by the header at `offset`, when all four of its bytes are buffered.
    private func headerLength(at offset: Int) -> Int? {
        guard buffer.count - offset >= WireFrame.headerLength else { return nil }
        return Int(buffer[offset]) << 24 | Int(buffer[offset + 1]) << 16 | Int(buffer[offset + 2]) << 8
            | Int(buffer[offset + 3])
    }

    /// Checks every length prefix that arrived.
    private mutating func checkHeaders() throws(PrefsWireError) {
        while let declared = headerLength(at: checkedIndex) {
            let length: Int
            do {
                length = try WireFrame.checkedPayloadLength(declared, limits: limits)
            } catch {
                fail(error)
                throw error
            }
            let frameEnd = checkedIndex + WireFrame.headerLength + length
            // Nothing is reserved for the declared length: memory follows the bytes that actually arrived, so a
            // peer cannot make the server allocate a whole frame by sending a header alone.
            guard frameEnd <= buffer.count else { return }
            checkedIndex = frameEnd
        }
    }

    /// Drops delivered bytes when that is cheap: all of them, or a large prefix.
    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            if buffer.capacity > Self.retainedCapacity {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
            readIndex = 0
            checkedIndex = 0
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            checkedIndex -= readIndex
            readIndex = 0
        }
    }

    private mutating func fail(_ error: PrefsWireError) {
        failure = error
        buffer = []
        readIndex = 0
        checkedIndex = 0
    }
}
