// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PrefsStore
public import PrefsSystemd
public import ServiceLifecycle
import Synchronization
import UnixSignals

/// Reads the daemon's settings again on `SIGHUP` (`systemctl --user reload prefsd`), as a swift-service-lifecycle
/// `Service`: tells systemd `RELOADING=1`, logs each setting that changed, applies them, then `READY=1`.
///
/// New settings with any problem (a wrong type, a value out of range) are refused whole, each problem logged, and
/// the settings in force are kept. Limits and timeouts hold for connections accepted after the reload (the
/// connection count and the budget of incomplete frames at once), the log level at once; `FlushDelay` is the
/// store's and takes effect at the next start, as the log says.
public final class SettingsReloadService: Service, Sendable {
    private let paths: StorePaths
    private let server: DaemonServer
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let current: Mutex<DaemonSettings>
    /// The fleet settings of a host that joined a fleet, which a reload replaces too.
    private let fleet: FleetConfiguration?

    /// Creates the service.
    /// - Parameters:
    ///   - settings: The settings in force.
    ///   - paths: Where the settings are read from.
    ///   - server: The server the new settings are applied to.
    ///   - notifier: Where `RELOADING=1` and `READY=1` go.
    ///   - logger: Where the changes and refusals are logged.
    public convenience init(
        settings: DaemonSettings, paths: StorePaths, server: DaemonServer, notifier: SystemdNotifier, logger: Logger
    ) {
        self.init(settings: settings, paths: paths, server: server, notifier: notifier, logger: logger, fleet: nil)
    }

    /// Creates the service of a daemon that joined a fleet, whose settings `fleet` holds.
    init(
        settings: DaemonSettings, paths: StorePaths, server: DaemonServer, notifier: SystemdNotifier, logger: Logger,
        fleet: FleetConfiguration?
    ) {
        self.fleet = fleet
        self.current = Mutex(settings)
        self.paths = paths
        self.server = server
        self.notifier = notifier
        self.logger = logger
    }

    /// Waits for `SIGHUP` and reloads, until graceful shutdown.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                self.reload()
            }
        }
    }

    /// Reads the settings and applies them when they are all valid.
    /// - Returns: The settings in force afterwards.
    @discardableResult
    public func reload() -> DaemonSettings {
        do {
            try notifier.reloading()
        } catch {
            logger.warning("cannot tell systemd the daemon is reloading", metadata: ["error": "\(error)"])
        }
        defer {
            do {
                try notifier.ready(status: nil)
            } catch {
                logger.warning("cannot tell systemd the reload is done", metadata: ["error": "\(error)"])
            }
        }
        let loaded = DaemonSettings.load(paths: paths)
        let old = current.withLock { $0 }
        guard loaded.warnings.isEmpty else {
            for warning in loaded.warnings {
                logger.error("reload refused: \(warning.replacingDefaultWording); the settings in force are kept")
            }
            return old
        }
        let changes = loaded.changes(from: old)
        let fleetChanged = reloadFleet(loaded)
        guard !changes.isEmpty else {
            if !fleetChanged { logger.info("settings reloaded: nothing changed") }
            return old
        }
        for change in changes {
            let note = change.hasPrefix("FlushDelay ") ? " (takes effect at the next start)" : ""
            logger.notice("setting changed: \(change)\(note)")
        }
        var applied = loaded
        applied.flushDelay = old.flushDelay
        current.withLock { $0 = applied }
        server.apply(applied)
        PrefsLogging.setLogLevel(applied.logLevel)
        return applied
    }
}

extension SettingsReloadService {
    /// Replaces the fleet settings when they changed and can be used, logging each change.
    /// - Returns: Whether anything about the fleet was logged.
    private func reloadFleet(_ loaded: DaemonSettings) -> Bool {
        guard let fleet else {
            if loaded.fleet != nil {
                logger.notice("fleet settings found: joining a fleet takes effect at the next start")
                return true
            }
            return false
        }
        guard loaded.fleetErrors.isEmpty else {
            for error in loaded.fleetErrors {
                logger.error("fleet reload refused: \(error); the fleet settings in force are kept")
            }
            return true
        }
        guard let settings = loaded.fleet else {
            logger.notice("the fleet settings are gone: leaving the fleet takes effect at the next start")
            return true
        }
        let changes = fleet.replace(with: settings)
        for change in changes.applied { logger.notice("setting changed: \(change)") }
        for change in changes.atNextStart {
            logger.notice("setting changed: \(change) (takes effect at the next start)")
        }
        return !changes.applied.isEmpty || !changes.atNextStart.isEmpty
    }
}

extension String {
    /// A settings warning as a refusal: "the default is used" does not hold for a reload.
    fileprivate var replacingDefaultWording: String {
        hasSuffix("; the default is used") ? String(dropLast("; the default is used".count)) : self
    }
}

// The service group logs each service by its description; without one it would print the value by reflection (its
// stored properties) and build the type's name with the runtime's demangler, which loads libstdc++.
extension SettingsReloadService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    public var description: String { "SettingsReloadService" }
}
