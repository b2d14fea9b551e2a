// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A failed system call: which call, on which path, and the `errno` it set.
///
/// The one error type of `PrefsPOSIX`. ``description`` is the form logs and the store's errors show
/// (`rename(/path): No space left on device`); ``message`` is the form the command-line tools print
/// (`cannot replace /path: No space left on device`).
package struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, such as `open` or `rename`.
    package var call: String
    /// The path the call worked on (for a descriptor, the name of what it reads or writes), when there is one.
    package var path: String?
    /// The `errno` value the call set.
    package var errno: Int32
    /// Why it failed: the C library's text for ``errno`` (`strerror`) unless the caller words it better.
    package var reason: String

    /// Creates the error for `call` failing with `errno`.
    /// - Parameters:
    ///   - call: The call that failed.
    ///   - path: The path it worked on, if any.
    ///   - errno: The `errno` value it set.
    ///   - reason: Why it failed; by default the C library's text for `errno`.
    package init(_ call: String, path: String? = nil, errno: Int32, reason: String? = nil) {
        self.call = call
        self.path = path
        self.errno = errno
        self.reason = reason ?? POSIX.errorText(errno)
    }

    /// Whether this is ``POSIX/tooLarge(_:maxBytes:)``: an input larger than its reader accepts.
    package var isTooLarge: Bool { call == "read" && errno == EFBIG }

    /// Whether the call failed because the path names nothing (`ENOENT`).
    package var isNotFound: Bool { errno == ENOENT }

    /// `rename(/path): No space left on device`, or `pthread_create: Resource temporarily unavailable`.
    package var description: String {
        guard let path else { return "\(call): \(reason)" }
        return "\(call)(\(path)): \(reason)"
    }

    /// The failure as `defaults` and `plutil` word it: `cannot open /x: No such file or directory`,
    /// `cannot create a temporary file in /d: Permission denied` (for the temp file of
    /// ``POSIX/writeFileAtomically(_:to:newFileMode:keepsExistingMode:directorySyncIsRequired:)``),
    /// `cannot replace /x: …`, `/x is a directory`.
    package var message: String {
        let subject = path ?? ""
        let action: String
        switch call {
        case "open" where errno == EISDIR:
            return "\(subject) is a directory"
        case "open" where TemporaryFileName.owner(ofPath: subject)?.pid == POSIX.processID:
            // Only this process's temp files carry its pid: this is the temp file of an atomic write.
            action = "create a temporary file in \(TemporaryFileName.directory(ofPath: subject))"
        case "fchmod": action = "set the mode of \(subject)"
        case "fsync": action = "sync \(subject)"
        case "rename": action = "replace \(subject)"
        default: action = path.map { "\(call) \($0)" } ?? call
        }
        return "cannot \(action): \(reason)"
    }
}
