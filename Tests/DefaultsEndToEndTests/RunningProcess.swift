// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Synchronization

/// A built product running in the background, whose output can be awaited line by line (for `watch`).
final class RunningProcess: Sendable {
    private let process: Process
    private let output = Mutex<(standardOutput: String, standardError: String)>(("", ""))
    private let readers = DispatchGroup()

    /// Starts the product with the arguments and environment.
    init(_ product: BuiltProduct, _ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: product.path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let outputPipe = Pipe.closingOnExec()
        let errorPipe = Pipe.closingOnExec()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try process.run()
        // Threads of their own, not Dispatch's: the shared pool is small, and the test runner's other work would
        // delay the reads by up to seconds.
        for (pipe, isError) in [(outputPipe, false), (errorPipe, true)] {
            let handle = pipe.fileHandleForReading
            readers.enter()
            let reader = Thread { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    let text = String(decoding: data, as: UTF8.self)
                    output.withLock { if isError { $0.standardError += text } else { $0.standardOutput += text } }
                }
                readers.leave()
            }
            reader.start()
        }
    }

    var standardOutput: String { output.withLock { $0.standardOutput } }
    var standardError: String { output.withLock { $0.standardError } }

    /// Waits until standard output or error satisfies `condition`, up to `timeout` seconds.
    /// - Returns: Whether it did.
    @discardableResult
    func waitFor(
        timeout: Double = 10, _ condition: (_ standardOutput: String, _ standardError: String) -> Bool
    ) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            let (out, err) = output.withLock { ($0.standardOutput, $0.standardError) }
            if condition(out, err) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// Sends a signal and waits for the process and its output to end.
    /// - Returns: The exit status (or the signal number, when a signal ended it).
    func stop(signal: Int32 = SIGINT) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        readers.wait()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
