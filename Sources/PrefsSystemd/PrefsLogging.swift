// SPDX-License-Identifier: Apache-2.0
public import Logging
import Synchronization

/// Sets up swift-log for the project's programs: journald under systemd, standard error otherwise.
public enum PrefsLogging {
    /// The metadata keys the project's programs use, so that every entry about a domain carries the same journal
    /// field (`journalctl --user PREFS_DOMAIN=com.example.app`).
    public enum MetadataKey {
        /// The domain name (journal field `PREFS_DOMAIN`).
        public static let domain = "prefs.domain"
        /// The key within the domain (`PREFS_KEY`).
        public static let key = "prefs.key"
        /// The file a domain is stored in (`PREFS_PATH`).
        public static let path = "prefs.path"
        /// The wire operation a client asked for, such as `set` (`PREFS_OPERATION`).
        public static let operation = "prefs.operation"
        /// The connected client's process id, from `SO_PEERCRED` (`PREFS_CLIENT_PID`).
        public static let clientPID = "prefs.client.pid"
        /// The connected client's user id, from `SO_PEERCRED` (`PREFS_CLIENT_UID`).
        public static let clientUID = "prefs.client.uid"
    }

    /// Installs ``JournalLogHandler`` as the process's log handler, once, at start-up.
    ///
    /// The destination is decided here, once, by ``JournalLogHandler/detectedDestination``: journald when standard
    /// error is the journal stream systemd connected, else standard error.
    /// - Parameters:
    ///   - identifier: The program name written as `SYSLOG_IDENTIFIER`, such as `prefsd`.
    ///   - logLevel: The lowest level written by every `Logger`.
    ///   - metadataProvider: Supplies contextual metadata for each entry.
    public static func bootstrap(
        identifier: String, logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil
    ) {
        setLogLevel(logLevel)
        let destination = JournalLogHandler.detectedDestination
        LoggingSystem.bootstrap(
            { label, provider in
                JournalLogHandler(
                    label: label, identifier: identifier, destination: destination, metadataProvider: provider)
            }, metadataProvider: metadataProvider)
    }

    /// Changes the lowest level every `Logger` of the bootstrapped handlers writes, at once (a daemon reloading
    /// its settings); a level set on one `Logger` stays that logger's.
    /// - Parameter level: The new level.
    public static func setLogLevel(_ level: Logger.Level) {
        let index = Logger.Level.allCases.firstIndex(of: level) ?? 0
        processLogLevel.store(index, ordering: .relaxed)
    }

    /// The process's level, as ``setLogLevel(_:)`` set it (`info` before).
    static var logLevel: Logger.Level {
        let index = processLogLevel.load(ordering: .relaxed)
        let levels = Logger.Level.allCases
        return levels.indices.contains(index) ? levels[index] : .info
    }

    private static let processLogLevel = Atomic<Int>(Logger.Level.allCases.firstIndex(of: .info) ?? 0)
}
