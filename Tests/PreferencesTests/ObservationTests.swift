// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// `changes(for:)` and callback observations: effective values, from this process and from other processes.
@Suite struct ObservationTests {
    /// Consumes a change sequence into a recorder until cancelled.
    private func record<Value: Sendable>(_ changes: PreferenceChanges<Value>) -> (Recorder<Value>, Task<Void, Never>) {
        let recorder = Recorder<Value>()
        let task = Task {
            for await value in changes { recorder.append(value) }
        }
        return (recorder, task)
    }

    @Test func changesYieldsEachNewEffectiveValueOfATypedKey() async throws {
        let prefs = try Preferences.inMemory()
        prefs[.fontSize] = 13
        let changes = prefs.changes(for: .fontSize)
        #expect(changes.initialValue == 13)
        let (recorder, task) = record(changes)
        prefs[.fontSize] = 14
        prefs.set("15", forKey: "FontSize")
        prefs.removeObject(forKey: "FontSize")
        #expect(await eventually { recorder.all == [14, 15, 12] })
        task.cancel()
        await task.value
    }

    @Test func changesFollowTheEffectiveValueAcrossLayers() async throws {
        let storage = PreferencesStorage.inMemory()
        let prefs = try Preferences(domain: "com.example.App", storage: storage)
        let changes = prefs.changes(forKey: "Theme")
        #expect(changes.initialValue == nil)
        let (recorder, task) = record(changes)
        prefs.register(defaults: ["Theme": "light"])  // the registration layer
        try storage.setContents(["Theme": "blue"], ofDomain: "NSGlobalDomain")  // the global domain, above it
        prefs.set("dark", forKey: "Theme")  // the app's domain, above both
        try storage.setContents(["Theme": "green"], ofDomain: "NSGlobalDomain")  // shadowed: no element
        try storage.setContents(["Theme": "locked"], ofDomain: "com.example.App", scope: .forced)
        #expect(await eventually { recorder.all == ["light", "blue", "dark", "locked"] })
        #expect(prefs.objectIsForced(forKey: "Theme"))
        task.cancel()
        await task.value
    }

    @Test func changesFireForAChangeMadeByAnotherProcess() async throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        let changes = prefs.changes(forKey: "Greeting")
        let (recorder, task) = record(changes)
        let result = try BuiltProduct("PreferencesFixture").run(
            ["set", "com.example.App", "Greeting", "hello from another process"], environment: fixture.environment)
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("set "))
        #expect(await eventually { recorder.all == ["hello from another process"] })
        #expect(prefs.string(forKey: "Greeting") == "hello from another process")
        #expect(prefs.source(forKey: "Greeting").winner?.path == fixture.path("com.example.App", .user))
        task.cancel()
        await task.value
    }

    @Test func changesFireForAnotherProcessThatWritesOnlyAtExit() async throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        let (recorder, task) = record(prefs.changes(forKey: "Late"))
        let result = try BuiltProduct("PreferencesFixture").run(
            ["set", "com.example.App", "Late", "at exit", "--no-sync"], environment: fixture.environment)
        #expect(result.status == 0)
        #expect(await eventually { recorder.all == ["at exit"] })
        task.cancel()
        await task.value
    }

    @Test func callbackObservationDeliversUntilCancelled() throws {
        let prefs = try Preferences.inMemory()
        let recorder = Recorder<Int>()
        let observation = prefs.observe(.fontSize) { recorder.append($0) }
        prefs[.fontSize] = 20
        prefs[.fontSize] = 20  // the same value: no change
        prefs[.fontSize] = 21
        #expect(recorder.all == [20, 21])  // changes made in this process are delivered before set returns
        observation.cancel()
        #expect(observation.isCancelled)
        prefs[.fontSize] = 22
        #expect(recorder.all == [20, 21])
        observation.cancel()  // twice is harmless
    }

    @Test func releasingTheObservationStopsDelivery() throws {
        let prefs = try Preferences.inMemory()
        let recorder = Recorder<PlistValue?>()
        var observation: PreferencesObservation? = prefs.observe(forKey: "k") { recorder.append($0) }
        prefs.set(1, forKey: "k")
        prefs.removeObject(forKey: "k")
        #expect(recorder.all == [1, nil])
        #expect(observation != nil)
        observation = nil
        prefs.set(2, forKey: "k")
        #expect(recorder.all == [1, nil])
    }

    @Test func callbackObservationSeesOtherProcessesOnTheWatcherThread() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences()
        let recorder = Recorder<String>()
        let observation = prefs.observe(Preferences.Key("Color", default: "none")) { recorder.append($0) }
        let result = try BuiltProduct("PreferencesFixture").run(
            ["set", "com.example.App", "Color", "teal"], environment: fixture.environment)
        #expect(result.status == 0)
        #expect(eventually { recorder.all == ["teal"] })
        observation.cancel()
    }

    // The limit catches a sequence that never ends. It is generous because this test needs the cooperative pool's
    // threads (two on a two-core machine) while synchronous tests in the same run may hold them for a minute (a fleet
    // test waiting out a partition): a one-minute limit failed so once, with nothing hung.
    @Test(.timeLimit(.minutes(5))) func cancellingTheSequenceEndsIteration() async throws {
        let prefs = try Preferences.inMemory()
        let changes = prefs.changes(for: .fontSize)
        let task = Task { () -> Int in
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        prefs[.fontSize] = 1
        #expect(await eventually { prefs[.fontSize] == 1 })
        changes.cancel()
        prefs[.fontSize] = 2
        let count = await task.value  // returns only because the sequence ended
        #expect(count <= 1)
    }
}
