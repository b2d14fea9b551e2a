// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsPlist
import Synchronization
import Testing

/// `update(forKey:_:)` and `update(_:_:)`: atomic read-modify-write across threads, on the files and in memory.
@Suite struct UpdateTests {
    static let launches = Preferences.Key<Int>("LaunchCount", default: 0)

    @Test("increments from 8 threads all count, on the files and in memory", arguments: [false, true])
    func incrementsFromThreadsAllCount(inMemory: Bool) throws {
        let fixture = try FacadeFixture()
        let storage = inMemory ? PreferencesStorage.inMemory() : fixture.storage
        let prefs = try Preferences(domain: "com.example.App", storage: storage)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 { _ = try? prefs.update(Self.launches) { $0 += 1 } }
        }
        #expect(prefs[Self.launches] == 400)
        if !inMemory {
            prefs.synchronize()
            #expect(try fixture.stored("com.example.App")?["LaunchCount"] == 400)
        }
    }

    @Test("two instances on two storages of one directory, as two processes, never lose an append")
    func appendsFromTwoStoragesAllLand() throws {
        let fixture = try FacadeFixture()
        let other = PreferencesStorage.directories(
            preferences: fixture.preferencesDirectory, system: fixture.systemDirectory,
            domains: fixture.shippedDirectory, machineID: FacadeFixture.machineID)
        let first = try Preferences(domain: "com.example.App", storage: fixture.storage)
        let second = try Preferences(domain: "com.example.App", storage: other)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let prefs = index == 0 ? first : second
            for step in 0..<40 {
                _ = try? prefs.update(forKey: "Recent") { stored in
                    .array((stored?.arrayValue ?? []) + [.string("\(index)-\(step)")])
                }
                // Half the writes happen while the other instance has updates pending.
                if step % 2 == index { try? prefs.synchronizeThrowing() }
            }
            try? prefs.synchronizeThrowing()
        }
        let recent = try #require(try fixture.stored("com.example.App")?["Recent"]?.arrayValue)
        #expect(recent.count == 80)
        #expect(Set(recent).count == 80)
    }

    @Test("the transform gets the stored value (or the key's default) and its result is returned")
    func theTransformSeesTheStoredValue() throws {
        let prefs = try Preferences.inMemory(domain: "com.example.App")
        #expect(try prefs.update(Self.launches) { $0 += 5 } == 5)
        prefs.set("not a number", forKey: "LaunchCount")
        #expect(try prefs.update(Self.launches) { $0 += 1 } == 1, "an unreadable value starts from the default")
        #expect(try prefs.update(forKey: "Name") { $0 == nil ? "Ada" : "other" } == "Ada")
        #expect(try prefs.update(forKey: "Name") { _ in nil } == nil)
        #expect(prefs.object(forKey: "Name") == nil)
    }

    @Test("a forced key is refused and nothing is written")
    func aForcedKeyIsRefused() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["LaunchCount": 7], domain: "com.example.App", scope: .forced)
        let prefs = try fixture.preferences()
        let ran = Mutex(false)
        do {
            try prefs.update(Self.launches) { value in
                ran.withLock { $0 = true }
                value += 1
            }
            Issue.record("a forced key was updated")
        } catch {
            #expect(error.code == .readOnly)
            #expect(error.message.contains("forced"))
        }
        #expect(!ran.withLock { $0 })
        #expect(try fixture.stored("com.example.App") == nil)
    }

    @Test("a value that cannot be stored fails with invalidValue and changes nothing")
    func anUnstorableValueChangesNothing() throws {
        let prefs = try Preferences.inMemory(domain: "com.example.App")
        let key = Preferences.Key<[String?]>("Optional", default: [])
        do {
            try prefs.update(key) { $0.append(nil) }
            Issue.record("a nil inside an array was stored")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("Optional"))
        }
        #expect(prefs.object(forKey: "Optional") == nil)
    }
}
