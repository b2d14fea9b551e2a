// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
import PrefsWire

/// Where a ``PrefsBlockingClient`` finds the daemon when no socket path is given.
public enum PrefsClientConfiguration {
    /// The socket path this process's environment names: `PREFSD_SOCKET`, else `$XDG_RUNTIME_DIR/prefsd/socket`,
    /// else `/run/user/<uid>/prefsd/socket` when that directory exists, else `/tmp/prefsd-<uid>/socket`.
    /// - Returns: The path of the daemon's socket (it may not exist).
    public static func defaultSocketPath() -> String {
        WireSocketPath.resolve(
            variable: POSIX.environmentVariable, userID: POSIX.userID, directoryExists: POSIX.isDirectory)
    }
}
