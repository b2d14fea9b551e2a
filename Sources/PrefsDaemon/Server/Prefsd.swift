// SPDX-License-Identifier: Apache-2.0
import Logging
import PrefsCommandLine
import PrefsFleet
import PrefsPOSIX
import PrefsStore
import PrefsSystemd
import ServiceLifecycle
import UnixSignals

/// The `prefsd` program: reads its settings, opens the store, and runs the watchdog, the flush service, the server
/// and the settings reload (`SIGHUP`) in one `ServiceGroup` until SIGTERM or SIGINT (or an idle exit), then flushes
/// and returns.
public enum Prefsd {
    /// The text of `prefsd --help`.
    public static let usage = """
        usage: prefsd [--socket PATH]
               prefsd --help | --version | --completion bash|zsh|fish

        prefsd, the Preferences daemon, serves the preferences of the user running it over a Unix socket
        (docs/PROTOCOL.md): the single writer of their domain files, with change notifications for every client.
        It runs in the foreground until SIGTERM or SIGINT, then writes every domain and exits 0. Under systemd it is
        socket-activated (prefsd.socket) and logs to the journal; started by hand it logs to standard error.

        options:
          --socket PATH   listen on PATH instead of $PREFSD_SOCKET, $XDG_RUNTIME_DIR/prefsd/socket,
                          /run/user/<uid>/prefsd/socket or /tmp/prefsd-<uid>/socket
          --help          print this text
          --version       print the version
          --completion SHELL
                          print a completion script for bash, zsh or fish

        environment: PREFERENCES_HOME, PREFERENCES_SYSTEM_DIR, PREFERENCES_DOMAINS_DIR, PREFSD_SOCKET,
        PREFERENCES_MACHINE_ID (32 hexadecimal digits in place of /etc/machine-id's; one that is not refuses
        the fleet rather than take another machine's policy).
        settings: `defaults write prefsd <key> <value>`, read at start-up and on SIGHUP: FlushDelay,
        IdleExitSeconds, IdleTimeoutSeconds, FrameTimeoutSeconds, LogLevel, MaxConnections, MaxFrameBytes,
        MaxFrameObjects, MaxDepth, MaxDomainBytes, MaxKeyBytes, MaxSubscriptions, SubscriptionQueueLength,
        MaxSuites, MaxBufferedFrameBytes (docs/DAEMON.md).
        fleet settings, read at start-up and on SIGHUP (docs/FLEET.md, "Settings"): FleetEndpoints, FleetPrefix,
        FleetGroups, FleetMaxValueBytes, FleetUser, FleetPasswordFile, FleetCAFile, FleetCRLFile,
        FleetCertificateFile, FleetKeyFile, FleetRoamingDomains, FleetRoamingUser, FleetHostTTL, FleetHostName,
        FleetWatchCheckSeconds.
        exit status: 0 after a clean stop, 1 when start-up failed, 2 for a usage error (its reason on standard error).

        """

    /// Runs the program.
    /// - Parameter arguments: The command-line arguments, without the program name.
    /// - Returns: The exit status: 0 after a clean stop, 1 when start-up failed, 2 for a usage error.
    public static func main(arguments: [String]) async -> Int32 {
        var socketOverride: String?
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--help", "-h":
                print(usage, terminator: "")
                return 0
            case "--version":
                print(PreferencesVersion.versionLine(program: "prefsd"), terminator: "")
                return 0
            case "--completion":
                guard index + 1 < arguments.count, let shell = Shell(rawValue: arguments[index + 1]) else {
                    return usageError("--completion takes \(Shell.nameList)")
                }
                print(OptionTable.prefsd.completionScript(for: shell), terminator: "")
                return 0
            case "--socket":
                guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
                    return usageError("--socket needs a path")
                }
                socketOverride = arguments[index + 1]
                index += 1
            default:
                let argument = arguments[index]
                return usageError(
                    "unknown argument '\(argument)'"
                        + SpellingSuggestion.clause(for: argument, among: OptionTable.prefsd.names))
            }
            index += 1
        }

        // Everything the daemon creates is the user's alone; the socket itself is bound under 0177.
        DaemonSystem.setFileCreationMask(0o077)
        let paths = StorePaths.fromProcessEnvironment()
        let settings = DaemonSettings.load(paths: paths)
        PrefsLogging.bootstrap(identifier: "prefsd", logLevel: settings.logLevel)
        let logger = Logger(label: "prefsd")
        for warning in settings.warnings { logger.warning("\(warning)") }
        for error in settings.fleetErrors { logger.error("\(error)") }

        let activated: SocketActivation.ListeningSocket?
        do {
            activated = try SocketActivation.listeningSocket()
        } catch {
            logger.critical("cannot use the sockets systemd passed", metadata: ["error": "\(error)"])
            return 1
        }
        // With fleet settings the cache is opened before the store, so that the store watches it from the start.
        let fleetLogger = Logger(label: "prefsd.fleet")
        var fleetSettings = settings.fleet
        let machineIDVariable = POSIX.environmentVariable("PREFERENCES_MACHINE_ID").map {
            ["PREFERENCES_MACHINE_ID": $0]
        }
        if let problem = StorePaths.machineIDProblem(environment: machineIDVariable ?? [:]) {
            if fleetSettings != nil {
                // Another machine's id would give this host another machine's policy.
                fleetLogger.error("\(problem); no fleet is joined")
                fleetSettings = nil
            } else {
                logger.warning("\(problem)")
            }
        }
        let fleetMirror = fleetSettings.flatMap {
            FleetService.prepareMirror(settings: $0, paths: paths, logger: fleetLogger)
        }
        var idleExitDelay = settings.idleExitDelay
        if fleetMirror != nil, idleExitDelay != nil {
            logger.notice("IdleExitSeconds is ignored: a host in a fleet keeps watching etcd while it runs")
            idleExitDelay = nil
        }
        let configuration = DaemonConfiguration(
            socketPath: socketOverride ?? DaemonConfiguration.defaultSocketPath(), storePaths: paths,
            limits: settings.limits, flushDelay: settings.flushDelay, idleExitDelay: idleExitDelay,
            logLevel: settings.logLevel, idleTimeout: settings.idleTimeout, frameTimeout: settings.frameTimeout,
            socketCreationMask: SocketListener.socketMask)
        // One daemon per Preferences directory, whatever its socket: claimed before the store reads a file.
        let directoryLock: DirectoryLock?
        do {
            directoryLock = try DirectoryLock.claim(paths, socketPath: activated?.path ?? configuration.socketPath)
        } catch {
            logger.critical("prefsd stopped: \(error)")
            return 1
        }
        if directoryLock == nil {
            let directory = paths.preferencesDirectory
            logger.warning(
                "the Preferences directory \(directory) is not writable: serving its reads; writes to it are refused")
        }
        defer { directoryLock?.release() }
        let storeLogger = Logger(label: "prefsd.store")
        var storeConfiguration = StoreConfiguration(
            flushDelay: configuration.flushDelay, limits: configuration.storeLimits,
            diagnostics: { diagnostic in
                let level: Logger.Level = diagnostic.severity == .error ? .error : .warning
                var metadata: Logger.Metadata = [:]
                if let domain = diagnostic.domain { metadata[PrefsLogging.MetadataKey.domain] = "\(domain)" }
                if let path = diagnostic.error.path { metadata[PrefsLogging.MetadataKey.path] = "\(path)" }
                storeLogger.log(level: level, "\(diagnostic.error.description)", metadata: metadata)
            })
        // prefsd writes the fleet cache and tells its store of each change first: watching the cache would only wake
        // the store for its own writes.
        storeConfiguration.watchesFleetCache = fleetMirror == nil
        let store = PreferencesStore(paths: paths, configuration: storeConfiguration)
        let notifier = SystemdNotifier()
        let fleetStatus = fleetMirror.map { mirror in
            FleetStatusBoard(
                cacheDirectory: mirror.paths.fleetDirectory ?? "", appliedRevision: mirror.revision,
                machineID: mirror.paths.machineID, hostName: fleetSettings?.hostName, groups: mirror.groups)
        }
        let server = DaemonServer(
            configuration: configuration, store: store, activatedSocket: activated, notifier: notifier,
            logger: Logger(label: "prefsd.server"), fleetStatus: fleetStatus)
        // Only a host that joined a fleet reloads its fleet settings; joining or leaving takes a restart.
        let fleetConfiguration = fleetMirror == nil ? nil : fleetSettings.map(FleetConfiguration.init)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: SystemdWatchdogService(notifier: notifier, logger: logger)),
            .init(service: StoreFlushService(store: store, logger: storeLogger)),
            .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup),
            .init(
                service: SettingsReloadService(
                    settings: settings, paths: paths, server: server, notifier: notifier,
                    logger: Logger(label: "prefsd.settings"), fleet: fleetConfiguration)),
        ]
        if let fleet = fleetSettings, let fleetConfiguration, let fleetMirror, let fleetStatus {
            services.append(
                .init(
                    service: FleetService(
                        configuration: fleetConfiguration, paths: paths, logger: fleetLogger,
                        report: { server.setExtraStatus($0) },
                        board: fleetStatus, prepared: fleetMirror, store: store)))
            services.append(
                .init(
                    service: FleetHostService(
                        configuration: fleetConfiguration, board: fleetStatus,
                        logger: Logger(label: "prefsd.fleet.hosts"))))
            if !fleet.roamingDomains.isEmpty {
                services.append(
                    .init(
                        service: RoamingService(
                            settings: fleet, paths: paths, store: store, logger: Logger(label: "prefsd.roaming"),
                            board: fleetStatus)))
            }
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "prefsd.lifecycle")))
        do {
            try await group.run()
        } catch {
            logger.critical("prefsd stopped: \(error)")
            return 1
        }
        logger.info("stopped")
        return 0
    }

    /// The exit status of a usage error: 2, as plutil's and GNU tools' (defaults keeps macOS's 255); systemd shows it
    /// as INVALIDARGUMENT.
    static let usageErrorStatus: Int32 = 2

    /// Prints the reason of a usage error and where to read more (not the whole usage text, which would push the
    /// reason off the screen) and returns ``usageErrorStatus``.
    private static func usageError(_ reason: String) -> Int32 {
        POSIX.writeToStandardError("prefsd: \(reason)\nRun 'prefsd --help' for usage.\n")
        return usageErrorStatus
    }
}
