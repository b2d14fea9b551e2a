// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Synchronization
import Testing

@testable import PrefsStore

/// A synchronous write that cannot be made durable (a full disk, a read-only file system) changes nothing: the
/// caller's change is withdrawn, never seen afterwards and never written later.
@Suite(.enabled(if: SmallFileSystem.isAvailable, "mounting a small tmpfs needs root"))
struct FailedWriteTests {
    let fixture: StoreFixture
    let disk: SmallFileSystem
    let app = user("com.example.App")

    init() throws {
        fixture = try StoreFixture()
        disk = try SmallFileSystem(at: fixture.paths.preferencesDirectory, kilobytes: 64, owner: fixture.directory)
    }

    /// A value larger than the file system's free space once it is full.
    static let big = PlistValue.data([UInt8](repeating: 7, count: 16_384))

    @Test("an update on a full disk fails and changes nothing, also after space returns")
    func updateOnAFullDisk() throws {
        let store = fixture.makeStore()
        let events = Mutex<[ChangeEvent]>([])
        let token = store.observe(.domain(app)) { batch in events.withLock { $0 += batch } }
        try store.update(app) { $0["kept"] = 1 }
        try disk.fill()

        #expect(throws: PrefsStoreError.self) { try store.update(self.app) { $0["big"] = Self.big } }
        #expect(store.value(forKey: "big", in: app) == nil)
        #expect(try store.persistentDomain(app) == ["kept": 1])
        #expect(store.writeError(app)?.code == .ioFailure)
        // Observers saw the change taken back: the last event of the key says it is absent again.
        #expect(events.withLock { $0.last { $0.key == "big" }?.newValue } == .some(nil))

        try disk.makeRoom()
        try store.synchronize()
        #expect(try readValues(fixture.path(app)) == ["kept": 1])
        let reopened = fixture.makeStore()
        #expect(reopened.value(forKey: "big", in: app) == nil)
        token.cancel()
    }

    @Test("a synchronize that cannot write withdraws the caller's changes; other writers' stay pending")
    func synchronizeOnAFullDisk() throws {
        let store = fixture.makeStore()
        try store.set(1, forKey: "kept", in: app)
        try store.synchronize()
        try disk.fill()
        try store.set(Self.big, forKey: "mine", in: app)
        try store.set(2, forKey: "theirs", in: app, origin: .client(pid: 42, uid: 0))

        #expect(throws: PrefsStoreError.self) { try store.synchronize(withdrawingOnFailure: .thisProcess) }
        #expect(store.value(forKey: "mine", in: app) == nil)
        #expect(store.value(forKey: "theirs", in: app) == 2)

        try disk.makeRoom()
        try store.synchronize()
        #expect(try readValues(fixture.path(app)) == ["kept": 1, "theirs": 2])
    }

    @Test("on a read-only file system an update fails with the file system's reason and changes nothing")
    func updateOnAReadOnlyFileSystem() throws {
        let store = fixture.makeStore()
        try store.update(app) { $0["kept"] = 1 }
        try disk.remountReadOnly()
        let error = #expect(throws: PrefsStoreError.self) { try store.update(self.app) { $0["new"] = 2 } }
        #expect(error?.description.contains("Read-only file system") == true, "\(String(describing: error))")
        #expect(store.value(forKey: "new", in: app) == nil)
        try disk.remountReadWrite()
        try store.synchronize()
        #expect(try readValues(fixture.path(app)) == ["kept": 1])
    }

    /// A process spawned by another test while `fill()` had the filler open keeps a copy of its descriptor until its
    /// `exec`: the space must be back when `makeRoom()` returns all the same, or the next write fails now and then.
    @Test("space is back when makeRoom returns, even while a copy of the filler's descriptor is still open")
    func makeRoomWaitsForTheFillersSpace() throws {
        let store = fixture.makeStore()
        try store.set(1, forKey: "kept", in: app)
        try store.synchronize()
        try disk.fill()
        let copy = open(disk.fillerPath, O_RDONLY | O_CLOEXEC)
        try #require(copy >= 0)
        let closing = DispatchGroup()
        DispatchQueue.global().async(group: closing) {
            usleep(300_000)
            close(copy)
        }

        try disk.makeRoom()
        try store.set(Self.big, forKey: "big", in: app)
        #expect(throws: Never.self) { try store.synchronize(withdrawingOnFailure: .thisProcess) }
        closing.wait()
        #expect(try readValues(fixture.path(app)) == ["kept": 1, "big": Self.big])
    }

    private func readValues(_ path: String) throws -> PlistDictionary? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try PlistSerialization.decode(Array(data)).dictionaryValue
    }
}
