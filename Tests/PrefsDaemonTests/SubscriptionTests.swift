// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDaemon
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("prefsd subscriptions")
struct SubscriptionTests {
    let app = WireDomain("com.example.app")

    func subscribe(_ connection: WireTestConnection, _ filter: WireSubscriptionFilter) throws -> (UInt64, WireSnapshot)
    {
        guard case .success(.subscribe(let id, let snapshot)) = try connection.call(.subscribe(filter)) else {
            throw TestFailure("subscribe failed")
        }
        return (id, snapshot)
    }

    func nextEvent(_ connection: WireTestConnection) throws -> WireEvent {
        let message = try connection.receiveMessage()
        guard case .event(let event) = message else { throw TestFailure("expected an event, got \(message)") }
        return event
    }

    @Test("a change by one client reaches another's subscription with old and new value and origin")
    func changeEvent() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let writer = try daemon.connect()
        let watcher = try daemon.connect()
        _ = try writer.call(.set(app, key: "Theme", value: "light", expectedVersion: nil))
        let (id, snapshot) = try subscribe(watcher, WireSubscriptionFilter(.domain(app)))
        #expect(snapshot == WireSnapshot(values: ["Theme": "light"], sequences: [.init(domain: app, sequence: 1)]))
        _ = try writer.call(.set(app, key: "Theme", value: "dark", expectedVersion: nil))
        let event = try nextEvent(watcher)
        let origin = WireOrigin(.client, pid: getpid(), uid: getuid())
        #expect(
            event
                == .change(
                    subscription: id, WireChange(domain: app, key: "Theme", old: "light", new: "dark", sequence: 2),
                    origin: origin))
        _ = try writer.call(.setMany(app, values: ["a": 1], removeKeys: ["Theme"], expectedVersion: nil))
        guard case .batch(_, let changes, _) = try nextEvent(watcher) else {
            Issue.record("setMany did not arrive as one batch")
            return
        }
        #expect(changes.map(\.key).sorted() == ["Theme", "a"])
    }

    @Test("one change watched by 40 connections with different filters and ids: each gets exactly its own event")
    func fanOutEventsAreExactPerSubscription() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let writer = try daemon.connect()
        _ = try writer.call(
            .setMany(app, values: ["Theme": "light", "Width": 1], removeKeys: [], expectedVersion: nil))
        // A key of the other app's own domain shadows Width for its effective subscribers.
        _ = try writer.call(.set(WireDomain("com.example.other"), key: "Width", value: 9, expectedVersion: nil))
        let other = WireSearchList(app: "com.example.other", suites: [app.name])
        let filters: [WireSubscriptionFilter] = [
            WireSubscriptionFilter(.domain(app)), WireSubscriptionFilter(.domain(app), keys: .key("Theme")),
            WireSubscriptionFilter(.domain(app), keys: .prefix("Wi")),
            WireSubscriptionFilter(.effective(WireSearchList(app: app.name))),
            WireSubscriptionFilter(.effective(other)),
        ]
        // Every filter on 8 connections; on half of them a first, unrelated subscription makes the id 2, not 1.
        var watchers: [(WireTestConnection, UInt64, WireSubscriptionFilter)] = []
        for index in 0..<40 {
            let connection = try daemon.connect()
            if index % 2 == 1 {
                _ = try subscribe(connection, WireSubscriptionFilter(.domain(WireDomain("com.example.unrelated"))))
            }
            let filter = filters[index % filters.count]
            let (id, _) = try subscribe(connection, filter)
            watchers.append((connection, id, filter))
        }
        _ = try writer.call(.setMany(app, values: ["Theme": "dark", "Width": 2], removeKeys: [], expectedVersion: nil))
        let origin = WireOrigin(.client, pid: getpid(), uid: getuid())
        let theme = WireChange(domain: app, key: "Theme", old: "light", new: "dark", sequence: 3)
        let width = WireChange(domain: app, key: "Width", old: 1, new: 2, sequence: 4)
        for (connection, id, filter) in watchers {
            let event = try nextEvent(connection)
            let expected: WireEvent =
                switch (filter.target, filter.keys) {
                case (.domain, .all), (.effective(WireSearchList(app: app.name)), _):
                    .batch(subscription: id, [theme, width], origin: origin)
                case (.domain, .key): .change(subscription: id, theme, origin: origin)
                case (.domain, .prefix): .change(subscription: id, width, origin: origin)
                default: .change(subscription: id, theme, origin: origin)
                }
            if case .effective = filter.target {
                // Effective changes name the layer that moved them; compare what the subscriber reads from them.
                switch (event, expected) {
                case (.batch(let gotID, let got, _), .batch(_, let want, _)):
                    #expect(gotID == id)
                    #expect(got.map(\.key) == want.map(\.key) && got.map(\.new) == want.map(\.new), "\(filter)")
                case (.change(let gotID, let got, _), .change(_, let want, _)):
                    #expect(gotID == id)
                    #expect(got.key == want.key && got.new == want.new, "\(filter)")
                default:
                    Issue.record("\(filter): got \(event), expected \(expected)")
                }
            } else {
                #expect(event == expected, "\(filter)")
            }
        }
    }

    @Test("key and prefix filters, effective subscriptions, and unsubscribe")
    func filters() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let writer = try daemon.connect()
        let watcher = try daemon.connect()
        let (prefixID, _) = try subscribe(watcher, WireSubscriptionFilter(.domain(app), keys: .prefix("Win")))
        let (effectiveID, effectiveSnapshot) = try subscribe(
            watcher, WireSubscriptionFilter(.effective(WireSearchList(app: app.name)), keys: .key("Theme")))
        #expect(effectiveSnapshot.values.isEmpty)
        _ = try writer.call(.set(app, key: "Other", value: 1, expectedVersion: nil))
        _ = try writer.call(.set(app, key: "Window", value: 2, expectedVersion: nil))
        guard case .change(let id, let change, _) = try nextEvent(watcher) else {
            Issue.record("no change event")
            return
        }
        #expect(id == prefixID)
        #expect(change.key == "Window")
        _ = try writer.call(.set(WireDomain("NSGlobalDomain"), key: "Theme", value: "light", expectedVersion: nil))
        guard case .change(let globalID, let globalChange, _) = try nextEvent(watcher) else {
            Issue.record("no effective event")
            return
        }
        #expect(globalID == effectiveID)
        #expect(globalChange.new == "light")
        // The event names the layer that moved the effective value, with that domain's own sequence number.
        #expect(globalChange.domain == WireDomain("NSGlobalDomain"))
        #expect(globalChange.sequence == 1)
        #expect(effectiveSnapshot.sequence(of: WireDomain("NSGlobalDomain")) == 0)
        #expect(effectiveSnapshot.sequence(of: app) == 0)
        #expect(effectiveSnapshot.sequence(of: WireDomain(app.name, byHost: true)) == 0)
        #expect(effectiveSnapshot.sequence(of: WireDomain(app.name, scope: .forced)) == 0)
        #expect(try watcher.call(.unsubscribe(subscription: prefixID)) == .success(.unsubscribe))
        #expect(try watcher.call(.unsubscribe(subscription: prefixID)).failureCode == .notFound)
        _ = try writer.call(.set(app, key: "Window", value: 3, expectedVersion: nil))
        #expect(try watcher.call(.synchronize) == .success(.synchronize))
    }

    @Test("a reader that falls behind gets one resync snapshot instead of unbounded events")
    func resync() async throws {
        var limits = WireLimits.default
        limits.subscriptionQueueLength = 8
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let writer = try daemon.connect()
        let watcher = try daemon.connect()
        watcher.setReceiveBuffer(4096)
        let (id, _) = try subscribe(watcher, WireSubscriptionFilter(.domain(app)))
        let big = PlistValue.string(String(repeating: "x", count: 16 * 1024))
        for index in 0..<200 {
            #expect(try writer.call(.set(app, key: "key\(index)", value: big, expectedVersion: nil)).failureCode == nil)
        }
        var values: PlistDictionary = [:]
        var sawResync = false
        var events = 0
        while values.count < 200 || !sawResync {
            let event = try nextEvent(watcher)
            events += 1
            switch event {
            case .change(_, let change, _): values[change.key] = change.new
            case .batch(_, let changes, _): for change in changes { values[change.key] = change.new }
            case .resync(let subscription, let snapshot):
                #expect(subscription == id)
                sawResync = true
                values = snapshot.values
            case .closing: Issue.record("closed")
            }
            if sawResync && values.count == 200 { break }
        }
        #expect(sawResync)
        #expect(events < 200)
        #expect(values.count == 200)
    }

    @Test("subscriptions beyond maxSubscriptions are refused naming the limit")
    func subscriptionLimit() async throws {
        var limits = WireLimits.default
        limits.maxSubscriptions = 1
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        _ = try subscribe(connection, WireSubscriptionFilter(.domain(app)))
        let refused = try connection.call(.subscribe(WireSubscriptionFilter(.domain(app))))
        #expect(refused.failureLimit == .maxSubscriptions)
    }
}
