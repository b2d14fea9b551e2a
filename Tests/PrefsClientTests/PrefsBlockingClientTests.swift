import Foundation
import PrefsClient
import PrefsPlist
import PrefsWire
import Synchronization
import Testing

@Suite("PrefsBlockingClient")
struct PrefsBlockingClientTests {
    @Test("requests, refusals, and several subscriptions on one connection with nothing lost before start()")
    func blockingClient() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        #expect(client.hello.version == 1)
        let first = WireDomain("com.example.first")
        let second = WireDomain("com.example.second")
        #expect(try client.send(.set(first, key: "a", value: 1, expectedVersion: nil)) == .set(version: 1))
        do {
            _ = try client.send(.readDomain(WireDomain("com.example.none")))
            Issue.record("reading a missing domain succeeded")
        } catch {
            #expect(error.serverError?.code == .notFound)
        }
        // A refusal leaves the connection usable.
        #expect(try client.send(.get(first, key: "a")) == .get(value: 1, version: 1))

        let received = Mutex<[(Int, PrefsSubscription.Event?)]>([])
        let subscription = try client.subscribe(
            [WireSubscriptionFilter(.domain(first)), WireSubscriptionFilter(.domain(second))], startsReading: false
        ) { index, event in received.withLock { $0.append((index, event)) } }
        #expect(subscription.snapshots.map(\.values) == [["a": 1], [:]])
        _ = try client.send(.set(second, key: "b", value: 2, expectedVersion: nil))
        _ = try client.send(.set(first, key: "a", value: 3, expectedVersion: nil))
        usleep(100_000)
        #expect(received.withLock { $0.isEmpty })
        subscription.start()
        let deadline = ContinuousClock.now + .seconds(5)
        while received.withLock({ $0.count }) < 2, ContinuousClock.now < deadline { usleep(2_000) }
        let events = received.withLock { $0 }
        #expect(events.count == 2)
        #expect(events.first?.0 == 1)
        if case .changes(let changes, _)? = events.first?.1 { #expect(changes.first?.new == 2) }
        #expect(events.last?.0 == 0)
        if case .changes(let changes, _)? = events.last?.1 { #expect(changes.first?.old == 1) }
        subscription.cancel()
        await server.stop()
    }
}
