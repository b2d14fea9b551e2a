import PrefsWire

/// How a ``PrefsClient`` connects: the socket, its name for the daemon's log, and timeouts.
public struct PrefsClientConfiguration: Sendable {
    /// The daemon's socket.
    public var socketPath: String
    /// The client's name and version, sent in `hello` for the daemon's log.
    public var clientName: String
    /// How long a connection attempt (connect and `hello`) may take.
    public var connectTimeout: Duration
    /// How long a request may wait for its reply; `nil` waits as long as the connection lives.
    public var requestTimeout: Duration?
    /// Whether a lost connection is re-established by the next request (and subscriptions are renewed with a
    /// `resync`). Without it, the client fails with ``PrefsClientError/Code/connectionLost`` once disconnected.
    public var reconnects: Bool

    /// Creates a configuration.
    /// - Parameters:
    ///   - socketPath: The daemon's socket; by default the one this process's environment names.
    ///   - clientName: The name sent in `hello`.
    ///   - connectTimeout: How long connecting may take.
    ///   - requestTimeout: How long a reply may take; `nil` for no limit.
    ///   - reconnects: Whether to reconnect automatically.
    public init(
        socketPath: String = PrefsClientConfiguration.defaultSocketPath(), clientName: String = "PrefsClient",
        connectTimeout: Duration = .seconds(2), requestTimeout: Duration? = .seconds(60), reconnects: Bool = true
    ) {
        self.socketPath = socketPath
        self.clientName = clientName
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.reconnects = reconnects
    }

    /// The socket path this process's environment names: `PREFSD_SOCKET`, else `$XDG_RUNTIME_DIR/prefsd/socket`,
    /// else `/run/user/<uid>/prefsd/socket` when that directory exists, else `/tmp/prefsd-<uid>/socket`.
    public static func defaultSocketPath() -> String {
        var environment: [String: String] = [:]
        for name in [WireSocketPath.environmentVariable, "XDG_RUNTIME_DIR"] {
            if let value = ClientSystem.environment(name) { environment[name] = value }
        }
        return WireSocketPath.resolve(
            environment: environment, userID: ClientSystem.userID, directoryExists: ClientSystem.directoryExists)
    }
}
