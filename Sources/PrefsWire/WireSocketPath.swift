// SPDX-License-Identifier: Apache-2.0
/// Where the daemon's socket is, by the rule of `docs/PROTOCOL.md` (Connecting) and DESIGN §2.
///
/// `$PREFSD_SOCKET` when set; else `$XDG_RUNTIME_DIR/prefsd/socket`; without `XDG_RUNTIME_DIR`,
/// `/run/user/<uid>/prefsd/socket` when `/run/user/<uid>` exists, else `/tmp/prefsd-<uid>/socket`. The server and
/// every client use this one function, so they always agree.
public enum WireSocketPath {
    /// The variable that overrides the socket path.
    public static let environmentVariable = "PREFSD_SOCKET"

    /// The socket path for a user.
    /// - Parameters:
    ///   - environment: The process environment (`PREFSD_SOCKET`, `XDG_RUNTIME_DIR`); empty values count as unset.
    ///   - userID: The user's uid, for the fallbacks.
    ///   - directoryExists: Whether a directory exists; asked about `/run/user/<uid>` only.
    /// - Returns: An absolute path, unless `PREFSD_SOCKET` names a relative one.
    public static func resolve(
        environment: [String: String], userID: UInt32, directoryExists: (String) -> Bool
    ) -> String {
        resolve(variable: { environment[$0] }, userID: userID, directoryExists: directoryExists)
    }

    /// The socket path for a user, with the variables read through a function (a process's `getenv`).
    /// - Parameters:
    ///   - variable: The value of an environment variable (`PREFSD_SOCKET`, `XDG_RUNTIME_DIR`), or `nil` when unset;
    ///     empty values count as unset.
    ///   - userID: The user's uid, for the fallbacks.
    ///   - directoryExists: Whether a directory exists; asked about `/run/user/<uid>` only.
    /// - Returns: An absolute path, unless `PREFSD_SOCKET` names a relative one.
    package static func resolve(
        variable: (String) -> String?, userID: UInt32, directoryExists: (String) -> Bool
    ) -> String {
        if let explicit = variable(environmentVariable), !explicit.isEmpty { return explicit }
        if let runtime = variable("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            return trimmingTrailingSlashes(runtime) + "/prefsd/socket"
        }
        let runUser = "/run/user/\(userID)"
        if directoryExists(runUser) { return runUser + "/prefsd/socket" }
        return "/tmp/prefsd-\(userID)/socket"
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.last == "/" { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
