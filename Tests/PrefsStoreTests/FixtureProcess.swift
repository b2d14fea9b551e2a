// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A running `PrefsStoreFixture` process, started with `posix_spawn`, with pipes to its standard input and output.
final class FixtureProcess {
    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private var buffered: [UInt8] = []
    private var exitStatus: Int32?

    /// The fixture executable, built beside the test binary.
    static let executable: String = {
        let link =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = (link as NSString).deletingLastPathComponent
        if directory.hasSuffix(".xctest") { directory = (directory as NSString).deletingLastPathComponent }
        return directory + "/PrefsStoreFixture"
    }()

    /// util-linux's `setpriv`, which runs a program as another user.
    static let setpriv = "/usr/bin/setpriv"

    /// Starts the fixture with `arguments`; with `userID`, as that user and group (through `setpriv`).
    init(_ arguments: [String], userID: UInt32? = nil) throws {
        // Socket pairs rather than pipes: SOCK_CLOEXEC keeps them out of processes other tests spawn meanwhile.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var inputPair: [Int32] = [-1, -1]
        var outputPair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, type, 0, &inputPair) == 0, socketpair(AF_UNIX, type, 0, &outputPair) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPair[1], 1)

        var command = [Self.executable] + arguments
        if let userID {
            command = [Self.setpriv, "--reuid=\(userID)", "--regid=\(userID)", "--clear-groups"] + command
        }
        let argv = command.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, command[0], &actions, nil, argv, environment)
        close(inputPair[1])
        close(outputPair[1])
        guard status == 0 else {
            close(inputPair[0])
            close(outputPair[0])
            throw POSIXError(.init(rawValue: status) ?? .EIO)
        }
        self.pid = pid
        self.input = inputPair[0]
        self.output = outputPair[0]
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
        if input >= 0 { close(input) }
        close(output)
    }

    /// Sends one line to the process's standard input.
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            offset += count
        }
    }

    /// Closes the process's standard input.
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The next line of output, or `nil` at end of output or after `timeout`.
    func readLine(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
            guard poll(&entry, 1, milliseconds) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Reads lines until one satisfies `predicate`; returns it, or `nil` on timeout or end of output.
    func readLine(timeout: Duration = .seconds(10), where predicate: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + timeout
        while case let remaining = deadline - ContinuousClock.now, remaining > .zero {
            guard let line = readLine(timeout: remaining) else { return nil }
            if predicate(line) { return line }
        }
        return nil
    }

    /// Sends a signal.
    func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the process to end; returns its exit status, or 128 + the signal that ended it.
    @discardableResult
    func waitForExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let result = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = result
        return result
    }
}

/// Monotonic nanoseconds, the clock the fixture stamps events with.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
