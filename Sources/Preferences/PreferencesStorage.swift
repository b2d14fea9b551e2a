// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore
import Synchronization

/// Where ``Preferences`` instances keep their domains, and what they share.
///
/// Instances created with the same storage value share one engine: one copy of each domain in memory, one
/// registration layer (``Preferences/register(defaults:)``), one argument layer and one set of volatile domains, as
/// `UserDefaults` instances share theirs in a process. ``default`` is one such value; make one value of the others
/// and pass it to every instance that should share.
///
/// - ``default`` and ``environment(flushDelay:diagnostics:daemon:)``: the user's Preferences directory and the system
///   layers, from `PREFERENCES_HOME`, `XDG_CONFIG_HOME`, `PREFERENCES_SYSTEM_DIR` and `PREFERENCES_DOMAINS_DIR`,
///   through `prefsd` when it answers, else in embedded mode (the files are read and written in this process, with
///   `flock` and inotify keeping several processes coherent); ``DaemonUse`` says which.
/// - ``daemon(socketPath:domains:diagnostics:)``: through the `prefsd` on an explicit socket.
/// - ``directories(preferences:system:domains:machineID:flushDelay:diagnostics:)``: explicit directories, for tests
///   and containers.
/// - ``inMemory(diagnostics:)``: no file at all, for an application's own tests.
public struct PreferencesStorage: Sendable, CustomStringConvertible {
    /// How the engine is made.
    enum Kind: Sendable {
        /// Files in explicit directories, or (`nil`) where the environment places them; with ``DaemonUse``.
        case files(StorePaths?, DaemonUse)
        /// Always through the daemon on this socket; shipped domains are read from `paths`.
        case daemon(socket: String, paths: StorePaths)
        case memory
    }

    /// Whether the user's preferences go through `prefsd`, the daemon (docs/DAEMON.md).
    public enum DaemonUse: Sendable, Hashable {
        /// Through the daemon when its socket answers when the storage is first used, else the files directly.
        /// `PREFERENCES_DAEMON=off` (or `on`) in the environment forces one of the other two, as it does for
        /// `defaults` (docs/ARCHITECTURE.md, "The access layer").
        case automatic
        /// Always through the daemon: while it does not answer, reads see nothing and writes fail with
        /// `storeUnavailable` (never a silent fallback).
        case always
        /// Never: the files directly (embedded mode), with `flock` and inotify keeping processes coherent.
        case never

        /// The access layer's policy of the same meaning.
        var policy: DaemonPolicy {
            switch self {
            case .automatic: .automatic
            case .always: .always
            case .never: .never
            }
        }
    }

    /// The shared state behind a storage value: made once, on first use.
    final class Handle: Sendable {
        let kind: Kind
        let flushDelay: Duration
        let diagnostics: @Sendable (PreferencesError) -> Void
        private let opened = Mutex<Engine?>(nil)
        /// Volatile domains by name (``Preferences/setVolatileDomain(_:forName:)``): kept, never searched.
        let volatileDomains = Mutex<[String: PlistDictionary]>([:])

        init(kind: Kind, flushDelay: Duration, diagnostics: @escaping @Sendable (PreferencesError) -> Void) {
            self.kind = kind
            self.flushDelay = flushDelay
            self.diagnostics = diagnostics
        }

        /// The engine, opened on first use.
        func engine() -> Engine {
            opened.withLock { opened in
                if let opened { return opened }
                let diagnostics = self.diagnostics
                let configuration = StoreConfiguration(
                    flushDelay: flushDelay,
                    diagnostics: { diagnostic in diagnostics(PreferencesError(diagnostic.error)) })
                let store: PreferencesStore
                switch kind {
                case .files(let paths?, _): store = PreferencesStore(paths: paths, configuration: configuration)
                case .files(nil, let use):
                    store = AccessRoute.openEngine(
                        paths: .fromProcessEnvironment(), policy: use.policy, clientName: "Preferences",
                        configuration: configuration)
                case .daemon(let socket, let paths):
                    store = AccessRoute.openEngine(
                        paths: paths, policy: .always, socketPath: socket, clientName: "Preferences",
                        configuration: configuration)
                case .memory: store = PreferencesStore.inMemory(configuration: configuration)
                }
                let engine = Engine(store: store, access: StoreAccess(store: store))
                opened = engine
                return engine
            }
        }
    }

    /// The engine of a storage value: the store, on the source the route chose, and the access layer on it (the
    /// atomic updates, migrations and error mapping `defaults` shares).
    struct Engine: Sendable {
        let store: PreferencesStore
        let access: StoreAccess
    }

    let handle: Handle

    /// The user's preferences as the environment places them; what ``Preferences/standard`` uses.
    public static let `default` = PreferencesStorage.environment()

    /// The user's preferences as the environment places them: `PREFERENCES_HOME` (else
    /// `$XDG_CONFIG_HOME/preferences`, else `~/.config/preferences`), `PREFERENCES_SYSTEM_DIR` (else
    /// `/etc/preferences`) and `PREFERENCES_DOMAINS_DIR` (else `/usr/share/preferences/domains`).
    /// - Parameters:
    ///   - flushDelay: How long after a change its domain is written (changes within one delay share a write).
    ///   - diagnostics: Receives what cannot be reported any other way: a `set` the store refused, a file skipped
    ///     as corrupt, a background write that failed. By default one line on standard error each.
    ///   - daemon: Whether to go through `prefsd`: by default when its socket answers (``DaemonUse``).
    /// - Returns: A new storage value; instances made with it share one engine.
    public static func environment(
        flushDelay: Duration = .seconds(1),
        diagnostics: @escaping @Sendable (PreferencesError) -> Void = PreferencesStorage.writeToStandardError,
        daemon: DaemonUse = .automatic
    ) -> PreferencesStorage {
        PreferencesStorage(handle: Handle(kind: .files(nil, daemon), flushDelay: flushDelay, diagnostics: diagnostics))
    }

    /// Preferences in explicit directories, as for tests and containers.
    /// - Parameters:
    ///   - preferences: The user's Preferences directory (created 0700 on first write); the fleet cache prefsd writes
    ///     is its `Fleet` subdirectory, as for the environment's.
    ///   - system: The administrator's directory, holding `forced/`; `nil` for none.
    ///   - domains: The shipped registration defaults; `nil` for none.
    ///   - machineID: The 32 hexadecimal digits that name by-host files; `nil` reads `/etc/machine-id`.
    ///   - flushDelay: How long after a change its domain is written.
    ///   - diagnostics: Receives what cannot be reported any other way; by default, standard error.
    /// - Returns: A new storage value; instances made with it share one engine.
    public static func directories(
        preferences: String, system: String? = nil, domains: String? = nil, machineID: String? = nil,
        flushDelay: Duration = .seconds(1),
        diagnostics: @escaping @Sendable (PreferencesError) -> Void = PreferencesStorage.writeToStandardError
    ) -> PreferencesStorage {
        let paths = StorePaths(
            preferencesDirectory: preferences, systemDirectory: system, shippedDirectory: domains,
            machineID: machineID ?? StorePaths.systemMachineID(),
            fleetDirectory: preferences + "/" + StorePaths.fleetDirectoryName)
        return PreferencesStorage(
            handle: Handle(kind: .files(paths, .never), flushDelay: flushDelay, diagnostics: diagnostics))
    }

    /// The user's preferences through a `prefsd` daemon on an explicit socket, whether or not it answers now (for
    /// tests and containers; ``environment(flushDelay:diagnostics:daemon:)`` finds the daemon itself).
    ///
    /// Reads come from a local cache the daemon's subscriptions keep current; writes are requests to the daemon. While
    /// it does not answer, reads see nothing and writes fail with `storeUnavailable`.
    /// - Parameters:
    ///   - socketPath: The daemon's socket.
    ///   - domains: The shipped registration defaults, which the daemon does not serve; `nil` for the default.
    ///   - diagnostics: Receives what cannot be reported any other way; by default, standard error.
    /// - Returns: A new storage value; instances made with it share one cache.
    public static func daemon(
        socketPath: String, domains: String? = nil,
        diagnostics: @escaping @Sendable (PreferencesError) -> Void = PreferencesStorage.writeToStandardError
    ) -> PreferencesStorage {
        var paths = StorePaths.fromProcessEnvironment()
        if let domains { paths.shippedDirectory = domains }
        return PreferencesStorage(
            handle: Handle(
                kind: .daemon(socket: socketPath, paths: paths), flushDelay: .seconds(1), diagnostics: diagnostics))
    }

    /// Preferences in memory only: nothing is read from or written to disk, and every instance made with this value
    /// sees the same domains. Meant for an application's own tests.
    ///
    /// ``setContents(_:ofDomain:scope:)`` fills any layer, forced and system ones included.
    /// - Parameter diagnostics: Receives what cannot be reported any other way; by default, standard error.
    /// - Returns: A new, empty storage value.
    public static func inMemory(
        diagnostics: @escaping @Sendable (PreferencesError) -> Void = PreferencesStorage.writeToStandardError
    ) -> PreferencesStorage {
        PreferencesStorage(handle: Handle(kind: .memory, flushDelay: .seconds(1), diagnostics: diagnostics))
    }

    /// Writes a diagnostic as one line on standard error: `preferences: <message>`.
    public static let writeToStandardError: @Sendable (PreferencesError) -> Void = { error in
        SystemInterface.writeToStandardError("preferences: \(error)\n")
    }

    /// Whether nothing is kept on disk (``inMemory(diagnostics:)``).
    public var isInMemory: Bool {
        if case .memory = handle.kind { return true }
        return false
    }

    /// Sets what a domain of an in-memory storage holds, in any layer, as if its file held these values.
    ///
    /// Tests use it to give an application forced, system, shipped or global values. Observers see the change.
    /// - Parameters:
    ///   - values: The domain's contents.
    ///   - name: The domain's name (`NSGlobalDomain` for the global domain).
    ///   - scope: The layer.
    /// - Throws: ``PreferencesError`` with code `invalidName` for a bad domain name, `storeUnavailable` when this
    ///   storage keeps files (their contents only come from the files).
    public func setContents(
        _ values: PlistDictionary, ofDomain name: String, scope: PreferenceScope = .user
    ) throws(PreferencesError) {
        let domain = try Preferences.domainName(name)
        guard isInMemory else {
            throw PreferencesError(
                .storeUnavailable,
                "the contents of domain \(name) come from its file; only an in-memory storage takes them")
        }
        do throws(PrefsStoreError) {
            try handle.engine().store.setStoredContents(values, of: DomainID(domain, scope: scope.storeScope))
        } catch {
            throw PreferencesError(error)
        }
    }

    /// `files in /home/ada/.config/preferences`, or `in memory`.
    public var description: String {
        switch handle.kind {
        case .files(let paths?, _): "files in \(paths.preferencesDirectory)"
        case .files(nil, _): handle.engine().access.route.description
        case .daemon(let socket, _): "prefsd at \(socket)"
        case .memory: "in memory"
        }
    }
}
