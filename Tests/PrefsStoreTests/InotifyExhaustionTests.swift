// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// Without inotify (the per-user limit of instances is reached), a watching store polls the files: a watcher still
/// sees other processes' changes.
///
/// The limit is per user, so exhausting it for the user that runs the tests would starve every other program of
/// that user on the machine; the processes run instead as a user of their own, through `setpriv`.
@Suite(
    "inotify exhausted",
    .enabled(
        if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: FixtureProcess.setpriv),
        "running processes as another user needs root and setpriv"))
struct InotifyExhaustionTests {
    /// A user id no account uses, whose inotify instances only this test takes.
    static let userID: UInt32 = 61_234

    static var maxUserInstances: Int? {
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_instances", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    @Test("a store that cannot get an inotify instance still sees another process's write, by polling")
    func watcherSeesChangesWithoutInotify() throws {
        let fixture = try StoreFixture()
        let directory = fixture.paths.preferencesDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The other user must reach the directory and own the Preferences directory.
        #expect(chmod(fixture.directory.path, 0o755) == 0)
        #expect(chown(directory, Self.userID, Self.userID) == 0)

        let exhauster = try FixtureProcess(["exhaust-inotify"], userID: Self.userID)
        defer {
            exhauster.closeInput()
            exhauster.waitForExit()
        }
        let report = try #require(exhauster.readLine(), "the exhauster said nothing")
        let fields = report.split(separator: " ")
        #expect(fields.first == "exhausted")
        #expect(fields.count == 3 && Int32(fields[2]) == EMFILE, "\(report)")
        if let maximum = Self.maxUserInstances {
            #expect(
                fields.count == 3 && Int(fields[1]) == maximum, "not every instance of the user was taken: \(report)")
        }

        let watcher = try FixtureProcess(["serve", directory], userID: Self.userID)
        #expect(watcher.readLine() == "ready")
        watcher.send("watch com.example.App")
        #expect(watcher.readLine() == "ok")

        let writer = try FixtureProcess(
            ["set", directory, "com.example.App", "Theme", "dark", "--sync"], userID: Self.userID)
        #expect(writer.waitForExit() == 0)
        let event = watcher.readLine(timeout: .seconds(10)) { $0.hasPrefix("event ") }
        #expect(event?.hasPrefix("event com.example.App Theme dark external ") == true, "\(event ?? "no event")")

        watcher.send("get com.example.App Theme")
        #expect(watcher.readLine { !$0.hasPrefix("event ") } == "value dark")
        watcher.send("quit")
        #expect(watcher.waitForExit() == 0)
    }
}
