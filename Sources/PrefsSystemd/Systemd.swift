// SPDX-License-Identifier: Apache-2.0
internal import CPrefsSystemd
import PrefsPOSIX
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every call into libsystemd and libc that this module makes (the environment, `errno` texts and writing a whole
/// buffer are `PrefsPOSIX`'s).
///
/// Keeping them in one place keeps C types out of the rest of the module: each function here takes and returns
/// Swift values, retries `EINTR` where a call can be interrupted, and reads `errno` right after the call that set
/// it (before anything else can overwrite it). Failures are thrown as `PrefsPOSIX`'s `SystemCallError`.
enum Systemd {
    typealias SystemCallError = PrefsPOSIX.SystemCallError

    // MARK: sd_notify

    /// Sends `state` (newline-separated `VARIABLE=value` assignments) to the service manager.
    ///
    /// - Returns: `false` when `NOTIFY_SOCKET` is unset (nothing was sent), `true` when the datagram was sent.
    static func notify(_ state: String) throws(SystemCallError) -> Bool {
        let result = state.withCString { text in
            var result: Int32
            // libsystemd sends with a blocking sendmsg(), which a signal can interrupt before anything is queued.
            repeat { result = sd_notify(0, text) } while result == -EINTR
            return result
        }
        if result < 0 { throw SystemCallError("sd_notify", errno: -result) }
        return result > 0
    }

    /// The watchdog timeout systemd asked for (`WATCHDOG_USEC`), in microseconds, or `nil` when the watchdog is off
    /// for this process (unset, or `WATCHDOG_PID` names another process).
    static func watchdogTimeoutMicroseconds() throws(SystemCallError) -> UInt64? {
        var microseconds: UInt64 = 0
        // The variables stay in the environment so that every notifier reads the same answer; a child that
        // inherits them is not fooled, because WATCHDOG_PID names this process.
        let result = sd_watchdog_enabled(0, &microseconds)
        if result < 0 { throw SystemCallError("sd_watchdog_enabled", errno: -result) }
        return result > 0 ? microseconds : nil
    }

    /// `CLOCK_MONOTONIC` in microseconds, the clock systemd expects in `MONOTONIC_USEC=`.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }

    // MARK: Socket activation

    /// The descriptors systemd passed (`LISTEN_FDS`, from `SD_LISTEN_FDS_START` on) with their names
    /// (`LISTEN_FDNAMES`, `"unknown"` when unnamed), or an empty array when this process was not socket-activated.
    ///
    /// The activation variables are removed from the environment so that a child process cannot mistake the
    /// descriptors for its own; libsystemd also marks each descriptor close-on-exec.
    static func listenDescriptors() throws(SystemCallError) -> [(descriptor: Int32, name: String)] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(1, &names)
        defer {
            if let names {
                var index = 0
                while let name = names[index] {
                    free(name)
                    index += 1
                }
                free(names)
            }
        }
        if count < 0 { throw SystemCallError("sd_listen_fds_with_names", errno: -count) }
        var result: [(descriptor: Int32, name: String)] = []
        for index in 0..<Int(count) {
            let name = names?[index].map { String(cString: $0) } ?? "unknown"
            result.append((SD_LISTEN_FDS_START + Int32(index), name))
        }
        return result
    }

    /// Whether `descriptor` is an `AF_UNIX` `SOCK_STREAM` socket in the listening state.
    static func isListeningUnixStreamSocket(_ descriptor: Int32) throws(SystemCallError) -> Bool {
        let result = sd_is_socket_unix(descriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0)
        if result < 0 { throw SystemCallError("sd_is_socket_unix", errno: -result) }
        return result > 0
    }

    /// The address a Unix socket is bound to: a path, `@name` for the abstract namespace, or `nil` when unbound
    /// (or not a Unix socket).
    static func unixSocketAddress(_ descriptor: Int32) throws(SystemCallError) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        if result != 0 { throw SystemCallError("getsockname", errno: errno) }
        guard address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let pathLength = min(Int(length) - pathOffset, MemoryLayout.size(ofValue: address.sun_path))
        guard pathLength > 0 else { return nil }
        let bytes = withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(pathLength)) }
        if bytes[0] == 0 {
            // Abstract namespace: the name is every byte after the NUL, as `ss -x` shows it.
            return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self)
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    // MARK: Journal

    /// Sends one structured entry to journald; each field is `NAME=value` (the value may hold any bytes).
    static func journalSend(_ fields: [[UInt8]]) throws(SystemCallError) {
        // One buffer holds every field, so a single pointer stays valid while the iovecs point into it.
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            ranges.append(storage.count..<(storage.count + field.count))
            storage.append(contentsOf: field)
        }
        let result = storage.withUnsafeMutableBytes { buffer in
            let vectors = ranges.map { range in
                iovec(iov_base: buffer.baseAddress.map { $0 + range.lowerBound }, iov_len: range.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        if result < 0 { throw SystemCallError("sd_journal_sendv", errno: -result) }
    }

    // MARK: Standard error

    /// The device and inode of standard error, for comparing with `JOURNAL_STREAM`.
    static func standardErrorIdentity() -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// Serialises writes to standard error so that lines logged from several threads never interleave.
    private static let standardErrorLock = Mutex(())

    /// Writes all of `bytes` to standard error, resuming after partial writes and interrupted calls, and waiting
    /// for room when someone made standard error non-blocking.
    ///
    /// A failure is dropped: there is nowhere left to report that logging itself failed.
    static func writeStandardError(_ bytes: [UInt8]) {
        standardErrorLock.withLock { _ in
            try? POSIX.writeAll(bytes, to: POSIX.standardError, name: "standard error")
        }
    }

    /// The local time as `2025-01-31T14:05:09.123+0100` (ISO 8601 with milliseconds and the UTC offset).
    static func localTimestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return "\(now.tv_sec)" }
        func format(_ pattern: String) -> String {
            var buffer = [CChar](repeating: 0, count: 64)
            let count = strftime(&buffer, buffer.count, pattern, &local)
            return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let milliseconds = String(Int(now.tv_nsec) / 1_000_000)
        let fraction = String(repeating: "0", count: 3 - milliseconds.count) + milliseconds
        return format("%Y-%m-%dT%H:%M:%S") + "." + fraction + format("%z")
    }
}
