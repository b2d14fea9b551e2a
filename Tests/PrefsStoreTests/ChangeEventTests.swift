// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Synchronization
import Testing

@testable import PrefsStore

@Suite struct ChangeEventTests {
    let app = user("com.example.App")

    @Test func localChangesFireOnlyOnARealChange() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        let recorder = EventRecorder()
        let token = store.observe(.domain(app), handler: recorder.handler)
        try store.set("one", forKey: "k", in: app)
        try store.set("one", forKey: "k", in: app)
        try store.set("two", forKey: "k", in: app)
        try store.set(nil, forKey: "k", in: app)
        try store.set(nil, forKey: "k", in: app)
        #expect(
            recorder.events == [
                ChangeEvent(domain: app, key: "k", oldValue: nil, newValue: "one", sequence: 1, origin: .thisProcess),
                ChangeEvent(domain: app, key: "k", oldValue: "one", newValue: "two", sequence: 2, origin: .thisProcess),
                ChangeEvent(domain: app, key: "k", oldValue: "two", newValue: nil, sequence: 3, origin: .thisProcess),
            ])
        token.cancel()
        try store.set("three", forKey: "k", in: app)
        #expect(recorder.events.count == 3, "no events after cancel")
    }

    @Test func keyFiltersBatchesAndClientOrigins() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        let keyRecorder = EventRecorder()
        let domainRecorder = EventRecorder()
        let keyToken = store.observe(.key("b", in: app), handler: keyRecorder.handler)
        let domainToken = store.observe(.domain(app), handler: domainRecorder.handler)
        try store.setMany(["a": 1, "b": 2, "c": 3], in: app, origin: .client(pid: 77, uid: 1000))
        #expect(domainRecorder.batchSizes == [3], "setMany is one batch")
        #expect(domainRecorder.events.map(\.key) == ["a", "b", "c"])
        #expect(domainRecorder.events.allSatisfy { $0.origin == .client(pid: 77, uid: 1000) })
        #expect(keyRecorder.events.map(\.key) == ["b"])
        _ = (keyToken, domainToken)
    }

    @Test func observersGetTheirEventsInRegistrationOrderEachWithItsOwnShare() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        // Receipts are recorded domain watchers first, effective ones after: the effective observer, registered
        // first, must still be called first.
        let order = Mutex<[String]>([])
        let effective = EventRecorder()
        let twoKeys = EventRecorder()
        let all = EventRecorder()
        let list = SearchList(domain: app.name)
        let tokens = [
            store.observe(.effective(list)) { events in
                order.withLock { $0.append("effective") }
                effective.handler(events)
            },
            store.observe(.key("b", in: app)) { events in
                order.withLock { $0.append("b") }
                twoKeys.handler(events)
            },
            store.observe(.domain(app)) { events in
                order.withLock { $0.append("domain") }
                all.handler(events)
            },
        ]
        try store.setMany(["a": 1, "b": 2, "c": 3], in: app)
        #expect(eventually { order.withLock { $0.count } == 3 })
        #expect(order.withLock { $0 } == ["effective", "b", "domain"])
        #expect(effective.events.map(\.key) == ["a", "b", "c"])
        #expect(twoKeys.events.map(\.key) == ["b"])
        #expect(all.events.map(\.key) == ["a", "b", "c"])
        #expect(all.events.map(\.sequence) == [1, 2, 3])
        #expect(all.batchSizes == [3])
        _ = tokens
    }

    @Test func subscribingReturnsASnapshotConsistentWithTheEvents() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.setMany(["a": 1, "b": 2], in: app)
        let recorder = EventRecorder()
        let subscription = store.subscribe(.domain(app), handler: recorder.handler)
        #expect(subscription.snapshot.values == ["a": 1, "b": 2])
        #expect(subscription.snapshot.sequence == 2)
        try store.set(3, forKey: "a", in: app)
        #expect(eventually { !recorder.events.isEmpty })  // delivered off the writing thread
        #expect(recorder.events.map(\.sequence) == [3])
        let keyOnly = store.subscribe(.key("b", in: app)) { _ in }
        #expect(keyOnly.snapshot.values == ["b": 2])
    }

    @Test func effectiveObservationSeesOnlyChangesThatWin() throws {
        let fixture = try StoreFixture()
        try fixture.install(["forced": "admin"], as: DomainID(app.name, scope: .forced))
        let store = fixture.makeStore()
        let list = SearchList(domain: app.name)
        let recorder = EventRecorder()
        let subscription = store.subscribe(.effective(list), handler: recorder.handler)
        #expect(subscription.snapshot.values == ["forced": "admin"])

        try store.set("global", forKey: "k", in: .global)
        try store.set("app", forKey: "k", in: app)
        try store.set("global 2", forKey: "k", in: .global)  // shadowed by the app's value: no effective change
        try store.set("mine", forKey: "forced", in: app)  // shadowed by the forced layer
        store.register(defaults: ["r": true])
        store.register(defaults: ["k": "registered"])  // shadowed
        try store.set(nil, forKey: "k", in: app)  // reveals the global value
        // Events are delivered off the writing thread: wait for the fourth before judging them all.
        #expect(eventually { recorder.events.count >= 4 })
        #expect(recorder.events.map(\.key) == ["k", "k", "r", "k"])
        #expect(recorder.events.map(\.oldValue) == [nil, "global", nil, "app"])
        #expect(recorder.events.map(\.newValue) == ["global", "app", true, "global 2"])
        #expect(recorder.events.map(\.sequence) == [1, 2, 3, 4])
        #expect(recorder.events.allSatisfy { $0.domain == app })
        _ = subscription
    }

    @Test func changeStreamsDeliverInOrderAndEndOnCancel() async throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        let stream = store.changes(.key("k", in: app))
        #expect(stream.snapshot.values.isEmpty)
        let consumer = Task {
            var seen: [PlistValue?] = []
            for await event in stream {
                seen.append(event.newValue)
                if seen.count == 3 { break }
            }
            return seen
        }
        try store.set(1, forKey: "k", in: app)
        try store.set(2, forKey: "other", in: app)
        try store.set(2, forKey: "k", in: app)
        try store.set(nil, forKey: "k", in: app)
        #expect(await consumer.value == [1, 2, nil])

        let ended = store.changes(.domain(app))
        let waiter = Task {
            var count = 0
            for await _ in ended { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(50))
        ended.cancel()
        #expect(await waiter.value == 0)
    }

    @Test func aSlowStreamMergesEventsPerKey() async throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        let stream = store.changes(.domain(app), bufferLimit: 4)
        for round in 0..<50 {
            for key in ["a", "b", "c", "d", "e"] {
                try store.set(.integer(PlistInteger(Int64(round))), forKey: key, in: app)
            }
        }
        try store.set("last", forKey: "z", in: app)
        var latest: [String: PlistValue?] = [:]
        var count = 0
        for await event in stream {
            latest[event.key] = event.newValue
            count += 1
            if event.key == "z" { break }
        }
        #expect(count <= 10, "251 events are merged per key: \(count) delivered")
        #expect(latest["a"] == .some(49))
        #expect(latest["e"] == .some(49))
    }

    @Test func handEditsReachObserversWithTheirOrigin() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set("original", forKey: "k", in: app)
        try store.synchronize()
        let recorder = EventRecorder()
        let token = store.observe(.domain(app), handler: recorder.handler)
        let path = try fixture.path(app)

        try writeFile(path, try PlistSerialization.encode(["k": "in place"], format: .xml))
        #expect(eventually { store.value(forKey: "k", in: app) == "in place" })
        try writeFileByRename(path, try PlistSerialization.encode(["k": "renamed", "n": 1], format: .xml))
        #expect(eventually { store.value(forKey: "n", in: app) == 1 })
        // Events are delivered after the values change, outside the store's lock: wait for them too.
        #expect(eventually { recorder.events.count >= 3 })
        #expect(recorder.events.map(\.key) == ["k", "k", "n"])
        #expect(recorder.events.allSatisfy { $0.origin == .external })
        #expect(recorder.events.map(\.newValue) == ["in place", "renamed", 1])

        // A hand edit wins over the cache: the next write keeps it.
        try store.set("mine", forKey: "other", in: app)
        try store.synchronize()
        #expect(try readDictionary(path) == ["k": "renamed", "n": 1, "other": "mine"])
        _ = token
    }

    @Test func anotherStoresWriteArrivesWithItsPidAndOwnWritesDoNotComeBack() throws {
        let fixture = try StoreFixture()
        let reader = fixture.makeStore()
        let writer = fixture.makeStore()
        let recorder = EventRecorder()
        let token = reader.observe(.domain(app), handler: recorder.handler)
        try writer.set("from writer", forKey: "k", in: app)
        try writer.synchronize()
        #expect(eventually { !recorder.events.isEmpty })
        #expect(recorder.events.first?.origin == .otherProcess(pid: getpid()))
        #expect(recorder.events.first?.newValue == "from writer")

        let writerRecorder = EventRecorder()
        let writerToken = writer.observe(.domain(app), handler: writerRecorder.handler)
        try writer.set("again", forKey: "k", in: app)
        try writer.synchronize()
        #expect(eventually { reader.value(forKey: "k", in: app) == "again" })
        // A third writer's change after it: the writer's worker reads inotify events in order, so once it has
        // delivered this one, it has handled the event of its own write, which must not have become an event.
        let third = fixture.makeStore(watchesFiles: false)
        try third.set("barrier", forKey: "barrier", in: app)
        try third.synchronize()
        #expect(eventually { writerRecorder.events.contains { $0.key == "barrier" } })
        #expect(
            writerRecorder.events.map(\.origin) == [.thisProcess, .otherProcess(pid: getpid())],
            "the writer's own file write is not an event")
        _ = (token, writerToken)
    }

    @Test func deletingTheFileRemovesTheKeys() throws {
        let fixture = try StoreFixture()
        try fixture.install(["a": 1], as: app)
        let store = fixture.makeStore()
        let recorder = EventRecorder()
        let token = store.observe(.domain(app), handler: recorder.handler)
        #expect(store.value(forKey: "a", in: app) == 1)
        #expect(unlink(try fixture.path(app)) == 0)
        #expect(eventually { store.value(forKey: "a", in: app) == nil })
        // The value changes before the event is delivered (off this thread): wait for the event itself.
        #expect(eventually { !recorder.events.isEmpty })
        #expect(recorder.events.map(\.oldValue) == [1])
        _ = token
    }

    @Test func aPreferencesDirectoryRemovedAndRecreatedIsWatchedAgain() throws {
        let fixture = try StoreFixture()
        try fixture.install(["k": "before"], as: app)
        let store = fixture.makeStore()
        #expect(store.value(forKey: "k", in: app) == "before")
        try FileManager.default.removeItem(atPath: fixture.paths.preferencesDirectory)
        #expect(eventually { store.value(forKey: "k", in: app) == nil })
        try fixture.install(["k": "recreated"], as: app)
        #expect(eventually { store.value(forKey: "k", in: app) == "recreated" })
        try fixture.install(["k": "edited later"], as: app)
        #expect(eventually { store.value(forKey: "k", in: app) == "edited later" })
    }

    @Test func aByHostDirectoryCreatedLaterIsWatched() throws {
        let fixture = try StoreFixture()
        let byHost = DomainID(app.name, scope: .byHost)
        let reader = fixture.makeStore()
        #expect(reader.value(forKey: "k", in: byHost) == nil)
        #expect(!fileExists(fixture.paths.byHostDirectory))
        let writer = fixture.makeStore()
        try writer.set("first", forKey: "k", in: byHost)
        try writer.synchronize()
        #expect(eventually { reader.value(forKey: "k", in: byHost) == "first" })
        try writer.set("second", forKey: "k", in: byHost)
        try writer.synchronize()
        #expect(eventually { reader.value(forKey: "k", in: byHost) == "second" })
    }

    @Test func aQueueOverflowRereadsEveryLoadedDomain() throws {
        let fixture = try StoreFixture()
        try fixture.install(["k": "old"], as: app)
        try fixture.install(["g": "old"], as: .global)
        let store = fixture.makeStore(watchesFiles: false)
        let recorder = EventRecorder()
        let token = store.observe(.domain(app), handler: recorder.handler)
        #expect(store.value(forKey: "g", in: .global) == "old")
        try fixture.install(["k": "new"], as: app)
        try fixture.install(["g": "new"], as: .global)
        #expect(store.value(forKey: "k", in: app) == "old", "not watching: the change is not seen yet")
        store.handleWatchEvents([
            FileSystem.WatchEvent(watch: -1, mask: FileSystem.WatchMask.overflow, cookie: 0, name: "")
        ])
        #expect(store.value(forKey: "k", in: app) == "new")
        #expect(store.value(forKey: "g", in: .global) == "new")
        #expect(recorder.events.map(\.origin) == [.external])
        _ = token
    }

    @Test func systemLayerEditsReachRunningStores() throws {
        let fixture = try StoreFixture()
        try fixture.install(["policy": "old"], as: DomainID(app.name, scope: .system))
        let store = fixture.makeStore()
        let list = SearchList(domain: app.name)
        #expect(store.effectiveValue(forKey: "policy", in: list) == "old")
        try fixture.install(["policy": "new"], as: DomainID(app.name, scope: .system))
        #expect(eventually { store.effectiveValue(forKey: "policy", in: list) == "new" })
    }

    @Test func argumentDomainIsSearchedOnlyWhenIncluded() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set("stored", forKey: "k", in: app)
        store.setArgumentDomain(["k": "from-arguments"])
        #expect(store.effectiveValue(forKey: "k", in: SearchList(domain: app.name)) == "stored")
        #expect(
            store.effectiveValue(forKey: "k", in: SearchList(domain: app.name, includesArguments: true))
                == "from-arguments")
        #expect(store.argumentDomain == ["k": "from-arguments"])
    }
}
