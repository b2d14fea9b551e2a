// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// A prefsd stopped with SIGSTOP accepts connections (the kernel queues them) but never answers: clients must not
/// wait their whole request timeout for its greeting.
@Suite("a stopped prefsd")
struct StoppedDaemonTests {
    static let defaults = BuiltProduct("defaults").path

    func timed(
        _ arguments: [String], _ environment: [String: String]
    ) throws -> (result: (status: Int32, output: String, error: String), seconds: Double) {
        let start = ContinuousClock.now
        let result = try runProgram(Self.defaults, arguments, environment: environment, timeout: 60)
        let elapsed = ContinuousClock.now - start
        return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test("auto: defaults falls back to the files after about a second, with one line of warning; on: it fails")
    func stoppedDaemon() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        try daemon.stopDaemon()
        defer { daemon.signalDaemon(SIGCONT) }

        let (write, seconds) = try timed(["write", "com.example.app", "Theme", "dark"], home.environment)
        #expect(write.status == 0, "\(write)")
        #expect(seconds < 10, "the fall-back took \(seconds) s")
        #expect(write.output == "")
        let lines = write.error.split(separator: "\n")
        #expect(lines.count == 1, "\(write.error)")
        #expect(write.error.hasPrefix("defaults: warning: prefsd on \(home.socketPath) did not answer hello: "))
        #expect(write.error.contains("nothing came within 1 s, and its process \(daemon.daemonPID) is stopped"))
        #expect(write.error.contains("using the files in \(home.preferences) instead"))
        #expect(try home.storedValues("com.example.app") == ["Theme": "dark"])

        var always = home.environment
        always["PREFERENCES_DAEMON"] = "on"
        let (refused, refusedSeconds) = try timed(["write", "com.example.app", "Theme", "light"], always)
        #expect(refused.status == 1)
        #expect(refusedSeconds < 10, "the refusal took \(refusedSeconds) s")
        #expect(
            refused.error
                == "defaults: prefsd on \(home.socketPath) did not answer hello: nothing came within 1 s, and its "
                + "process \(daemon.daemonPID) is stopped or gone\n")
        #expect(refused.error.split(separator: "\n").count == 1, "\(refused.error)")
        #expect(try home.storedValues("com.example.app") == ["Theme": "dark"])

        daemon.signalDaemon(SIGCONT)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
