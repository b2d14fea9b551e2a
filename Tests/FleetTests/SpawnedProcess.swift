// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A program run as a real child process (etcd, prefsd), its output in files so that it never blocks on a pipe;
/// killed when released.
final class SpawnedProcess: @unchecked Sendable {
    let pid: Int32
    let outputPath: String
    let errorPath: String
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`; `environment` is added to the test's own (without systemd's variables).
    init(_ executable: String, _ arguments: [String], environment: [String: String], logDirectory: String) throws {
        let tag = UUID().uuidString
        outputPath = logDirectory + "/stdout-\(tag)"
        errorPath = logDirectory + "/stderr-\(tag)"
        var inherited = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM"] {
            inherited[name] = nil
        }
        let merged = inherited.merging(environment) { _, new in new }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Descriptors other tests of this process hold open (sockets among them) must not leak into the child.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 && fcntl(descriptor, F_GETFD) != -1 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
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

    deinit { kill() }

    /// Whether the process still runs (it is reaped once it has exited).
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result == 0 }
        exitStatus = status
        return false
    }

    /// Kills the process at once (SIGKILL) and reaps it.
    func kill() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        if waitpid(pid, &status, 0) == pid { exitStatus = status }
    }

    /// Stops the process with SIGTERM and waits for it (SIGKILL after 20 s).
    func terminate() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(20)
        while isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        kill()
    }

    var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
}

/// Waits until `condition` holds, checking every 20 ms; fails with `what` after `timeout`.
func waitUntil(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(20), _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return }
        usleep(20_000)
    }
    if try condition() { return }
    throw TestFailure("timed out after \(timeout) waiting for \(what())")
}

/// Loopback TCP ports nobody listens on now: each bound to port 0 and released, all held until all are chosen so
/// that they differ.
func freeLoopbackPorts(_ count: Int) throws -> [Int] {
    var descriptors: [Int32] = []
    defer { for descriptor in descriptors { close(descriptor) } }
    var ports: [Int] = []
    for _ in 0..<count {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        descriptors.append(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestFailure("bind: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        ports.append(Int(UInt16(bigEndian: address.sin_port)))
    }
    return ports
}
