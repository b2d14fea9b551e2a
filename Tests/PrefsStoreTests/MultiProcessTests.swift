// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// Real processes on real files: concurrent writers, writers killed mid-write, hand edits reaching running processes.
@Suite(.serialized) struct MultiProcessTests {
    let shared = "com.example.Shared"

    @Test(arguments: [30, 200])
    func concurrentWritersOfOneDomainLoseNothing(count: Int) throws {
        let fixture = try StoreFixture()
        let directory = fixture.paths.preferencesDirectory
        // Half synchronize explicitly, half leave the write to the exit handler.
        let writers = try (0..<count).map { index in
            try FixtureProcess(
                ["set", directory, shared, "key-\(index)", "value-\(index)"] + (index % 2 == 0 ? ["--sync"] : []))
        }
        for writer in writers { #expect(writer.waitForExit() == 0) }
        let values = try readDictionary(try fixture.path(user(shared)))
        #expect(values.count == count)
        for index in 0..<count { #expect(values["key-\(index)"] == .string("value-\(index)")) }
        #expect(directoryEntries(directory) == [".locks", "\(shared).plist"], "no temp files left")
    }

    @Test func writersKilledMidWriteNeverTearTheFileOrLoseSynchronizedKeys() throws {
        let fixture = try StoreFixture()
        let directory = fixture.paths.preferencesDirectory
        let path = try fixture.path(user(shared))
        var lastSynced: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        var round = 0
        let end = ContinuousClock.now + .seconds(6)
        while ContinuousClock.now < end {
            let prefixes = (0..<3).map { "r\(round)w\($0)" }
            round += 1
            let churners = try prefixes.map { try FixtureProcess(["churn", directory, shared, $0]) }
            usleep(UInt32.random(in: 30_000...150_000, using: &generator))
            for churner in churners { churner.signal(SIGKILL) }
            for (prefix, churner) in zip(prefixes, churners) {
                #expect(churner.waitForExit() == 128 + SIGKILL)
                var last = -1
                while let line = churner.readLine(timeout: .seconds(2)) {
                    if line.hasPrefix("synced "), let number = Int(line.dropFirst(7)) { last = number }
                }
                lastSynced[prefix] = last
            }
            if fileExists(path) {
                // Every reader at every moment sees a whole file.
                #expect(throws: Never.self) { _ = try readDictionary(path) }
            }
        }
        // One more writer removes what the killed ones left half-written.
        let finisher = try FixtureProcess(["set", directory, shared, "final", "yes", "--sync"])
        #expect(finisher.waitForExit() == 0)

        let values = try readDictionary(path)
        var synchronizedKeys = 0
        for (prefix, last) in lastSynced where last >= 0 {
            for number in 0...last {
                #expect(
                    values["\(prefix)-\(number)"] == .integer(PlistInteger(Int64(number))), "\(prefix)-\(number) lost")
                synchronizedKeys += 1
            }
        }
        #expect(synchronizedKeys > 0, "the writers got to synchronize before being killed")
        #expect(round >= 5)
        let leftovers = directoryEntries(directory).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "temp files left behind: \(leftovers)")
        print(
            "kill loop: \(round) rounds, \(lastSynced.count) writers killed, \(synchronizedKeys) synchronized keys kept"
        )
    }

    @Test func handEditsReachARunningProcessQuicklyAndWinOverItsCache() throws {
        let fixture = try StoreFixture()
        let domain = user("com.example.Edited")
        let path = try fixture.path(domain)
        let directory = fixture.paths.preferencesDirectory
        let seed = try FixtureProcess(["set", directory, domain.name.rawValue, "seed", "1", "--sync"])
        #expect(seed.waitForExit() == 0)

        // A flush delay longer than the test: on a loaded machine a 1 s delay could end between the edits, and an
        // editor saving stale contents then drops the process's write, which is not what this test is about.
        let process = try FixtureProcess(["serve", directory, "--delay-ms", "60000"])
        #expect(process.readLine() == "ready")
        process.send("watch \(domain.name)")
        #expect(process.readLine() == "ok")
        // A change of the process's own, not yet written when the edits happen.
        process.send("set \(domain.name) own pending")
        #expect(process.readLine { $0 == "ok" } != nil)

        var latencies: [Double] = []
        func expectEvent(key: String, value: String) throws {
            let line = try #require(
                process.readLine(timeout: .seconds(30)) { $0.hasPrefix("event \(domain.name) \(key) ") })
            let words = line.split(separator: " ")
            #expect(words[3] == Substring(value))
            #expect(line.contains("external edit"))
            let stamp = try #require(UInt64(words[words.count - 1]))
            latencies.append(Double(stamp) / 1e6)
        }

        var contents = try readDictionary(path)
        contents["plain"] = "edited"
        var start = Double(monotonicNanoseconds()) / 1e6
        try writeFile(path, try PlistSerialization.encode(.dictionary(contents), format: .xml))
        try expectEvent(key: "plain", value: "edited")
        latencies[latencies.count - 1] -= start

        contents["renamed"] = "saved"
        start = Double(monotonicNanoseconds()) / 1e6
        try writeFileByRename(path, try PlistSerialization.encode(.dictionary(contents), format: .xml))
        try expectEvent(key: "renamed", value: "saved")
        latencies[latencies.count - 1] -= start

        // The latency is the benchmarks' business (a loaded machine delays it by seconds); here it must only show
        // that the edit did not wait for anything like the process's own 60 s write delay.
        for latency in latencies { #expect(latency < 20_000, "hand edit reached the process after \(latency) ms") }
        print("hand edit latency: plain write \(latencies[0]) ms, write-and-rename \(latencies[1]) ms")

        process.send("get \(domain.name) plain")
        #expect(process.readLine() == "value edited")
        process.send("sync")
        #expect(process.readLine { $0 == "ok" } != nil)
        #expect(
            try readDictionary(path) == ["seed": "1", "plain": "edited", "renamed": "saved", "own": "pending"],
            "the process's write keeps the hand edits and adds only its own key")
        process.send("quit")
        #expect(process.waitForExit() == 0)
    }

    @Test func changesReachDiskWithinTheFlushDelayAndAtCleanExit() throws {
        let fixture = try StoreFixture()
        let directory = fixture.paths.preferencesDirectory
        let domain = user("com.example.Lazy")
        let path = try fixture.path(domain)

        // The exit handler writes a change nobody synchronized, even with a long flush delay.
        let oneShot = try FixtureProcess([
            "set", directory, domain.name.rawValue, "atExit", "yes", "--delay-ms", "60000",
        ])
        #expect(oneShot.waitForExit() == 0)
        #expect(try readDictionary(path) == ["atExit": "yes"])

        let process = try FixtureProcess(["serve", directory, "--delay-ms", "300"])
        #expect(process.readLine() == "ready")
        process.send("set \(domain.name) delayed yes")
        #expect(process.readLine() == "ok")
        // Nothing but the flush delay writes it: no synchronize is asked for, and the process keeps running.
        #expect(eventually(timeout: .seconds(10)) { (try? readDictionary(path))?["delayed"] == "yes" })

        process.send("set \(domain.name) quitting yes")
        #expect(process.readLine() == "ok")
        process.send("quit")
        #expect(process.waitForExit() == 0)
        #expect(try readDictionary(path)["quitting"] == "yes", "written at a clean exit")
    }

    @Test func anotherProcessesWritesArriveAsEventsWithItsPid() throws {
        let fixture = try StoreFixture()
        let domain = user("com.example.Watched")
        let store = fixture.makeStore()
        let recorder = EventRecorder()
        let token = store.observe(.domain(domain), handler: recorder.handler)
        let writer = try FixtureProcess([
            "set", fixture.paths.preferencesDirectory, domain.name.rawValue, "k", "v", "--sync",
        ])
        #expect(writer.waitForExit() == 0)
        #expect(eventually { !recorder.events.isEmpty })
        #expect(recorder.events.first?.origin == .otherProcess(pid: writer.pid))
        #expect(recorder.events.first?.newValue == "v")
        _ = token
    }
}
