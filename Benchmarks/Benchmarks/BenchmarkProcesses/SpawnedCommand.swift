// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A command run to its end with `posix_spawn`, its output to /dev/null, as often as a benchmark needs: the argument
/// and environment vectors are built once, so that timing a run measures the command, not their copying (Foundation's
/// `Process` would add more than short commands themselves take).
public final class SpawnedCommand {
    private let path: String
    private let argv: [UnsafeMutablePointer<CChar>?]
    private let envp: [UnsafeMutablePointer<CChar>?]
    private var actions = posix_spawn_file_actions_t()

    /// Prepares a command.
    /// - Parameters:
    ///   - path: The executable.
    ///   - arguments: Its arguments.
    ///   - environment: Its whole environment.
    public init(_ path: String, _ arguments: [String], environment: [String: String]) {
        self.path = path
        argv = ([path] + arguments).map { strdup($0) } + [nil]
        envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }

    deinit {
        posix_spawn_file_actions_destroy(&actions)
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }

    /// Runs the command once and waits for it.
    /// - Returns: Its exit status.
    /// - Throws: ``BenchmarkError`` when it cannot be started.
    @discardableResult
    public func run() throws -> Int32 {
        var child: pid_t = 0
        guard posix_spawn(&child, path, &actions, nil, argv, envp) == 0 else {
            throw BenchmarkError("cannot run \(path)")
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }
}
