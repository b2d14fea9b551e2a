import Foundation
import Logging
import PrefsClient
import PrefsDaemon
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire
import Testing

/// A daemon in the test process on a temporary directory; restartable on the same socket and files.
final class ClientTestDaemon: Sendable {
    let directory: TemporaryDirectory
    let paths: StorePaths
    let socketPath: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "prefs-client")
        paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil,
            machineID: nil)
        socketPath = directory.file("run/socket")
    }

    func start() async throws -> DaemonServer {
        let store = PreferencesStore(
            paths: paths, configuration: StoreConfiguration(flushDelay: .milliseconds(20), flushesAtExit: false))
        let server = DaemonServer(
            configuration: DaemonConfiguration(socketPath: socketPath, storePaths: paths), store: store,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.start()
        return server
    }

    func client(reconnects: Bool = true) -> PrefsClient {
        PrefsClient(
            configuration: PrefsClientConfiguration(
                socketPath: socketPath, clientName: "tests", connectTimeout: .seconds(2), reconnects: reconnects))
    }
}

@Suite("PrefsClient")
struct PrefsClientTests {
    let app = WireDomain("com.example.app")

    @Test("every operation through the client")
    func operations() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = daemon.client()
        let hello = try await client.connect()
        #expect(hello.version == 1)
        #expect(try await client.value(forKey: "k", in: app) == (nil, 0))
        #expect(try await client.set("v", forKey: "k", in: app) == 1)
        #expect(try await client.setMany(["a": 1, "k": nil], in: app) == 3)
        #expect(try await client.readDomain(app)?.values == ["a": 1])
        #expect(try await client.readDomain(WireDomain("com.example.none")) == nil)
        #expect(try await client.domainNames() == ["com.example.app"])
        try await client.synchronize()
        #expect(try await client.resolve("a", in: WireSearchList(app: "com.example.app")).found?.value == 1)
        do {
            try await client.set(2, forKey: "a", in: app, expectedVersion: 1)
            Issue.record("a stale compare-and-set succeeded")
        } catch {
            #expect(error.code == .refused)
            #expect(error.serverError?.code == .versionConflict)
            #expect(error.serverError?.currentVersion == 3)
        }
        #expect(try await client.writeDomain(["z": true], to: app) == 5)
        #expect(try await client.removeDomain(app) == 6)
        await client.close()
        await server.stop()
    }

    @Test("many tasks pipeline requests on one connection, each gets its own reply")
    func concurrentRequests() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = daemon.client()
        let app = self.app
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in 0..<50 {
                        let key = "t\(task)-\(index)"
                        try await client.set(.integer(PlistInteger(Int64(index))), forKey: key, in: app)
                        let (value, _) = try await client.value(forKey: key, in: app)
                        #expect(value == .integer(PlistInteger(Int64(index))))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await client.readDomain(app)?.values.count == 800)
        await client.close()
        await server.stop()
    }

    @Test("a subscriber sees another client's change with old and new value")
    func subscription() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let watcher = daemon.client()
        let writer = daemon.client()
        try await writer.set("light", forKey: "Theme", in: app)
        let subscription = try await watcher.subscribe(WireSubscriptionFilter(.domain(app), keys: .key("Theme")))
        #expect(subscription.snapshot.values == ["Theme": "light"])
        try await writer.set("dark", forKey: "Theme", in: app)
        var iterator = subscription.makeAsyncIterator()
        let event = await iterator.next()
        guard case .changes(let changes, let origin) = event else {
            Issue.record("no change: \(String(describing: event))")
            return
        }
        #expect(changes == [WireChange(domain: app, key: "Theme", old: "light", new: "dark", sequence: 2)])
        #expect(origin.kind == .client)
        #expect(origin.pid == getpid())
        await subscription.cancel()
        #expect(await iterator.next() == nil)
        await watcher.close()
        await writer.close()
        await server.stop()
    }

    @Test("after the daemon restarts, the next request reconnects and subscriptions resync")
    func reconnect() async throws {
        let daemon = try ClientTestDaemon()
        var server = try await daemon.start()
        let client = daemon.client()
        try await client.set(1, forKey: "n", in: app)
        try await client.synchronize()
        let subscription = try await client.subscribe(WireSubscriptionFilter(.domain(app)))
        var iterator = subscription.makeAsyncIterator()
        await server.stop()
        server = try await daemon.start()
        #expect(try await client.value(forKey: "n", in: app).value == 1)
        let resync = await iterator.next()
        guard case .resync(let snapshot) = resync else {
            Issue.record("no resync after reconnect: \(String(describing: resync))")
            return
        }
        #expect(snapshot.values == ["n": 1])
        let other = daemon.client()
        try await other.set(2, forKey: "n", in: app)
        guard case .changes(let changes, _) = await iterator.next() else {
            Issue.record("no change after the resync")
            return
        }
        #expect(changes.first?.new == 2)
        await client.close()
        await other.close()
        await server.stop()
    }

    @Test("without a daemon, requests fail with daemonUnavailable naming the socket")
    func unavailable() async throws {
        let daemon = try ClientTestDaemon()
        let client = daemon.client()
        do {
            _ = try await client.value(forKey: "k", in: app)
            Issue.record("a request without a daemon succeeded")
        } catch {
            #expect(error.code == .daemonUnavailable)
            #expect(error.message == "prefsd does not answer on \(daemon.socketPath)")
        }
    }

    @Test("the daemon's refusals arrive with their code and message")
    func refusal() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = daemon.client()
        do {
            try await client.set(1, forKey: "k", in: WireDomain("bad/name"))
            Issue.record("a bad name was accepted")
        } catch {
            #expect(error.serverError?.code == .invalidName)
            #expect(
                error.message.hasPrefix("prefsd refused the request: invalidName: field `domain`: invalid domain name"))
        }
        await client.close()
        await server.stop()
    }
}
