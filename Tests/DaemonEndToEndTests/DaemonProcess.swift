// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The built `prefsd`, or another program, run as a real process with the test's preferences in a temporary
/// directory; output goes to files so that a chatty process never blocks on a full pipe.
///
/// Started with `posix_spawn` rather than Foundation's `Process`: Foundation's child monitor can block in `wait4`
/// on a long-running child and so delay reaping the short-lived ones `runProgram` starts meanwhile.
final class DaemonProcess {
    static let prefsd = BuiltProduct("prefsd").path
    /// The repository, for `docs/examples/client.py` and `Domains/`.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The variables systemd sets; never inherited from the test's own environment.
    static let systemdVariables = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
        "JOURNAL_STREAM",
    ]

    let pid: Int32
    let outputPath: String
    let errorPath: String
    private var exitStatus: Int32?

    /// Starts `executable` (by default prefsd) with `arguments` and the environment of `home`.
    init(
        _ home: DaemonHome, executable: String = DaemonProcess.prefsd, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        outputPath = home.directory.file("stdout-\(UUID().uuidString)")
        errorPath = home.directory.file("stderr-\(UUID().uuidString)")
        var inherited = ProcessInfo.processInfo.environment
        for name in Self.systemdVariables { inherited[name] = nil }
        let merged = inherited.merging(home.environment) { _, new in new }.merging(environment) { _, new in new }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))") }
        pid = child
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = finish(timeout: .seconds(5))
        }
    }

    /// Whether the process is still running (it is reaped once it has exited).
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result == 0 }
        exitStatus = Self.decode(status)
        return false
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// The pid of prefsd itself: this process, or the child `systemd-socket-activate` started it as.
    var daemonPID: Int32 {
        func command(_ pid: Int32) -> String? {
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
        }
        if command(pid) == "prefsd" { return pid }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let child = Int32(entry), command(child) == "prefsd",
                let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == pid { return child }
        }
        return pid
    }

    /// Sends a signal to prefsd itself (not to an activator that started it).
    func signalDaemon(_ number: Int32) { kill(daemonPID, number) }

    /// Stops prefsd with SIGSTOP and returns once every one of its threads is stopped: `kill` returns before the
    /// threads running on other cores have taken the signal, and a request sent in between would still be answered.
    func stopDaemon(timeout: Duration = .seconds(10)) throws {
        let target = daemonPID
        kill(target, SIGSTOP)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(target)/task")) ?? []
            let states = tasks.compactMap { task -> Character? in
                guard let stat = try? String(contentsOfFile: "/proc/\(target)/task/\(task)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return nil }
                return stat[stat.index(after: close)...].first { $0 != " " }
            }
            if !states.isEmpty, states.allSatisfy({ $0 == "T" || $0 == "t" }) { return }
            usleep(1_000)
        }
        throw TestFailure("prefsd (pid \(target)) did not stop within \(timeout)")
    }

    /// Waits until the socket answers.
    func waitUntilServing(_ home: DaemonHome, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let connection = try? WireTestConnection(path: home.socketPath) {
                _ = connection
                return
            }
            guard isRunning else { throw TestFailure("prefsd exited: \(standardError)") }
            usleep(10_000)
        }
        throw TestFailure("prefsd did not serve \(home.socketPath) within \(timeout): \(standardError)")
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the exit (SIGKILL after `timeout`) and returns the status (128 + the signal when killed).
    @discardableResult
    func finish(timeout: Duration = .seconds(20)) -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            if waitpid(pid, &status, 0) == pid { exitStatus = Self.decode(status) }
        }
        return exitStatus ?? -1
    }

    var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// The daemon's resident memory, in KiB (`VmRSS`).
    var residentKiB: Int { statusField("VmRSS") }

    /// The daemon's peak resident memory since it started, in KiB (`VmHWM`).
    var peakResidentKiB: Int { statusField("VmHWM") }

    private func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(daemonPID)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// The processor time the daemon used so far (user and system), in seconds.
    var processorSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(daemonPID)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// How many descriptors the daemon has open.
    var openDescriptorCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemonPID)/fd").count) ?? 0
    }

    /// Waits until the daemon's standard error contains `text`; fails after `timeout`.
    func waitForLog(_ text: String, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if standardError.contains(text) { return }
            guard isRunning else { throw TestFailure("prefsd exited before logging \(text): \(standardError)") }
            usleep(10_000)
        }
        throw TestFailure("prefsd did not log \(text) within \(timeout): \(standardError)")
    }
}

/// A user's preferences and socket in a temporary directory, and the environment that points prefsd at them.
final class DaemonHome {
    let directory: TemporaryDirectory
    let socketPath: String

    init(settings: PlistDictionary = [:]) throws {
        directory = try TemporaryDirectory(prefix: "prefsd-e2e")
        socketPath = directory.file("run/socket")
        try FileManager.default.createDirectory(atPath: preferences, withIntermediateDirectories: true)
        if !settings.isEmpty {
            let bytes = try PlistSerialization.encode(.dictionary(settings), format: .xml)
            try Data(bytes).write(to: URL(fileURLWithPath: preferences + "/prefsd.plist"))
        }
    }

    var preferences: String { directory.file("prefs") }

    var environment: [String: String] {
        [
            "PREFERENCES_HOME": preferences, "PREFERENCES_SYSTEM_DIR": directory.file("system"),
            "PREFERENCES_DOMAINS_DIR": DaemonProcess.repository + "/Domains", "PREFSD_SOCKET": socketPath,
        ]
    }

    /// The stored values of a domain file, or `nil` when it does not exist.
    func storedValues(_ domain: String) throws -> PlistDictionary? {
        let path = preferences + "/\(domain).plist"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try PlistSerialization.decode(Array(data)).dictionaryValue
    }
}

/// A datagram socket bound where `NOTIFY_SOCKET` points: what systemd's service manager receives.
final class NotifyListener {
    let path: String
    let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw TestFailure("bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    /// The next datagram, or `nil` after `timeout`.
    func receive(timeout: Duration) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Datagrams until one contains `text`; fails after `timeout`.
    func waitFor(_ text: String, timeout: Duration = .seconds(10)) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var received: [String] = []
        while ContinuousClock.now < deadline {
            guard let message = receive(timeout: .milliseconds(100)) else { continue }
            received.append(message)
            if message.contains(text) { return received }
        }
        throw TestFailure("no \(text) within \(timeout); received \(received)")
    }
}

/// Runs a program to completion and returns its status and output.
func runProgram(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 30
) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var inherited = ProcessInfo.processInfo.environment
    for name in DaemonProcess.systemdVariables { inherited[name] = nil }
    process.environment = inherited.merging(environment) { _, new in new }
    let output = Pipe.closingOnExec()
    let error = Pipe.closingOnExec()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // A client that waits for a daemon that is not there must not hang the suite.
    let watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    nonisolated(unsafe) var errorData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errorData = error.fileHandleForReading.readDataToEndOfFile() }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outputData, as: UTF8.self),
        String(decoding: errorData, as: UTF8.self)
    )
}
