// SPDX-License-Identifier: Apache-2.0
import Glibc
import PrefsPOSIX

/// The C calls only the access layer makes: running another program (`dconf dump`, for `migrate`) and reading what
/// it prints on its two streams. Each retries `EINTR` through ``POSIX/retrying(_:)`` and reads `errno` at once.
enum SystemCalls {
    /// How a program ended.
    enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "was ended by signal \(signal)"
            }
        }
    }

    /// The first executable file named `name` in the directories of `searchPath` (`PATH`'s form), or `nil`.
    static func executable(named name: String, searchPath: String) -> String? {
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0, !POSIX.isDirectory(candidate) { return candidate }
        }
        return nil
    }

    /// This process's environment, as `NAME=value` entries.
    static func environment() -> [String] {
        var entries: [String] = []
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var cursor = start else { return entries }
        while let entry = cursor.pointee {
            entries.append(String(cString: entry))
            cursor += 1
        }
        return entries
    }

    /// What a program that ran to its end did.
    struct Run: Sendable {
        /// How it ended.
        var termination: Termination
        /// What it wrote to standard output.
        var output: [UInt8]
        /// What it wrote to standard error.
        var errorOutput: [UInt8]
    }

    /// Runs a program to its end and collects what it wrote to standard output and standard error.
    /// - Parameters:
    ///   - path: The executable.
    ///   - arguments: Its arguments, the first its name.
    ///   - environment: Its environment, as `NAME=value` entries.
    ///   - input: What it reads on standard input; at most `PIPE_BUF` bytes, written before it starts, so that
    ///     writing never waits for it.
    ///   - maxBytes: The most output accepted on each stream; a program that writes more is killed.
    /// - Returns: How it ended and what it wrote.
    /// - Throws: ``SystemCallError``: `pipe`, `fcntl`, `posix_spawn` (naming `path`), `poll`, `read` (`EFBIG` for
    ///   more than `maxBytes`), `waitpid`.
    static func run(
        _ path: String, arguments: [String], environment: [String], input: [UInt8], maxBytes: Int
    ) throws(SystemCallError) -> Run {
        precondition(input.count <= Int(PIPE_BUF), "the input must fit in a pipe without waiting")
        // Every end this process holds, closed on the way out; the child's ends are closed once it has them.
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors where descriptor >= 0 { POSIX.closeDescriptor(descriptor) } }
        func pipeEnds() throws(SystemCallError) -> (read: Int, write: Int) {
            let ends = try makePipe()
            descriptors += ends
            return (descriptors.count - 2, descriptors.count - 1)
        }
        let standardInput = try pipeEnds()
        let standardOutput = try pipeEnds()
        let standardError = try pipeEnds()
        try POSIX.writeAll(input, to: descriptors[standardInput.write], name: "the standard input of \(path)")
        POSIX.closeDescriptor(descriptors[standardInput.write])
        descriptors[standardInput.write] = -1

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The pipes close on exec; their copies as the child's standard streams do not.
        posix_spawn_file_actions_adddup2(&actions, descriptors[standardInput.read], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, descriptors[standardOutput.write], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, descriptors[standardError.write], STDERR_FILENO)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for argument in argv { free(argument) }
            for entry in envp { free(entry) }
        }
        var processID: pid_t = 0
        // posix_spawn returns the error number rather than setting errno.
        let spawned = posix_spawn(&processID, path, &actions, nil, &argv, &envp)
        if spawned != 0 { throw SystemCallError("posix_spawn", path: path, errno: spawned) }
        for child in [standardInput.read, standardOutput.write, standardError.write] {
            POSIX.closeDescriptor(descriptors[child])
            descriptors[child] = -1
        }
        var streams = [descriptors[standardOutput.read], descriptors[standardError.read]]
        var collected: [[UInt8]] = [[], []]
        do {
            try readToEnd(&streams, into: &collected, name: "the output of \(path)", maxBytes: maxBytes)
        } catch {
            kill(processID, SIGKILL)
            _ = try? wait(for: processID, path: path)
            throw error
        }
        let termination = try wait(for: processID, path: path)
        return Run(termination: termination, output: collected[0], errorOutput: collected[1])
    }

    /// Reads every stream to its end, whichever has something to read first, so that a program that fills one
    /// pipe while this process waits on the other cannot block.
    /// - Parameter streams: The descriptors; each is set to -1 (not closed) at its end.
    private static func readToEnd(
        _ streams: inout [Int32], into collected: inout [[UInt8]], name: String, maxBytes: Int
    ) throws(SystemCallError) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while streams.contains(where: { $0 >= 0 }) {
            var pollers = streams.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let (ready, pollError) = POSIX.retrying { poll(&pollers, nfds_t(pollers.count), -1) }
            if ready == -1 { throw SystemCallError("poll", path: name, errno: pollError) }
            for index in streams.indices where streams[index] >= 0 && pollers[index].revents != 0 {
                let descriptor = streams[index]
                let (count, readError) = buffer.withUnsafeMutableBytes { raw in
                    POSIX.retrying { read(descriptor, raw.baseAddress!, raw.count) }
                }
                if count == -1 { throw SystemCallError("read", path: name, errno: readError) }
                if count == 0 {
                    streams[index] = -1
                    continue
                }
                collected[index] += buffer[..<count]
                if collected[index].count > maxBytes { throw POSIX.tooLarge(name, maxBytes: maxBytes) }
            }
        }
    }

    /// A pipe whose ends close on exec (`pipe`, then `FD_CLOEXEC`: Glibc's `pipe2` is not imported).
    private static func makePipe() throws(SystemCallError) -> [Int32] {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { throw SystemCallError("pipe", errno: errno) }
        for end in ends where fcntl(end, F_SETFD, FD_CLOEXEC) != 0 {
            let code = errno
            POSIX.closeDescriptor(ends[0])
            POSIX.closeDescriptor(ends[1])
            throw SystemCallError("fcntl", errno: code)
        }
        return ends
    }

    /// Waits for a child to end (`waitpid`, retried after `EINTR`).
    private static func wait(for processID: pid_t, path: String) throws(SystemCallError) -> Termination {
        var status: Int32 = 0
        let (result, code) = POSIX.retrying { waitpid(processID, &status, 0) }
        if result == -1 { throw SystemCallError("waitpid", path: path, errno: code) }
        // WIFEXITED and WEXITSTATUS, WTERMSIG: macros Swift does not import.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }
}
