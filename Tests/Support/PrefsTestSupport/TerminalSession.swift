// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A real terminal for tests of full-screen programs: a `tmux` server of its own (its own socket), one window of a
/// given size running a shell command; keys go in with `send-keys`, the screen comes out with `capture-pane`.
public final class TerminalSession: Sendable {
    /// Whether `tmux` is installed (`scripts/install-deps.sh` installs it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: tmux) }

    private static let tmux = "/usr/bin/tmux"
    private let socket: String

    /// Starts `command` (run by `sh -c`) in a window of `columns` × `rows`, with `environment` added to the tmux
    /// server's (which has the test's).
    /// - Throws: When tmux cannot start.
    public init(
        _ command: String, columns: Int = 100, rows: Int = 30, environment: [String: String] = [:]
    ) throws {
        socket = "prefs-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var full = ["new-session", "-d", "-x", "\(columns)", "-y", "\(rows)"]
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { full += ["-e", "\(name)=\(value)"] }
        full.append(command)
        let result = try run(full)
        guard result.status == 0 else { throw TerminalSessionError(message: "tmux new-session: \(result.output)") }
    }

    deinit {
        _ = try? run(["kill-server"])
    }

    /// Types keys, in tmux's names (`Enter`, `Down`, `C-c`) or as literal text with `literal`.
    public func send(_ keys: String..., literal: Bool = false) throws {
        _ = try run(["send-keys"] + (literal ? ["-l"] : []) + keys)
    }

    /// The screen as text, one line per row; with `escapes`, with the colour and attribute sequences.
    public func screen(escapes: Bool = false) throws -> String {
        try run(["capture-pane", "-p"] + (escapes ? ["-e"] : [])).output
    }

    /// Changes the window's size, as a user resizing the terminal.
    public func resize(columns: Int, rows: Int) throws {
        _ = try run(["resize-window", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// A tmux format of the pane, such as `#{alternate_on}` or `#{pane_pid}`.
    public func display(_ format: String) throws -> String {
        try run(["display-message", "-p", format]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the screen satisfies `condition`, up to `timeout`.
    /// - Returns: The last screen seen, and whether it satisfied the condition.
    @discardableResult
    public func waitForScreen(
        timeout: Duration = .seconds(10), escapes: Bool = false, _ condition: (String) -> Bool
    ) throws -> (screen: String, matched: Bool) {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try screen(escapes: escapes)
            if condition(last) { return (last, true) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return (last, false)
    }

    /// Runs tmux and waits for it. posix_spawn and waitpid, not Foundation's Process: the server that new-session
    /// forks keeps the descriptors it inherits, which Process waits on; and the child starts with no signal blocked,
    /// whatever the test runner's threads block, so that the programs in the window hear SIGTERM and SIGINT.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = NSTemporaryDirectory() + "/\(socket)-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([Self.tmux, "-L", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, Self.tmux, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw TerminalSessionError(message: "cannot run tmux: errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        return ((status >> 8) & 0xFF, String(decoding: data, as: UTF8.self))
    }
}

/// tmux failed.
public struct TerminalSessionError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
