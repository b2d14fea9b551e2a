// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences

/// Cross-process change latency in embedded mode: another process (this executable, started again as a peer) sets a
/// key and synchronizes; this process's observation of the key fires through inotify.
enum LatencyPeer {
    static let environmentVariable = "PREFERENCES_BENCHMARK_PEER"

    /// In the peer process: for each line `set <n>` on standard input, prints the monotonic time in nanoseconds,
    /// then sets `latency` to n through `Preferences` and synchronizes. Returns at end of input.
    static func runIfPeer() {
        guard let directory = ProcessInfo.processInfo.environment[environmentVariable] else { return }
        let prefs = try! Preferences(
            domain: "com.example.Latency", storage: .directories(preferences: directory, system: nil, domains: nil))
        while let line = readLine() {
            guard line.hasPrefix("set "), let value = Int(line.dropFirst(4)) else { continue }
            FileHandle.standardOutput.write(Data("\(monotonicNanoseconds())\n".utf8))
            prefs.set(value, forKey: "latency")
            try! prefs.synchronizeThrowing()
        }
        exit(0)
    }

    /// Monotonic nanoseconds, a clock both processes share.
    static func monotonicNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    /// The observing side: the peer process and the times this process saw each value.
    final class Observer: @unchecked Sendable {
        private let prefs: Preferences
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private let seen = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var arrivals: [Int: Int] = [:]
        private var observation: PreferencesObservation?
        private var next = 0

        init(directory: String) throws {
            prefs = try Preferences(
                domain: "com.example.Latency", storage: .directories(preferences: directory, system: nil, domains: nil))
            observation = prefs.observe(forKey: "latency") { [weak self] value in
                guard let self, case .integer(let integer)? = value, let number = integer.int64Value else { return }
                let now = LatencyPeer.monotonicNanoseconds()
                lock.withLock { arrivals[Int(number)] = now }
                seen.signal()
            }
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.environment = ProcessInfo.processInfo.environment.merging([
                LatencyPeer.environmentVariable: directory
            ]) { _, new in new }
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        /// Has the peer change the key once; returns the nanoseconds from its `set` to this process's handler.
        func measureOnce() -> Int {
            next += 1
            input.fileHandleForWriting.write(Data("set \(next)\n".utf8))
            let start = readLine()
            while true {
                _ = seen.wait(timeout: .now() + 10)
                if let arrival = lock.withLock({ arrivals.removeValue(forKey: next) }) { return arrival - start }
            }
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            observation?.cancel()
        }

        private var buffered: [UInt8] = []

        private func readLine() -> Int {
            while true {
                if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffered[..<newline], as: UTF8.self)
                    buffered.removeSubrange(...newline)
                    return Int(line) ?? 0
                }
                buffered.append(contentsOf: output.fileHandleForReading.availableData)
            }
        }
    }
}
