// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDaemon
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("prefsd robustness: bad frames and limits end one connection only")
struct RobustnessTests {
    /// Reads the `closing` event a misbehaving connection gets, then end of stream.
    func closingError(_ connection: WireTestConnection) throws -> WireError? {
        guard case .event(.closing(let error)) = try connection.receiveMessage() else { return nil }
        #expect(try connection.receive() == nil)
        return error
    }

    static let badFrames: [(name: String, bytes: [UInt8], code: WireError.Code, limit: WireLimit?)] = [
        ("zero length", [0, 0, 0, 0], .malformedFrame, nil),
        ("not a binary plist", [0, 0, 0, 5] + Array("hello".utf8), .malformedFrame, nil),
        ("XML payload", [0, 0, 0, 8] + Array("<plist/>".utf8), .malformedFrame, nil),
        ("oversized length", [0x7F, 0xFF, 0xFF, 0xFF], .limitExceeded, .maxFrameBytes),
        ("array at top level", try! WireFrame.encodePayloadFrame(.array([1])), .malformedFrame, nil),
    ]

    @Test("a bad frame gets a closing event naming the problem; other clients go on", arguments: badFrames)
    func badFrame(frame: (name: String, bytes: [UInt8], code: WireError.Code, limit: WireLimit?)) async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let bystander = try daemon.connect()
        _ = try bystander.call(.set(WireDomain("com.example.app"), key: "k", value: "v", expectedVersion: nil))
        let offender = try daemon.connect()
        try offender.sendRaw(frame.bytes)
        let error = try closingError(offender)
        #expect(error?.code == frame.code, "\(frame.name)")
        #expect(error?.limit == frame.limit, "\(frame.name)")
        #expect(
            try bystander.call(.get(WireDomain("com.example.app"), key: "k")) == .success(.get(value: "v", version: 1)))
    }

    @Test("requests pipelined before a bad frame in the same read are answered before the closing event")
    func requestsBeforeABadFrame() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        let domain = WireDomain("com.example.app")
        let set = try WireFrame.encode(
            WireRequest(id: 7, .set(domain, key: "k", value: 1, expectedVersion: nil)).dictionary)
        let get = try WireFrame.encode(WireRequest(id: 8, .get(domain, key: "k")).dictionary)
        try connection.sendRaw(set + get + [0, 0, 0, 5] + Array("hello".utf8))
        #expect(try connection.receiveReply() == WireReply(id: 7, .success(.set(version: 1))))
        #expect(try connection.receiveReply() == WireReply(id: 8, .success(.get(value: 1, version: 1))))
        #expect(try closingError(connection)?.code == .malformedFrame)
    }

    @Test("a stream that ends inside a frame is malformed, and a request without id closes the connection")
    func truncatedAndAnonymous() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let truncated = try daemon.connect()
        let frame = try WireFrame.encode(WireRequest(id: 5, .synchronize).dictionary)
        try truncated.sendRaw(Array(frame.dropLast(3)))
        truncated.shutdownWrite()
        let error = try closingError(truncated)
        #expect(error?.code == .malformedFrame)
        #expect(error?.message.contains("stream ended inside a frame") == true)

        let anonymous = try daemon.connect()
        try anonymous.send(["op": "get", "domain": "a", "key": "k"])
        let anonymousError = try closingError(anonymous)
        #expect(anonymousError?.code == .badRequest)
        #expect(anonymousError?.field == "id")

        let healthy = try daemon.connect()
        #expect(try healthy.call(.synchronize) == .success(.synchronize))
    }

    @Test("a frame deeper than maxDepth plus the envelope is refused naming the limit")
    func deepFrame() async throws {
        var limits = WireLimits.default
        limits.maxDepth = 4
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        var value: PlistValue = 1
        for _ in 0..<10 { value = .array([value]) }
        try connection.send(
            WireRequest(id: 1, .set(WireDomain("a"), key: "k", value: value, expectedVersion: nil)).dictionary)
        let error = try closingError(connection)
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .maxDepth)
    }

    @Test("connections beyond maxConnections get a closing event naming the limit")
    func connectionLimit() async throws {
        var limits = WireLimits.default
        limits.maxConnections = 2
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        // Subscribers are never closed to make room, however long they wait.
        let first = try daemon.connect()
        let second = try daemon.connect()
        for connection in [first, second] {
            let filter = WireSubscriptionFilter(.domain(WireDomain("com.example.limit")))
            guard case .success(.subscribe) = try connection.call(.subscribe(filter)) else {
                Issue.record("subscribe failed")
                return
            }
        }
        let third = try WireTestConnection(path: daemon.socketPath)
        let error = try closingError(third)
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .maxConnections)
        #expect(error?.message == "connection 3 exceeds maxConnections (2)")
        #expect(try first.call(.synchronize) == .success(.synchronize))
        _ = second
    }

    @Test("a half-closed client still gets every reply before the connection closes")
    func halfClose() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        for index in 0..<50 {
            try connection.send(.set(WireDomain("a"), key: "k\(index)", value: 1, expectedVersion: nil))
        }
        try connection.send(.synchronize)
        connection.shutdownWrite()
        for _ in 0..<51 {
            #expect(try connection.receiveReply().outcome.failureCode == nil)
        }
        #expect(try connection.receive() == nil)
    }

    @Test("stopping the server tells every client shuttingDown")
    func shutdown() async throws {
        let daemon = try await TestDaemon()
        let connection = try daemon.connect()
        await daemon.stop()
        let error = try closingError(connection)
        #expect(error?.code == .shuttingDown)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }
}

extension WireFrame {
    /// A whole frame around any property-list value (the protocol wants a dictionary; tests send others too).
    static func encodePayloadFrame(_ value: PlistValue) throws -> [UInt8] {
        let payload = try PlistSerialization.encode(value, format: .binary)
        var frame: [UInt8] = []
        appendHeader(payloadLength: payload.count, to: &frame)
        return frame + payload
    }
}
