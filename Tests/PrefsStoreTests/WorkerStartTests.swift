// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// A store that does not watch files starts its worker thread on its first flush deadline only: a store used only
/// for reads (a one-shot `defaults read`) starts none, and pending writes still reach the disk on the deadline, at
/// `synchronize()` and when the store goes away.
@Suite struct WorkerStartTests {
    let app = user("com.example.App")

    @Test func aStoreUsedOnlyForReadsStartsNoWorker() throws {
        let fixture = try StoreFixture()
        try fixture.install(["greeting": "hello"], as: app)
        let store = fixture.makeStore(watchesFiles: false)
        #expect(store.value(forKey: "greeting", in: app) == "hello")
        #expect(try store.persistentDomain(app) == ["greeting": "hello"])
        #expect(try store.persistentDomain(user("com.example.Absent")) == nil)
        #expect(try store.domainNames(scope: .user) == [name("com.example.App")])
        try store.synchronize()
        try store.synchronize(app)
        #expect(!store.hasStartedWorker)
    }

    @Test func aWatchingStoreStartsItsWorkerAtOnce() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(watchesFiles: true)
        #expect(store.hasStartedWorker)
    }

    @Test func anInMemoryStoreNeverStartsAWorker() throws {
        let store = PreferencesStore.inMemory()
        try store.set("value", forKey: "key", in: app)
        try store.synchronize()
        #expect(!store.hasStartedWorker)
    }

    @Test func aWriteStartsTheWorkerWhichWritesOnTheFlushDeadline() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(flushDelay: .milliseconds(100), watchesFiles: false)
        try store.set("hello", forKey: "greeting", in: app)
        #expect(store.hasStartedWorker)
        // No synchronize: only the worker writes it.
        let path = try fixture.path(app)
        #expect(eventually(timeout: .seconds(10)) { (try? readDictionary(path)) == ["greeting": "hello"] })
        // Later writes use the same worker.
        try store.set("again", forKey: "greeting", in: app)
        #expect(eventually(timeout: .seconds(10)) { (try? readDictionary(path)) == ["greeting": "again"] })
    }

    @Test func pendingWritesReachTheDiskAtSynchronize() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(flushDelay: .seconds(60), watchesFiles: false)
        try store.set("hello", forKey: "greeting", in: app)
        try store.setMany(["a": 1, "b": nil], in: app)
        try store.synchronize()
        #expect(try readDictionary(fixture.path(app)) == ["greeting": "hello", "a": 1])
    }

    @Test func pendingWritesReachTheDiskWhenTheStoreGoesAway() throws {
        let fixture = try StoreFixture()
        do {
            let store = fixture.makeStore(flushDelay: .seconds(60), watchesFiles: false)
            try store.set("kept", forKey: "key", in: app)
        }
        // The worker may hold the store for a moment, and then it is released (and writes) on that thread.
        let path = try fixture.path(app)
        #expect(eventually(timeout: .seconds(10)) { (try? readDictionary(path)) == ["key": "kept"] })
    }
}
