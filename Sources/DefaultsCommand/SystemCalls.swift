// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C calls only the `defaults` command makes: the working directory, the host name, a semaphore, its own path,
/// running `defaults-fleet`, the signals that end `watch`, `exit`. Reading
/// and writing files and streams, and the environment, are `PrefsPOSIX`'s; their failures are its
/// `SystemCallError`, whose `message` is the command's wording (`cannot open /x: No such file or directory`).
enum SystemCalls {
    /// Reads a whole file (a device or pipe to its end), up to `maxBytes`.
    /// - Throws: `SystemCallError` naming the path when it cannot be opened or read, or is a directory; `EFBIG` when
    ///   it holds more than `maxBytes`.
    static func readFile(_ path: String, maxBytes: Int) throws(SystemCallError) -> [UInt8] {
        try POSIX.readFile(path, maxBytes: maxBytes)
    }

    /// An environment variable of this process.
    static func environmentVariable(_ name: String) -> String? {
        POSIX.environmentVariable(name)
    }

    /// The absolute path of the working directory, or `nil` when it cannot be determined (it was removed).
    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The absolute path of `path` with every symbolic link, `.` and `..` resolved, or `nil` when it does not exist.
    static func canonicalPath(_ path: String) -> String? {
        try? POSIX.canonicalPath(path)
    }

    /// This machine's host name, as `hostname` prints it.
    static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A POSIX semaphore, so that the synchronous `main` can wait for the one command that runs asynchronously
    /// (`watch`) without starting Swift concurrency for every other command.
    final class Semaphore: @unchecked Sendable {
        // sem_t is safe to use from any thread; the pointer is created once and freed in deinit.
        private let semaphore: UnsafeMutablePointer<sem_t>

        init() {
            semaphore = .allocate(capacity: 1)
            sem_init(semaphore, 0, 0)
        }

        deinit {
            sem_destroy(semaphore)
            semaphore.deallocate()
        }

        /// Wakes one waiter.
        func signal() {
            sem_post(semaphore)
        }

        /// Waits until ``signal()`` is called, retrying when a signal handler interrupts the wait.
        func wait() {
            while sem_wait(semaphore) != 0 && errno == EINTR {}
        }
    }

    /// The absolute path of this process's executable, with links resolved (`/proc/self/exe`).
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `path` names a file this process may execute.
    static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// Replaces this process with the executable at `path`, run with `arguments` (the first is its name) and this
    /// process's environment.
    /// - Returns: Why it failed: `execv` returns only then.
    static func execute(_ path: String, arguments: [String]) -> SystemCallError {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        execv(path, &argv)
        let error = errno
        return SystemCallError("execv", path: path, errno: error)
    }

    /// SIGINT and SIGTERM, blocked so that `defaults watch` takes them with `sigtimedwait` between its rounds instead
    /// of being killed by them.
    struct StopSignals: Sendable {
        private static func set() -> sigset_t {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGINT)
            sigaddset(&signals, SIGTERM)
            return signals
        }

        /// Blocks the signals in the calling thread, and so in every thread it starts afterwards.
        static func block() -> StopSignals {
            var signals = set()
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            return StopSignals()
        }

        /// Waits up to `milliseconds` for one of the signals.
        /// - Returns: Whether one arrived (a wait that a handler interrupts returns `false`, as a timeout does).
        func wait(milliseconds: Int) -> Bool {
            var signals = Self.set()
            var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
            return sigtimedwait(&signals, nil, &timeout) > 0
        }

        /// Unblocks the signals in the calling thread.
        func unblock() {
            var signals = Self.set()
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        }
    }

    /// Ends the process with a status, running `atexit` handlers.
    static func exitProcess(_ status: Int32) -> Never {
        exit(status)
    }
}
