// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

/// A process the test starts and keeps talking to (through sockets) before it waits for it.
///
/// `BuiltProduct.run` waits at once; these tests must receive notifications and connect while the child runs.
final class ChildProcess {
    /// The variables systemd sets for a service; removed from what the child inherits, so a test run that is itself
    /// under systemd (a CI service, say) cannot leak its own into the fixture.
    static let systemdVariables = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
        "JOURNAL_STREAM",
    ]

    /// The fixture executable built with the tests.
    static let fixture = BuiltProduct("PrefsSystemdFixture").path

    private let process = Process()
    private let output = Pipe.closingOnExec()
    private let errorOutput = Pipe.closingOnExec()

    /// Starts `executable` with `arguments`; `environment` is added to the test's environment, less systemd's
    /// variables.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        for name in Self.systemdVariables { inherited[name] = nil }
        process.environment = inherited.merging(environment) { _, new in new }
        process.standardOutput = output
        process.standardError = errorOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Sends SIGTERM, as systemd does to stop a service.
    func terminate() { process.terminate() }

    /// What a finished child printed and returned.
    struct Result: CustomStringConvertible {
        let status: Int32
        let standardOutput: String
        let standardError: String

        var description: String { "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }
    }

    /// Waits for the child to exit (killing it after `timeout`) and returns what it printed.
    ///
    /// The fixtures print a few lines, far less than a pipe holds, so reading after the exit cannot deadlock.
    func finish(timeout: Duration = .seconds(20)) -> Result {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let standardOutput = output.fileHandleForReading.readDataToEndOfFile()
        let standardError = errorOutput.fileHandleForReading.readDataToEndOfFile()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: standardOutput, as: UTF8.self),
            standardError: String(decoding: standardError, as: UTF8.self))
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
