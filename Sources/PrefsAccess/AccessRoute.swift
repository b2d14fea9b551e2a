// SPDX-License-Identifier: Apache-2.0
import PrefsClient
package import PrefsStore

/// The route a ``DomainAccess`` takes to the preferences.
package enum AccessRoute: Sendable, Hashable, CustomStringConvertible {
    /// Requests to `prefsd` on this socket.
    case daemon(socketPath: String)
    /// The domain files in this Preferences directory, read and written in this process.
    case files(directory: String)

    /// `prefsd at /run/user/1000/prefsd/socket`, or `files in /home/ada/.config/preferences`.
    package var description: String {
        switch self {
        case .daemon(let socketPath): "prefsd at \(socketPath)"
        case .files(let directory): "files in \(directory)"
        }
    }

    /// The daemon's socket as this process's environment names it: `PREFSD_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/prefsd/socket`.
    package static var defaultSocketPath: String { PrefsClientConfiguration.defaultSocketPath() }

    /// Opens the user's preferences by the route a policy chooses: the one decision `defaults` and the library share.
    ///
    /// - ``DaemonPolicy/automatic``: `prefsd` when it answers on `socketPath` now, else the files.
    /// - ``DaemonPolicy/always``: `prefsd`; when it does not answer, this throws (a command) or the access waits for
    ///   it (`connectsNow: false`, the library: its requests fail with `.unavailable` until it answers).
    /// - ``DaemonPolicy/never``: the files.
    /// - Parameters:
    ///   - paths: The user's directories (the daemon serves these; the files route opens them).
    ///   - policy: The program's choice; `PREFERENCES_DAEMON` overrides ``DaemonPolicy/automatic`` only.
    ///   - socketPath: The daemon's socket; by default the one the environment names.
    ///   - clientName: The name the daemon logs for this client.
    ///   - connectsNow: Whether ``DaemonPolicy/always`` must connect before returning.
    ///   - files: How the files route's store behaves (watching, flush delay, diagnostics).
    ///   - firstRead: What the caller reads first, which a connection made now reads with its `hello`.
    /// - Returns: The access.
    /// - Throws: ``PrefsAccessError`` with code `.unavailable` when the policy is ``DaemonPolicy/always``,
    ///   `connectsNow` is true and the daemon does not answer.
    package static func open(
        paths: StorePaths, policy: DaemonPolicy = .automatic,
        socketPath: String = defaultSocketPath, clientName: String,
        connectsNow: Bool = true, files: StoreConfiguration, firstRead: FirstRead? = nil
    ) throws(PrefsAccessError) -> any DomainAccess {
        switch try choose(
            paths: paths, policy: policy, socketPath: socketPath, clientName: clientName, connectsNow: connectsNow,
            firstRead: firstRead)
        {
        case .daemon(let access): return access
        case .files(let warning):
            let access = StoreAccess(paths: paths, configuration: files)
            if let warning { access.report(warning) }
            return access
        }
    }

    /// Opens the engine of the `Preferences` library by the route a policy chooses (as ``open(paths:policy:socketPath:clientName:connectsNow:files:firstRead:)``
    /// does for `defaults`): a store on the files, or a store whose source is `prefsd` (``DaemonDomains``), which
    /// keeps the connection the choice made for its first requests. Under ``DaemonPolicy/always`` it does not wait
    /// for the daemon: requests fail with `.unavailable` until it answers.
    /// - Parameters:
    ///   - paths: The user's directories.
    ///   - policy: The program's choice; `PREFERENCES_DAEMON` overrides ``DaemonPolicy/automatic`` only.
    ///   - socketPath: The daemon's socket; by default the one the environment names.
    ///   - clientName: The name the daemon logs for this client.
    ///   - configuration: How the engine behaves (flush delay, diagnostics).
    /// - Returns: The engine.
    package static func openEngine(
        paths: StorePaths, policy: DaemonPolicy = .automatic, socketPath: String = defaultSocketPath,
        clientName: String, configuration: StoreConfiguration
    ) -> PreferencesStore {
        let choice =
            (try? choose(
                paths: paths, policy: policy, socketPath: socketPath, clientName: clientName, connectsNow: false))
            ?? .files(warning: nil)
        switch choice {
        case .daemon(let access):
            return PreferencesStore(
                paths: paths, configuration: configuration, source: DaemonDomains(access: access, paths: paths))
        case .files(let warning):
            if let warning { configuration.diagnostics(warning) }
            return PreferencesStore(paths: paths, configuration: configuration)
        }
    }

    /// What a policy chooses now.
    private enum Choice {
        /// prefsd, through this access (connected, unless the policy is ``DaemonPolicy/always`` and the caller does
        /// not wait).
        case daemon(DaemonAccess)
        /// The files; with a warning when a daemon was there but did not greet in time.
        case files(warning: StoreDiagnostic?)
    }

    /// The one decision between prefsd and the files.
    private static func choose(
        paths: StorePaths, policy: DaemonPolicy, socketPath: String, clientName: String, connectsNow: Bool,
        firstRead: FirstRead? = nil
    ) throws(PrefsAccessError) -> Choice {
        func connect(_ access: DaemonAccess) throws(PrefsAccessError) {
            if let firstRead { try access.connect(reading: firstRead) } else { try access.connect() }
        }
        switch DaemonPolicy.effective(policy) {
        case .never:
            return .files(warning: nil)
        case .always:
            let access = DaemonAccess(socketPath: socketPath, clientName: clientName)
            if connectsNow { try connect(access) }
            return .daemon(access)
        case .automatic:
            let access = DaemonAccess(socketPath: socketPath, clientName: clientName)
            do {
                try connect(access)
                return .daemon(access)
            } catch {
                // No daemon is the usual case and goes unsaid; a daemon that is there but does not greet in time
                // (stopped, stuck) is worth a line. Only `hello` was sent to it, so the files are safe to use.
                guard error.isHandshakeTimeout else { return .files(warning: nil) }
                return .files(
                    warning: StoreDiagnostic(
                        severity: .warning, domain: nil,
                        error: PrefsStoreError(
                            .unavailable,
                            "\(error.message); using the files in \(paths.preferencesDirectory) instead")))
            }
        }
    }
}
