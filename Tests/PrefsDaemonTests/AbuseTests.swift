// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDaemon
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire
import Testing

/// One client cannot exhaust the daemon: idle connections, a full connection table, long search lists, hostile
/// identifiers, refused connections.
@Suite("prefsd under abuse: timeouts, a full table, limits")
struct AbuseTests {
    /// The `closing` event a connection gets, or `nil` when another message came.
    func closing(_ connection: WireTestConnection, timeout: Duration = .seconds(10)) throws -> WireError? {
        guard case .event(.closing(let error)) = try connection.receiveMessage(timeout: timeout) else { return nil }
        return error
    }

    func subscribe(_ connection: WireTestConnection, _ domain: String) throws {
        let filter = WireSubscriptionFilter(.domain(WireDomain(domain)))
        guard case .success(.subscribe) = try connection.call(.subscribe(filter)) else {
            throw TestFailure("subscribe failed")
        }
    }

    @Test("an idle connection is closed with timedOut; one with a subscription is not")
    func idleTimeout() async throws {
        let daemon = try await TestDaemon(idleTimeout: .milliseconds(300))
        defer { Task { await daemon.stop() } }
        let subscriber = try daemon.connect()
        try subscribe(subscriber, "com.example.idle")
        let idle = try daemon.connect()
        let error = try closing(idle)
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("IdleTimeoutSeconds") == true)
        #expect(try idle.receive() == nil)
        // The subscriber, idle as long, still gets its events.
        let writer = try daemon.connect()
        _ = try writer.call(.set(WireDomain("com.example.idle"), key: "k", value: 1, expectedVersion: nil))
        guard case .event(.change(_, let change, _)) = try subscriber.receiveMessage() else {
            Issue.record("the subscriber did not get its event")
            return
        }
        #expect(change.key == "k")
    }

    @Test("a full table makes room by closing the connection idle the longest, never a subscriber")
    func evictsIdleConnection() async throws {
        var limits = WireLimits.default
        limits.maxConnections = 3
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let subscriber = try daemon.connect()
        try subscribe(subscriber, "com.example.full")
        let oldest = try daemon.connect()
        try await Task.sleep(for: .milliseconds(100))
        let younger = try daemon.connect()
        // A connection must have been idle for a second before it may be closed to make room.
        try await Task.sleep(for: .milliseconds(1200))
        let newcomer = try daemon.connect()
        #expect(try newcomer.call(.synchronize) == .success(.synchronize))
        let error = try closing(oldest)
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .maxConnections)
        #expect(error?.message.contains("idle the longest") == true)
        #expect(try younger.call(.synchronize) == .success(.synchronize))
        #expect(try subscriber.call(.synchronize) == .success(.synchronize))
    }

    @Test("a refused connection gets its closing event, then end of stream while its own bytes are still read")
    func refusedConnectionHalfCloses() async throws {
        var limits = WireLimits.default
        limits.maxConnections = 1
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let served = try daemon.connect()
        try subscribe(served, "com.example.refused")
        let refused = try WireTestConnection(path: daemon.socketPath)
        let (messages, reset) = try refused.receiveUntilEnd()
        #expect(!reset)
        #expect(messages.count == 1)
        guard case .closing(let closing) = try messages.first.map({ try WireEvent(dictionary: $0) }) else {
            Issue.record("no closing event: \(messages)")
            return
        }
        #expect(closing.limit == .maxConnections)
        // Only the server's side is shut down: what the client still sends is read and dropped (a closed socket
        // would refuse it with EPIPE, and a socket closed with bytes unread resets the connection).
        #expect(throws: Never.self) { try refused.sendRaw([UInt8](repeating: 0, count: 64 << 10)) }
    }

    @Test("a search list longer than maxSuites is refused naming the limit, which hello announces")
    func searchListLimit() async throws {
        var limits = WireLimits.default
        limits.maxSuites = 3
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect(hello: false)
        guard case .success(.hello(let hello)) = try connection.call(.hello(WireHello(client: "tests"))) else {
            Issue.record("hello failed")
            return
        }
        #expect(hello.limits.maxSuites == 3)
        let suites = (0..<4).map { "com.example.suite\($0)" }
        let list = WireSearchList(app: "com.example.app", suites: suites)
        let refused = try connection.call(.getEffective(list, key: "k"))
        guard case .failure(let error) = refused else {
            Issue.record("a search list of 4 suites was served: \(refused)")
            return
        }
        #expect(error.code == .limitExceeded)
        #expect(error.limit == .maxSuites)
        #expect(error.message == "search list of 4 suites exceeds maxSuites (3)")
        let subscription = try connection.call(.subscribe(WireSubscriptionFilter(.effective(list))))
        #expect(subscription.failureCode == .limitExceeded)
        let allowed = WireSearchList(app: "com.example.app", suites: Array(suites.prefix(3)))
        #expect(try connection.call(.getEffective(allowed, key: "k")).failureCode == nil)
    }

    @Test("15,000 reads of 5,000 domains that exist nowhere leave nothing loaded in the daemon")
    func readsOfAbsentDomainsLeaveNothing() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        let before = daemon.store.loadedDomainCount
        // Pipelined in batches, as a client naming ever new domains would send them.
        for batch in 0..<10 {
            for index in 0..<500 {
                let domain = WireDomain("com.example.absent\(batch * 500 + index)")
                _ = try connection.send(.get(domain, key: "k"))
                _ = try connection.send(.readDomain(domain))
                let list = WireSearchList(
                    app: "com.example.app\(batch * 500 + index)", suites: ["com.example.suite\(batch * 500 + index)"])
                _ = try connection.send(.getEffective(list, key: "k"))
            }
            for _ in 0..<1_500 {
                let reply = try connection.receiveReply()
                switch reply.outcome {
                case .success(.get(let value, let version)):
                    #expect(value == nil && version == 0)
                case .success(.getEffective(let resolution)):
                    #expect(resolution.found == nil)
                case .failure(let error):
                    #expect(error.code == .notFound)
                default:
                    Issue.record("unexpected reply \(reply)")
                }
            }
        }
        #expect(daemon.store.loadedDomainCount == before)
    }

    @Test("a request id of 2^64 or more is refused, never answered with its low 64 bits")
    func wideRequestID() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        try connection.sendRaw(HandBuiltFrame.synchronize(idHigh: 1, low: 7))
        guard case .event(.closing(let error)) = try connection.receiveMessage() else {
            Issue.record("the request was answered")
            return
        }
        #expect(error.code == .malformedFrame)
        #expect(error.message.contains("does not fit in 64 bits"))
    }

    @Test("frames too deep or with too many objects close the connection naming the limit")
    func frameLimitsAreNamed() async throws {
        var limits = WireLimits.default
        limits.maxDepth = 4
        limits.maxFrameObjects = 64
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let deep = try daemon.connect()
        try deep.sendRaw(HandBuiltFrame.setNestedArrays(depth: 10))
        let deepError = try closing(deep)
        #expect(deepError?.code == .limitExceeded)
        #expect(deepError?.limit == .maxDepth)
        let large = try daemon.connect()
        let values = PlistValue.array((0..<100).map { .integer(PlistInteger(Int64($0))) })
        try large.send(.set(WireDomain("a"), key: "k", value: values, expectedVersion: nil))
        let largeError = try closing(large)
        #expect(largeError?.code == .limitExceeded)
        #expect(largeError?.limit == .maxFrameObjects)
    }
}
