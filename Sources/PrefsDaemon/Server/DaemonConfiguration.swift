// SPDX-License-Identifier: Apache-2.0
public import Logging
import PrefsCommandLine
import PrefsPOSIX
public import PrefsStore
public import PrefsWire

/// How a daemon runs: where it listens, which preferences it serves, its limits and timings.
///
/// ``DaemonSettings`` fills one from the daemon's own settings domain (`prefsd`), so that the daemon is configured
/// with `defaults write prefsd …` like any other program; tests build one directly.
public struct DaemonConfiguration: Sendable {
    /// The socket to bind when systemd did not pass one (DESIGN §2; `PREFSD_SOCKET` overrides it).
    public var socketPath: String
    /// The preferences served.
    public var storePaths: StorePaths
    /// The limits enforced and reported by `hello`.
    public var limits: WireLimits
    /// How long after a change its domain is written.
    public var flushDelay: Duration
    /// How long a socket-activated daemon waits without clients before it exits; `nil` never exits. A daemon
    /// that bound its own socket never exits when idle: nothing would start it again.
    public var idleExitDelay: Duration?
    /// The lowest level logged.
    public var logLevel: Logger.Level
    /// The name and version the daemon reports in `hello`.
    public var serverName: String
    /// How long shutdown waits for connections to finish the request they are performing before closing them.
    public var drainTimeout: Duration
    /// How long a connection may stay idle (no request in progress or waiting, no subscription, nothing received
    /// or sent) before the server closes it with `timedOut`; `nil` never.
    public var idleTimeout: Duration?
    /// How long a frame may take to arrive whole once its first byte came, before the server closes the
    /// connection with `timedOut`.
    public var frameTimeout: Duration
    /// The umask the socket is bound under (`0o177` makes it 0600), or `nil` to bind under the process's own.
    ///
    /// The umask is process-wide: `prefsd` sets it, since nothing else in the daemon creates files while it binds; a
    /// program that embeds the server among other threads (tests) leaves it `nil` and relies on the socket's 0700
    /// directory.
    public var socketCreationMask: UInt32?

    /// The daemon's name and version as `hello` reports it.
    public static let defaultServerName = "prefsd \(PrefsDaemonVersion.current)"

    /// Creates a configuration.
    /// - Parameters:
    ///   - socketPath: The socket to bind when not socket-activated.
    ///   - storePaths: The preferences served.
    ///   - limits: The limits enforced.
    ///   - flushDelay: How long after a change its domain is written.
    ///   - idleExitDelay: How long a socket-activated daemon stays without clients; `nil` for ever.
    ///   - logLevel: The lowest level logged.
    ///   - serverName: The name reported in `hello`.
    ///   - drainTimeout: How long shutdown waits for requests in progress.
    ///   - idleTimeout: How long a connection may stay idle; `nil` for ever.
    ///   - frameTimeout: How long a frame may take to arrive whole.
    ///   - socketCreationMask: The umask to bind the socket under, or `nil` for the process's.
    public init(
        socketPath: String, storePaths: StorePaths, limits: WireLimits = .default, flushDelay: Duration = .seconds(1),
        idleExitDelay: Duration? = nil, logLevel: Logger.Level = .info, serverName: String = defaultServerName,
        drainTimeout: Duration = .seconds(5), idleTimeout: Duration? = .seconds(600),
        frameTimeout: Duration = .seconds(30), socketCreationMask: UInt32? = nil
    ) {
        self.socketPath = socketPath
        self.storePaths = storePaths
        self.limits = limits
        self.flushDelay = flushDelay
        self.idleExitDelay = idleExitDelay
        self.logLevel = logLevel
        self.serverName = serverName
        self.drainTimeout = drainTimeout
        self.idleTimeout = idleTimeout
        self.frameTimeout = frameTimeout
        self.socketCreationMask = socketCreationMask
    }

    /// The socket path this process's environment names: `PREFSD_SOCKET`, else `$XDG_RUNTIME_DIR/prefsd/socket`,
    /// else `/run/user/<uid>/prefsd/socket` when that directory exists, else `/tmp/prefsd-<uid>/socket`.
    public static func defaultSocketPath() -> String {
        WireSocketPath.resolve(
            variable: POSIX.environmentVariable, userID: POSIX.userID, directoryExists: POSIX.isDirectory)
    }

    /// The store limits that match ``limits``.
    var storeLimits: StoreLimits {
        StoreLimits(maxKeyBytes: limits.maxKeyBytes, maxDomainBytes: limits.maxDomainBytes, maxDepth: limits.maxDepth)
    }
}

/// The daemon's version: the version of Preferences for Linux, which `PreferencesVersion` in PrefsCommandLine holds
/// for all three programs.
public enum PrefsDaemonVersion {
    /// The version string, `1.0.0`, as `prefsd --version` prints it (`prefsd 1.0.0`).
    public static let current = PreferencesVersion.current
}
