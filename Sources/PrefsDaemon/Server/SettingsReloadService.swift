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

    /// Creates the service.
    /// - Parameters:
    ///   - settings: The settings in force.
    ///   - paths: Where the settings are read from.
    ///   - server: The server the new settings are applied to.
    ///   - notifier: Where `RELOADING=1` and `READY=1` go.
    ///   - logger: Where the changes and refusals are logged.
    public init(
        settings: DaemonSettings, paths: StorePaths, server: DaemonServer, notifier: SystemdNotifier, logger: Logger
    ) {
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
        guard !changes.isEmpty else {
            logger.info("settings reloaded: nothing changed")
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
