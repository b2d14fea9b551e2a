// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import PrefsPOSIX
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire
import Testing

@testable import PrefsDaemon

/// The connection's handlers as swift-nio tests its own: the pipeline the server builds
/// (``ConnectionPipeline``), on swift-nio's testing channel, fed bytes and read back frame by frame, with the
/// loop's clock in the test's hands. The store is real, on a temporary directory; its events may come from its
/// own thread, which the thread-safe `NIOAsyncTestingChannel` allows (an `EmbeddedChannel` does not).
@Suite struct ConnectionPipelineTests {
    /// One connection's pipeline on a testing channel, with the daemon's shared state around it.
    final class Connection {
        let directory: TemporaryDirectory
        let store: PreferencesStore
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        let channel = NIOAsyncTestingChannel()
        let activity = ConnectionActivity()
        let limits: WireLimits

        init(limits: WireLimits = .default, idleTimeout: Duration? = nil) async throws {
            directory = try TemporaryDirectory(prefix: "prefsd-pipeline")
            store = PreferencesStore(
                paths: StorePaths(
                    preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil,
                    machineID: nil),
                configuration: StoreConfiguration(
                    flushDelay: .seconds(60), watchesFiles: false, flushesAtExit: false, diagnostics: { _ in }))
            self.limits = limits
            threadPool.start()
            let policy = ConnectionPolicy(limits: limits, idleTimeout: idleTimeout, frameTimeout: .seconds(30))
            let shared = DaemonShared(
                store: store, policy: policy, serverName: "prefsd-test",
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), threadPool: threadPool)
            let channel = self.channel
            let activity = self.activity
            try await channel.testingEventLoop.executeInContext {
                try ConnectionPipeline.addHandlers(
                    to: channel.pipeline.syncOperations, shared: shared, policy: policy, activity: activity,
                    credentials: PeerCredentials(processID: 4242, userID: POSIX.userID, groupID: 0))
            }
            try await channel.connect(to: SocketAddress(unixDomainSocketPath: "/prefsd-test"))
        }

        deinit {
            try? threadPool.syncShutdownGracefully()
        }

        /// Ends the connection (the handlers see it close).
        func finish() async {
            _ = try? await channel.finish(acceptAlreadyClosed: true)
        }

        var isActive: Bool {
            get async {
                let channel = self.channel
                return (try? await channel.testingEventLoop.executeInContext { channel.isActive }) ?? false
            }
        }

        /// Runs what waits on the loop: tasks, and events the store handed over from its thread.
        func run() async { await channel.testingEventLoop.run() }

        /// Fires an inbound user event through the pipeline, on the loop.
        func fire(_ event: ConnectionEvent) async throws {
            let channel = self.channel
            try await channel.testingEventLoop.executeInContext {
                channel.pipeline.fireUserInboundEventTriggered(event)
            }
            await run()
        }

        /// Sets whether the peer takes more, and tells the pipeline, on the loop.
        func setWritable(_ writable: Bool) async throws {
            let channel = self.channel
            try await channel.testingEventLoop.executeInContext {
                channel.isWritable = writable
                channel.pipeline.fireChannelWritabilityChanged()
            }
            await run()
        }

        /// Whether the hello gate is still in the pipeline.
        func hasHelloGate() async throws -> Bool {
            let channel = self.channel
            return try await channel.testingEventLoop.executeInContext {
                (try? channel.pipeline.syncOperations.handler(type: HelloGateHandler.self)) != nil
            }
        }

        /// Sends requests, all in one write.
        func send(_ requests: [WireRequest]) async throws {
            var buffer = channel.allocator.buffer(capacity: 256)
            for request in requests { buffer.writeBytes(try WireFrame.encode(request.dictionary)) }
            try await send(buffer)
        }

        func send(_ bytes: ByteBuffer) async throws {
            try await channel.writeInbound(bytes)
            await run()
        }

        /// Every buffer written since the last call, each cut into the messages of its frames.
        func writes() async throws -> [[WireServerMessage]] {
            var writes: [[WireServerMessage]] = []
            while var buffer = try await channel.readOutbound(as: ByteBuffer.self) {
                var messages: [WireServerMessage] = []
                while let length = buffer.readInteger(endianness: .big, as: UInt32.self) {
                    guard let payload = buffer.readBytes(length: Int(length)) else {
                        throw TestFailure("a frame cut short in a write")
                    }
                    let dictionary = try payload.withUnsafeBytes { try WireFrame.decodePayload($0, limits: limits) }
                    messages.append(try WireServerMessage(dictionary: dictionary))
                }
                writes.append(messages)
            }
            return writes
        }

        /// Every message written since the last call.
        func messages() async throws -> [WireServerMessage] { try await writes().flatMap { $0 } }

        /// The messages written until there are `count` of them, waiting up to 10 s for what the store's thread
        /// hands over.
        func messages(count: Int) async throws -> [WireServerMessage] {
            var messages = try await self.messages()
            let deadline = ContinuousClock.now + .seconds(10)
            while messages.count < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
                await run()
                messages += try await self.messages()
            }
            return messages
        }
    }

    static let app = WireDomain("com.example.app")
    static let hello = WireRequest(id: 1, .hello(WireHello(client: "test")))

    /// The reply's outcome, or a failure naming what came instead.
    static func outcome(_ message: WireServerMessage?) throws -> Result<WireResult, WireError> {
        guard case .reply(let reply) = message else {
            throw TestFailure("expected a reply, got \(String(describing: message))")
        }
        return reply.outcome
    }

    static func errorCode(_ message: WireServerMessage?) throws -> WireError.Code? {
        guard case .failure(let error) = try outcome(message) else { return nil }
        return error.code
    }

    @Test func requestsBeforeHelloAreRefusedAndTheConnectionStaysOpen() async throws {
        let connection = try await Connection()
        try await connection.send([WireRequest(id: 7, .get(Self.app, key: "k"))])
        let refused = try await connection.messages()
        guard case .failure(let error) = try Self.outcome(refused.first) else {
            Issue.record("a get before hello was performed: \(refused)")
            return
        }
        #expect(error.code == .badRequest)
        #expect(error.message.contains("before hello"))
        #expect(await connection.isActive)
        #expect(try await connection.hasHelloGate())
    }

    @Test func helloNegotiatesAndTheGateStepsAsideForTheRequestsPipelinedBehindIt() async throws {
        let connection = try await Connection()
        try connection.store.set("v", forKey: "k", in: DomainID(try DomainName("com.example.app")))
        try await connection.send([Self.hello, WireRequest(id: 2, .get(Self.app, key: "k"))])
        let messages = try await connection.messages()
        #expect(messages.count == 2)
        guard case .success(.hello(let result)) = try Self.outcome(messages.first) else {
            Issue.record("no hello reply: \(messages)")
            return
        }
        #expect(result.version == WireProtocol.currentVersion)
        #expect(result.server == "prefsd-test")
        guard case .reply(let get) = messages.last, case .success(.get(let value, _)) = get.outcome else {
            Issue.record("no get reply after the hello: \(messages)")
            return
        }
        #expect(get.id == 2)
        #expect(value == "v")
        #expect(try await !connection.hasHelloGate())
        // A second hello reaches the request handler, which refuses it.
        try await connection.send([WireRequest(id: 3, .hello(WireHello()))])
        #expect(try Self.errorCode(try await connection.messages().first) == .badRequest)
    }

    @Test func aBatchOfRequestsIsAnsweredInOrderInOneWrite() async throws {
        let connection = try await Connection()
        try await connection.send([Self.hello])
        _ = try await connection.messages()
        try await connection.send(
            (2...6).map {
                WireRequest(
                    id: UInt64($0),
                    .set(Self.app, key: "k\($0)", value: .integer(PlistInteger(Int64($0))), expectedVersion: nil))
            })
        let writes = try await connection.writes()
        #expect(writes.count == 1, "five pipelined requests, one write: \(writes.map(\.count))")
        let ids = writes.flatMap { $0 }.compactMap { message -> UInt64? in
            guard case .reply(let reply) = message else { return nil }
            return reply.id
        }
        #expect(ids == [2, 3, 4, 5, 6])
    }

    @Test func aBadFrameBeforeHelloClosesWithTheReason() async throws {
        let connection = try await Connection()
        var garbage = connection.channel.allocator.buffer(capacity: 16)
        garbage.writeInteger(UInt32(8), endianness: .big)
        garbage.writeBytes(Array("notplist".utf8))
        try await connection.send(garbage)
        let messages = try await connection.messages()
        guard case .event(.closing(let error)) = messages.last else {
            Issue.record("no closing event: \(messages)")
            return
        }
        #expect(error.code == .malformedFrame)
        #expect(await !connection.isActive)
    }

    @Test func subscriptionsGetTheirSnapshotAndTheChangesAfterTheReply() async throws {
        let connection = try await Connection()
        try await connection.send([
            Self.hello, WireRequest(id: 2, .subscribe(WireSubscriptionFilter(.domain(Self.app)))),
            WireRequest(id: 3, .set(Self.app, key: "theme", value: "dark", expectedVersion: nil)),
        ])
        let messages = try await connection.messages(count: 4)
        guard messages.count == 4,
            case .success(.subscribe(let subscription, let snapshot)) = try Self.outcome(messages[1])
        else {
            Issue.record("expected hello, subscribe and set replies and a change: \(messages)")
            return
        }
        #expect(snapshot.values.isEmpty)
        #expect(connection.activity.holdsSubscriptions)
        guard case .success(.set) = try Self.outcome(messages[2]),
            case .event(.change(let changed, let change, _)) = messages[3]
        else {
            Issue.record("the set's reply, then its change: \(messages)")
            return
        }
        #expect(changed == subscription)
        #expect(change.key == "theme" && change.new == "dark")

        try await connection.send([
            WireRequest(id: 4, .unsubscribe(subscription: subscription)),
            WireRequest(id: 5, .unsubscribe(subscription: subscription)),
        ])
        let replies = try await connection.messages()
        guard case .success(.unsubscribe) = try Self.outcome(replies.first) else {
            Issue.record("unsubscribe: \(replies)")
            return
        }
        #expect(try Self.errorCode(replies.last) == .notFound)
        #expect(!connection.activity.holdsSubscriptions)
    }

    /// NIO's `IdleStateHandler` measures idleness on the wall clock and checks it from a task scheduled on the
    /// loop: the test lets the time pass, then runs the loop's clock past the check.
    @Test func anIdleConnectionIsClosedUnlessItWaitsForEvents() async throws {
        let idle = try await Connection(idleTimeout: .milliseconds(200))
        try await idle.send([Self.hello])
        _ = try await idle.messages()
        await idle.channel.testingEventLoop.advanceTime(by: .milliseconds(100))
        #expect(await idle.isActive)
        try await Task.sleep(for: .milliseconds(250))
        await idle.channel.testingEventLoop.advanceTime(by: .milliseconds(200))
        let messages = try await idle.messages()
        guard case .event(.closing(let error)) = messages.last else {
            Issue.record("no closing event after the idle timeout: \(messages)")
            return
        }
        #expect(error.code == .timedOut)
        #expect(error.message.contains("IdleTimeoutSeconds"))
        #expect(await !idle.isActive)

        let subscribed = try await Connection(idleTimeout: .milliseconds(200))
        try await subscribed.send([
            Self.hello, WireRequest(id: 2, .subscribe(WireSubscriptionFilter(.domain(Self.app)))),
        ])
        _ = try await subscribed.messages()
        try await Task.sleep(for: .milliseconds(250))
        await subscribed.channel.testingEventLoop.advanceTime(by: .seconds(1))
        #expect(await subscribed.isActive, "a subscriber waits for events, and is never idle")
        #expect(try await subscribed.messages().isEmpty)
    }

    @Test func shutdownClosesWithTheReasonAndEndsTheSubscriptions() async throws {
        let connection = try await Connection()
        try await connection.send([
            Self.hello, WireRequest(id: 2, .subscribe(WireSubscriptionFilter(.domain(Self.app)))),
        ])
        _ = try await connection.messages()
        try await connection.fire(.shutdown)
        let messages = try await connection.messages()
        guard case .event(.closing(let error)) = messages.last else {
            Issue.record("no closing event: \(messages)")
            return
        }
        #expect(error.code == .shuttingDown)
        #expect(!connection.activity.holdsSubscriptions)
        // A change after the closing event is not sent.
        try connection.store.set(1, forKey: "late", in: DomainID(try DomainName("com.example.app")))
        try await Task.sleep(for: .milliseconds(50))
        await connection.run()
        #expect(try await connection.messages().isEmpty)
    }

    @Test func repliesWaitWhileThePeerTakesNothingAndGoOutWhenItDoes() async throws {
        let connection = try await Connection()
        try await connection.send([Self.hello])
        _ = try await connection.messages()
        try await connection.setWritable(false)
        try await connection.send([
            WireRequest(id: 2, .get(Self.app, key: "k")), WireRequest(id: 3, .get(Self.app, key: "k")),
        ])
        #expect(try await connection.messages().isEmpty, "no request is performed while its reply could not be taken")
        try await connection.setWritable(true)
        let ids = try await connection.messages().compactMap { message -> UInt64? in
            guard case .reply(let reply) = message else { return nil }
            return reply.id
        }
        #expect(ids == [2, 3])
    }
}
