// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The real dconf (Debian's dconf-cli and dconf-service) writing a user database in a private home, for the tests of
/// `defaults migrate -from dconf`: each `dconf write` goes through a D-Bus session of its own (`dbus-run-session`) to
/// dconf-service, which writes `$XDG_CONFIG_HOME/dconf/user`, as on a desktop.
public enum RealDconf {
    static let dconf = "/usr/bin/dconf"
    static let dbusRunSession = "/usr/bin/dbus-run-session"

    /// Whether dconf and a D-Bus session can be run here; the tests skip with ``missing`` otherwise.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: dconf)
            && FileManager.default.isExecutableFile(atPath: dbusRunSession)
    }

    /// Why the tests that need dconf are skipped.
    public static let missing =
        "skipped: dconf or dbus-run-session is not installed (apt-get install dconf-cli dconf-service dbus-daemon)"

    /// What a session printed and how it ended.
    public struct Result: Sendable, CustomStringConvertible {
        public let status: Int32
        public let output: String
        public var description: String { "exit \(status)\n\(output)" }
    }

    /// Writes keys with `dconf write`, in order, in one D-Bus session.
    /// - Parameters:
    ///   - entries: Each key's full dconf path (`/org/example/app/key`) and its value in GVariant text.
    ///   - environment: `HOME`, `XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` of the private home, added to the test's.
    ///   - log: A file for what the session prints.
    /// - Returns: The session's result; every write succeeded when its status is 0.
    ///
    /// The session is started with `posix_spawn` and an empty signal mask rather than with `Process`, whose children
    /// inherit a mask that blocks every signal: `dbus-run-session` ends its bus daemon with SIGTERM, which would
    /// then never arrive, and the daemon (holding the output pipe) would outlive the session. Its output goes to a
    /// file for the same reason.
    public static func write(
        _ entries: [(key: String, value: String)], environment: [String: String], log: String
    ) throws -> Result {
        // The keys and values travel as arguments, never through the shell's parsing.
        let script = "while [ $# -gt 0 ]; do dconf write \"$1\" \"$2\" || exit 1; shift 2; done"
        var arguments = [dbusRunSession, "--", "sh", "-c", script, "sh"]
        for entry in entries { arguments += [entry.key, entry.value] }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv { free(argument) }
            for entry in envp { free(entry) }
        }
        var processID: pid_t = 0
        let spawned = posix_spawn(&processID, dbusRunSession, &actions, &attributes, &argv, &envp)
        guard spawned == 0 else {
            throw CorpusError("posix_spawn \(dbusRunSession): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(processID, &status, 0) == -1 {
            guard errno == EINTR else { throw CorpusError("waitpid: \(String(cString: strerror(errno)))") }
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Result(status: status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output: output)
    }
}
