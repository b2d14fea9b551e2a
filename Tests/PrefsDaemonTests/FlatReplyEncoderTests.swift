// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@testable import PrefsDaemon

@Suite("flat reply encoder")
struct FlatReplyEncoderTests {
    static let flat: [PlistDictionary] = [
        [:],
        ["id": 1, "op": "get", "version": 0],
        ["id": .integer(PlistInteger(UInt64(Int64.max))), "op": "set", "version": 65_536],
        ["id": 300, "op": "get", "value": -5, "version": 4_294_967_296],
        ["id": 2, "op": "get", "value": 1.5, "version": 3],
        ["id": 2, "op": "get", "value": true, "version": 3],
        ["id": 2, "op": "get", "value": .string(String(repeating: "x", count: 70_000)), "version": 3],
        PlistDictionary(
            uniqueKeysWithValues: (0..<100).map { ("key number \($0)", PlistValue.integer(PlistInteger(Int64($0)))) }),
    ]

    @Test("flat messages decode to what was encoded", arguments: flat)
    func roundTrip(message: PlistDictionary) throws {
        let bytes = try #require(FlatReplyEncoder.encode(message))
        #expect(try PlistSerialization.decode(bytes) == .dictionary(message))
    }

    static let replies: [WireReply] = [
        WireReply(id: 1, .success(.get(value: "dark", version: 3))),
        WireReply(id: 2, .success(.get(value: nil, version: 0))),
        WireReply(id: 3, .success(.set(version: 70_000))),
        WireReply(id: 4, .success(.removeDomain(version: 1))),
        WireReply(id: 5, .success(.synchronize)),
        WireReply(id: 6, .success(.unsubscribe)),
    ]

    @Test("replies written without their dictionary decode to the reply", arguments: replies)
    func replyRoundTrip(reply: WireReply) throws {
        let bytes = try #require(FlatReplyEncoder.encode(reply))
        let decoded = try PlistSerialization.decode(bytes)
        #expect(try WireReply(dictionary: try #require(decoded.dictionaryValue)) == reply)
    }

    @Test("a reply's frame is appended after what the buffer holds; a refused one writes nothing")
    func appendsFrames() throws {
        var buffer = ByteBuffer(bytes: [1, 2, 3])
        let reply = WireReply(id: 9, .success(.get(value: "dark", version: 3)))
        #expect(FlatReplyEncoder.appendFrame(of: reply, to: &buffer, maxFrameBytes: 1 << 20))
        let payload = try #require(FlatReplyEncoder.encode(reply))
        let length = withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Array($0) }
        #expect(Array(buffer.readableBytesView) == [1, 2, 3] + length + payload)
        let before = buffer
        #expect(!FlatReplyEncoder.appendFrame(of: reply, to: &buffer, maxFrameBytes: payload.count - 1))
        let nonASCII = WireReply(id: 9, .success(.get(value: "é", version: 3)))
        #expect(!FlatReplyEncoder.appendFrame(of: nonASCII, to: &buffer, maxFrameBytes: 1 << 20))
        let wide = WireReply(id: UInt64.max, .success(.synchronize))
        #expect(!FlatReplyEncoder.appendFrame(of: wide, to: &buffer, maxFrameBytes: 1 << 20))
        #expect(buffer == before)
    }

    @Test("anything but flat ASCII scalars goes to the general writer")
    func fallsBack() {
        #expect(FlatReplyEncoder.encode(["value": "é"]) == nil)
        #expect(FlatReplyEncoder.encode(["é": 1]) == nil)
        #expect(FlatReplyEncoder.encode(["value": [1]]) == nil)
        #expect(FlatReplyEncoder.encode(["value": .data([1])]) == nil)
        #expect(FlatReplyEncoder.encode(["value": .integer(PlistInteger(UInt64.max))]) == nil)
        let large = PlistDictionary(uniqueKeysWithValues: (0..<128).map { ("k\($0)", PlistValue.bool(true)) })
        #expect(FlatReplyEncoder.encode(large) == nil)
        #expect(FlatReplyEncoder.encode(WireReply(id: 1, .success(.get(value: [1], version: 1)))) == nil)
        #expect(FlatReplyEncoder.encode(WireReply(id: 1, .failure(WireError(.notFound, "x")))) == nil)
    }

    @Test("Python's plistlib reads what it writes")
    func plistlibReadsIt() throws {
        let bytes = try #require(FlatReplyEncoder.encode(["id": 7, "op": "get", "value": -2, "version": 70_000]))
        let script = "import plistlib,sys; print(sorted(plistlib.loads(sys.stdin.buffer.read()).items()))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "[('id', 7), ('op', 'get'), ('value', -2), ('version', 70000)]\n")
    }
}
