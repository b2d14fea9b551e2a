// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsSystemd

/// `sd_notify` for real: the test binds the datagram socket systemd would listen on, points the fixture's
/// `NOTIFY_SOCKET` at it, and reads what arrives.
@Suite struct SystemdNotifierTests {
    /// A notification and when the test received it.
    struct Received {
        let text: String
        let at: ContinuousClock.Instant
    }

    /// Runs the fixture's `notify` mode with `WATCHDOG_PID` set to the fixture's own pid (the shell `exec`s it, so
    /// `$$` is that pid), as systemd sets it.
    static func startNotifyFixture(
        notifySocket: String?, watchdogMicroseconds: Int?, watchdogPID: String = "$$", arguments: [String] = []
    ) throws -> ChildProcess {
        var environment: [String: String] = [:]
        if let notifySocket { environment["NOTIFY_SOCKET"] = notifySocket }
        var script = "exec \"$0\" notify \"$@\""
        if let watchdogMicroseconds {
            environment["WATCHDOG_USEC"] = String(watchdogMicroseconds)
            script = "WATCHDOG_PID=\(watchdogPID) " + script
        }
        return try ChildProcess(
            "/bin/sh", ["-c", script, ChildProcess.fixture] + arguments, environment: environment)
    }

    @Test func sendsReadyStatusWatchdogAtHalfTheIntervalAndStopping() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-notify")
        let notify = try UnixSocket.boundDatagram(at: directory.file("notify"))
        let child = try Self.startNotifyFixture(notifySocket: directory.file("notify"), watchdogMicroseconds: 600_000)
        var received: [Received] = []
        var watchdogPings = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, let text = try notify.receive(timeout: .seconds(10)) {
            received.append(Received(text: text, at: .now))
            if text == "WATCHDOG=1" {
                watchdogPings += 1
                // systemd stops a service with SIGTERM; the fixture's ServiceGroup turns it into graceful shutdown.
                if watchdogPings == 4 { child.terminate() }
            }
            if text.hasPrefix("STOPPING=1") { break }
        }
        let result = child.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("notify-enabled=true\n"), "\(result)")
        #expect(result.standardOutput.contains("watchdog-timeout-usec=600000\n"), "\(result)")
        #expect(result.standardOutput.contains("watchdog-interval-usec=300000\n"), "\(result)")
        #expect(result.standardOutput.hasSuffix("stopped\n"), "\(result)")

        let texts = received.map(\.text)
        #expect(texts.filter { $0 == "READY=1" }.count == 1, "\(texts)")
        #expect(texts.contains("STATUS=serving 2 domains, 1 client"), "\(texts)")
        #expect(texts.last == "STOPPING=1\nSTATUS=flushing 2 domains", "\(texts)")
        let pings = received.filter { $0.text == "WATCHDOG=1" }.map(\.at)
        #expect(pings.count >= 4, "\(texts)")
        // Pings come every 300 ms (half of WATCHDOG_USEC). Receipt times jitter on a loaded machine, so allow
        // 150 ms early (a sleep never ends early, but one report can arrive late and shorten the next gap) and keep
        // every gap below the 600 ms timeout systemd would enforce.
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
        for gap in gaps {
            #expect(gap > .milliseconds(150), "\(gaps)")
            #expect(gap < .milliseconds(600), "\(gaps)")
        }
        let median = gaps.sorted()[gaps.count / 2]
        #expect(median > .milliseconds(250) && median < .milliseconds(450), "\(gaps)")
    }

    @Test func watchdogForAnotherProcessIsOff() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-notify")
        let notify = try UnixSocket.boundDatagram(at: directory.file("notify"))
        // WATCHDOG_PID=1: systemd meant the watchdog for another process, so this one must not ping.
        let child = try Self.startNotifyFixture(
            notifySocket: directory.file("notify"), watchdogMicroseconds: 200_000, watchdogPID: "1",
            arguments: ["--stop-after-ms", "500"])
        var texts: [String] = []
        while let text = try notify.receive(timeout: .seconds(10)) {
            texts.append(text)
            if text.hasPrefix("STOPPING=1") { break }
        }
        let result = child.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("watchdog-timeout-usec=none\n"), "\(result)")
        #expect(result.standardOutput.contains("watchdog-interval-usec=none\n"), "\(result)")
        #expect(texts == ["READY=1", "STATUS=serving 2 domains, 1 client", "STOPPING=1\nSTATUS=flushing 2 domains"])
    }

    @Test func withoutNotifySocketEverySendIsANoOp() throws {
        let child = try Self.startNotifyFixture(
            notifySocket: nil, watchdogMicroseconds: 200_000, arguments: ["--stop-after-ms", "300"])
        let result = child.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("notify-enabled=false\n"), "\(result)")
        // The watchdog variables alone still describe a watchdog; the pings just go nowhere.
        #expect(result.standardOutput.contains("watchdog-interval-usec=100000\n"), "\(result)")
        #expect(result.standardOutput.hasSuffix("stopped\n"), "\(result)")
        #expect(result.standardError.isEmpty, "\(result)")
    }

    @Test func reloadingCarriesTheMonotonicClock() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-notify")
        let notify = try UnixSocket.boundDatagram(at: directory.file("notify"))
        let child = try Self.startNotifyFixture(
            notifySocket: directory.file("notify"), watchdogMicroseconds: nil,
            arguments: ["--reload", "--stop-after-ms", "200"])
        var texts: [String] = []
        while let text = try notify.receive(timeout: .seconds(10)) {
            texts.append(text)
            if text.hasPrefix("STOPPING=1") { break }
        }
        let now = Systemd.monotonicMicroseconds()
        let result = child.finish()
        #expect(result.status == 0, "\(result)")
        try #require(texts.count == 5, "\(texts)")
        #expect(texts[0] == "READY=1" && texts[1] == "STATUS=serving 2 domains, 1 client", "\(texts)")
        #expect(texts[3] == "READY=1\nSTATUS=reloaded", "\(texts)")
        // systemd 253+ requires MONOTONIC_USEC with RELOADING=1: CLOCK_MONOTONIC, shared by every process.
        let lines = texts[2].split(separator: "\n")
        #expect(lines.first == "RELOADING=1", "\(texts)")
        let stamp = lines.count == 2 && lines[1].hasPrefix("MONOTONIC_USEC=") ? UInt64(lines[1].dropFirst(15)) : nil
        #expect(stamp.map { $0 <= now && now - $0 < 10_000_000 } == true, "\(texts), now \(now)")
    }

    @Test func messageText() {
        #expect(SystemdNotifier.message("READY=1", status: nil) == "READY=1")
        #expect(SystemdNotifier.message("READY=1", status: "3 domains") == "READY=1\nSTATUS=3 domains")
        #expect(SystemdNotifier.message(nil, status: "a\nb\r\nc\0d") == "STATUS=a b c d")
    }

    @Test func watchdogIntervalIsHalfTheTimeout() {
        let notifier = SystemdNotifier(isEnabled: true, watchdogTimeout: .seconds(30))
        #expect(notifier.watchdogInterval == .seconds(15))
        #expect(SystemdNotifier(isEnabled: true, watchdogTimeout: nil).watchdogInterval == nil)
    }

    @Test func unreachableNotifySocketIsAClearError() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-notify")
        let child = try Self.startNotifyFixture(
            notifySocket: directory.file("nobody-listens"), watchdogMicroseconds: nil)
        let result = child.finish()
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardError.contains(
                "cannot send READY=1 to the service manager: sd_notify: No such file or directory"),
            "\(result)")
    }
}
