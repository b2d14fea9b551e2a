import PrefsWire

/// Where a ``PrefsBlockingClient`` finds the daemon when no socket path is given.
public enum PrefsClientConfiguration {
    /// The socket path this process's environment names: `PREFSD_SOCKET`, else `$XDG_RUNTIME_DIR/prefsd/socket`,
    /// else `/run/user/<uid>/prefsd/socket` when that directory exists, else `/tmp/prefsd-<uid>/socket`.
    /// - Returns: The path of the daemon's socket (it may not exist).
    public static func defaultSocketPath() -> String {
        var environment: [String: String] = [:]
        for name in [WireSocketPath.environmentVariable, "XDG_RUNTIME_DIR"] {
            if let value = ClientSystem.environment(name) { environment[name] = value }
        }
        return WireSocketPath.resolve(
            environment: environment, userID: ClientSystem.userID, directoryExists: ClientSystem.directoryExists)
    }
}
