// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsWire
import Testing

@testable import PrefsTestSupport

/// Framing: the length prefix, the incremental decoder on any chunking, and hostile byte streams.
@Suite struct WireFrameTests {
    static let sample: PlistDictionary = [
        "id": 7, "op": "set", "domain": "com.example.app", "key": "Colour",
        "value": ["red": 1.0, "tags": ["a", "b"], "when": .date(PlistDate(secondsSinceReferenceDate: 42.5))],
    ]

    static func messages(_ count: Int) -> [PlistDictionary] {
        (0..<count).map { index in
            [
                "id": .integer(PlistInteger(Int64(index))), "op": "get",
                "key": .string(String(repeating: "k", count: index)),
            ]
        }
    }

    /// Length prefix + payload for arbitrary bytes, bypassing the encoder.
    static func frame(payload: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        WireFrame.appendHeader(payloadLength: declaredLength ?? payload.count, to: &bytes)
        return bytes + payload
    }

    @Test func encodedFrameIsBigEndianLengthThenBinaryPlist() throws {
        let frame = try WireFrame.encode(Self.sample)
        let length = Int(frame[0]) << 24 | Int(frame[1]) << 16 | Int(frame[2]) << 8 | Int(frame[3])
        #expect(length == frame.count - 4)
        #expect(Array(frame[4..<12]) == Array("bplist00".utf8))
        #expect(try PlistSerialization.decode(Array(frame[4...])) == .dictionary(Self.sample))
    }

    @Test func decoderReadsByteByByte() throws {
        let messages = Self.messages(5)
        let stream = try messages.flatMap { try WireFrame.encode($0) }
        var decoder = WireFrameDecoder()
        var decoded: [PlistDictionary] = []
        for byte in stream {
            try decoder.append([byte])
            while let frame = try decoder.nextFrame() { decoded.append(frame) }
        }
        #expect(decoded == messages)
        #expect(decoder.bufferedByteCount == 0)
        try decoder.finish()
    }

    @Test func decoderReadsManyFramesFromOneChunk() throws {
        let messages = Self.messages(300)
        let stream = try messages.flatMap { try WireFrame.encode($0) }
        var decoder = WireFrameDecoder()
        try decoder.append(stream)
        var decoded: [PlistDictionary] = []
        while let frame = try decoder.nextFrame() { decoded.append(frame) }
        #expect(decoded == messages)
        try decoder.finish()
    }

    @Test(arguments: [2, 3, 7, 64, 1000])
    func decoderReadsFramesSplitAcrossChunks(chunkSize: Int) throws {
        let messages = Self.messages(40) + [Self.sample]
        let stream = try messages.flatMap { try WireFrame.encode($0) }
        var decoder = WireFrameDecoder()
        var decoded: [PlistDictionary] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + chunkSize, stream.count)
            try stream[offset..<end].withUnsafeBytes { try decoder.append($0) }
            while let frame = try decoder.nextFrame() { decoded.append(frame) }
            offset = end
        }
        #expect(decoded == messages)
    }

    @Test func decoderHandlesAFrameLargerThanItsCompactionThreshold() throws {
        let big: PlistDictionary = [
            "id": 1, "op": "writeDomain", "values": ["blob": .data(Array(repeating: 7, count: 200_000))],
        ]
        let stream = try WireFrame.encode(Self.messages(1)[0]) + WireFrame.encode(big) + WireFrame.encode(Self.sample)
        var decoder = WireFrameDecoder()
        var decoded: [PlistDictionary] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + 4093, stream.count)
            try decoder.append(Array(stream[offset..<end]))
            while let frame = try decoder.nextFrame() { decoded.append(frame) }
            offset = end
        }
        #expect(decoded == [Self.messages(1)[0], big, Self.sample])
    }

    // MARK: - Hostile input

    @Test func zeroLengthFrameIsMalformed() throws {
        var decoder = WireFrameDecoder()
        let error = try #require(throws: PrefsWireError.self) { try decoder.append([0, 0, 0, 0]) }
        #expect(error.code == .malformedFrame)
        #expect(error.message.contains("empty"))
    }

    @Test func oversizedFrameFailsOnItsHeaderBeforeThePayloadArrives() throws {
        var limits = WireLimits.default
        limits.maxFrameBytes = 1000
        var decoder = WireFrameDecoder(limits: limits)
        // Only the header and a few payload bytes: the decoder must not wait for the rest.
        let error = try #require(throws: PrefsWireError.self) {
            try decoder.append(Self.frame(payload: Array("bplist00".utf8), declaredLength: 1001))
        }
        #expect(error.code == .limitExceeded)
        #expect(error.limit == .maxFrameBytes)
        #expect(error.message.contains("maxFrameBytes (1000)"))
        #expect(error.wireError.code == .limitExceeded)
        #expect(error.wireError.limit == .maxFrameBytes)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func hugeDeclaredLengthFailsAtOnce() throws {
        var decoder = WireFrameDecoder()
        let error = try #require(throws: PrefsWireError.self) { try decoder.append([0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(error.limit == .maxFrameBytes)
        #expect(error.message.contains("4294967295"))
    }

    @Test func oversizedFrameAfterAGoodOneStillDeliversNothingMore() throws {
        var limits = WireLimits.default
        limits.maxFrameBytes = 500
        var decoder = WireFrameDecoder(limits: limits)
        let good = try WireFrame.encode(Self.messages(1)[0])
        #expect(throws: PrefsWireError.self) { try decoder.append(good + [0, 0, 0x10, 0]) }
        // The decoder stays failed: the stream has no frame boundary left to trust.
        let again = try #require(throws: PrefsWireError.self) { try decoder.nextFrame() }
        #expect(again.limit == .maxFrameBytes)
        #expect(throws: PrefsWireError.self) { try decoder.append(good) }
        #expect(throws: PrefsWireError.self) { try decoder.finish() }
    }

    @Test func maxFrameBytesItselfIsAccepted() throws {
        let payload = try WireFrame.encodePayload(Self.sample)
        var limits = WireLimits.default
        limits.maxFrameBytes = payload.count
        var decoder = WireFrameDecoder(limits: limits)
        try decoder.append(Self.frame(payload: payload))
        #expect(try decoder.nextFrame() == Self.sample)
        limits.maxFrameBytes = payload.count - 1
        let error = try #require(throws: PrefsWireError.self) {
            _ = try WireFrame.encode(Self.sample, maxFrameBytes: limits.maxFrameBytes)
        }
        #expect(error.limit == .maxFrameBytes)
    }

    @Test func truncatedFrameIsReportedAtEndOfStream() throws {
        let frame = try WireFrame.encode(Self.sample)
        var decoder = WireFrameDecoder()
        try decoder.append(Array(frame.dropLast(3)))
        #expect(try decoder.nextFrame() == nil)
        let error = try #require(throws: PrefsWireError.self) { try decoder.finish() }
        #expect(error.code == .malformedFrame)
        #expect(error.message.contains("\(frame.count - 7) of its \(frame.count - 4) payload bytes"))

        var headerOnly = WireFrameDecoder()
        try headerOnly.append([0, 0])
        let headerError = try #require(throws: PrefsWireError.self) { try headerOnly.finish() }
        #expect(headerError.message.contains("2 of its 4 bytes"))
    }

    @Test(arguments: [
        Array("hello, this is not a property list".utf8),
        Array("bplist00".utf8),
        Array("bplist00".utf8) + Array(repeating: 0, count: 40),
        Array("bplist01".utf8) + Array(repeating: 0, count: 40),
        [0xFF, 0x00, 0x13],
    ])
    func nonPlistPayloadIsMalformed(payload: [UInt8]) throws {
        var decoder = WireFrameDecoder()
        try decoder.append(Self.frame(payload: payload))
        let error = try #require(throws: PrefsWireError.self) { try decoder.nextFrame() }
        #expect(error.code == .malformedFrame)
        #expect(error.wireError.code == .malformedFrame)
    }

    @Test func xmlPlistPayloadIsMalformed() throws {
        let xml = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>id</key><integer>1</integer></dict></plist>
            """.utf8)
        var decoder = WireFrameDecoder()
        try decoder.append(Self.frame(payload: xml))
        let error = try #require(throws: PrefsWireError.self) { try decoder.nextFrame() }
        #expect(error.code == .malformedFrame)
        #expect(error.message.contains("bplist00"))
    }

    @Test(arguments: [PlistValue.array([1, 2]), "id", 42, .bool(true), .data([1, 2, 3])])
    func plistThatIsNotADictionaryIsMalformed(value: PlistValue) throws {
        var decoder = WireFrameDecoder()
        try decoder.append(Self.frame(payload: try PlistSerialization.encode(value, format: .binary)))
        let error = try #require(throws: PrefsWireError.self) { try decoder.nextFrame() }
        #expect(error.code == .malformedFrame)
        #expect(error.message.contains("not a dictionary"))
    }

    /// A value `levels` containers deep (a scalar has depth 0).
    static func nested(_ levels: Int) -> PlistValue {
        var value: PlistValue = "leaf"
        for level in 0..<levels { value = level % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
        return value
    }

    @Test func frameDepthIsMaxDepthPlusTheEnvelope() throws {
        var limits = WireLimits.default
        limits.maxDepth = 10
        // The deepest message shape: a batch event whose change carries a value of maxDepth.
        let deepest = WireEvent.batch(
            subscription: 1,
            [WireChange(domain: WireDomain("d"), key: "k", old: nil, new: Self.nested(10), sequence: 1)],
            origin: WireOrigin(.client, pid: 1, uid: 2))
        var decoder = WireFrameDecoder(limits: limits)
        try decoder.append(try WireFrame.encode(deepest.dictionary))
        let decoded = try #require(try decoder.nextFrame())
        #expect(try WireEvent(dictionary: decoded) == deepest)

        let tooDeep: PlistDictionary = ["value": Self.nested(10 + WireFrame.envelopeDepth)]
        var strict = WireFrameDecoder(limits: limits)
        try strict.append(try WireFrame.encode(tooDeep))
        let error = try #require(throws: PrefsWireError.self) { try strict.nextFrame() }
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("maxDepth (10"))
        #expect(error.wireError.code == .limitExceeded)
        #expect(error.wireError.limit == .maxDepth)
    }

    @Test func hostileNestingFailsWithoutCrashing() throws {
        // Far deeper than any limit: must be rejected by the reader's depth bound, not by the stack.
        let payload = try PlistSerialization.encode(.dictionary(["v": Self.nested(400)]), format: .binary)
        var decoder = WireFrameDecoder()
        try decoder.append(Self.frame(payload: payload))
        #expect(throws: PrefsWireError.self) { try decoder.nextFrame() }
    }

    @Test func objectCountLimitApplies() throws {
        var limits = WireLimits.default
        limits.maxFrameObjects = 50
        let many: PlistDictionary = ["values": .array((0..<100).map { .integer(PlistInteger(Int64($0))) })]
        var decoder = WireFrameDecoder(limits: limits)
        try decoder.append(try WireFrame.encode(many))
        let error = try #require(throws: PrefsWireError.self) { try decoder.nextFrame() }
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("maxFrameObjects (50)"))
        #expect(error.wireError.limit == .maxFrameObjects)
    }

    @Test func integersWiderThan64BitsAreRefusedNotTruncated() throws {
        // id = 2^64 + 7 in a 16-byte integer: its low 64 bits would read as 7.
        var decoder = WireFrameDecoder()
        try decoder.append(HandBuiltFrame.synchronize(idHigh: 1, low: 7))
        let error = try #require(throws: PrefsWireError.self) { try decoder.nextFrame() }
        #expect(error.code == .malformedFrame)
        #expect(error.description.contains("does not fit in 64 bits"))
        // 2^64 - 1 in the same form is a valid identifier.
        var valid = WireFrameDecoder()
        try valid.append(HandBuiltFrame.synchronize(idHigh: 0, low: .max))
        #expect(try valid.nextFrame()?["id"] == .integer(PlistInteger(UInt64.max)))
    }

    @Test func payloadHelpersServeATransportThatSplitsFramesItself() throws {
        let frame = try WireFrame.encode(Self.sample)
        let length = try frame.withUnsafeBytes { try WireFrame.payloadLength(header: $0) }
        #expect(length == frame.count - 4)
        let dictionary = try frame[4...].withUnsafeBytes { try WireFrame.decodePayload($0) }
        #expect(dictionary == Self.sample)
        #expect(throws: PrefsWireError.self) {
            try [0, 0, 0].withUnsafeBytes { try WireFrame.payloadLength(header: $0) }
        }
        #expect(throws: PrefsWireError.self) {
            try [0, 0, 0, 0].withUnsafeBytes { try WireFrame.payloadLength(header: $0) }
        }
    }

    @Test func decodeFrameTakesTheFirstFrameOfABufferOnceItIsWhole() throws {
        let frame = try WireFrame.encode(Self.sample)
        let stream = try frame + WireFrame.encode(["id": 1, "op": "synchronize"])
        for end in [0, 3, 4, frame.count - 1] {
            let partial = try stream[..<end].withUnsafeBytes { try WireFrame.decodeFrame(atStartOf: $0) }
            #expect(partial == nil, "\(end) bytes")
        }
        let whole = try #require(try stream.withUnsafeBytes { try WireFrame.decodeFrame(atStartOf: $0) })
        #expect(whole.message == Self.sample)
        #expect(whole.length == frame.count)
        let error = try #require(throws: PrefsWireError.self) {
            try [0, 0, 0, 0, 1].withUnsafeBytes { try WireFrame.decodeFrame(atStartOf: $0) }
        }
        #expect(error.code == .malformedFrame)
        var limits = WireLimits.default
        limits.maxFrameBytes = 8
        let tooLarge = try #require(throws: PrefsWireError.self) {
            try frame[..<4].withUnsafeBytes { try WireFrame.decodeFrame(atStartOf: $0, limits: limits) }
        }
        #expect(tooLarge.limit == .maxFrameBytes)
    }
}
