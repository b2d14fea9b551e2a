// SPDX-License-Identifier: Apache-2.0
public import Logging
import PrefsPOSIX
import Synchronization

/// A swift-log `LogHandler` that writes structured entries to journald under systemd and plain lines to standard
/// error otherwise.
///
/// To journald each entry goes with `sd_journal_sendv(3)` as the fields ``JournalEntry`` documents: `MESSAGE`,
/// `PRIORITY`, `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, `LOGGER_LABEL`, `LOGGER_SOURCE`, `ERROR`
/// and one field per metadata key, uppercased with every other character turned into `_` (`prefs.domain` →
/// `PREFS_DOMAIN`), so `journalctl --user -u prefsd PREFS_DOMAIN=com.example.app` finds every entry about a domain.
/// On standard error each entry is one line: `<timestamp> <level> <label>: <message> key=value…`.
///
/// If journald refuses an entry (`sd_journal_sendv` fails), the entry is written to standard error instead, the
/// first time with a note saying why. (libsystemd itself drops entries silently when journald's socket does not
/// exist; under systemd that socket's owner is the other end of standard error, so it is there.) Metadata from the
/// handler, its metadata provider and the log call are merged in that order, later values winning.
public struct JournalLogHandler: LogHandler {
    /// Where entries go.
    public enum Destination: Sendable, Hashable {
        /// Structured entries to journald.
        case journal
        /// One plain line per entry to standard error.
        case standardError
    }

    /// The `Logger` label this handler was made for.
    public let label: String
    /// The program name written as `SYSLOG_IDENTIFIER`, such as `prefsd`.
    public let identifier: String
    /// Where entries go.
    public let destination: Destination
    /// The lowest level that is written: the one set on this handler, else the process's
    /// (``PrefsLogging/setLogLevel(_:)``), which a daemon may change while it runs.
    public var logLevel: Logger.Level {
        get { ownLogLevel ?? PrefsLogging.logLevel }
        set { ownLogLevel = newValue }
    }
    private var ownLogLevel: Logger.Level?
    /// Metadata added to every entry from this handler.
    public var metadata: Logger.Metadata
    /// Supplies contextual metadata (task-local values, say) for each entry.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler.
    /// - Parameters:
    ///   - label: The `Logger` label.
    ///   - identifier: The program name (`SYSLOG_IDENTIFIER`).
    ///   - destination: Where entries go; by default ``detectedDestination``.
    ///   - logLevel: The lowest level that is written.
    ///   - metadataProvider: Supplies contextual metadata for each entry.
    public init(
        label: String, identifier: String, destination: Destination = JournalLogHandler.detectedDestination,
        logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.identifier = identifier
        self.destination = destination
        self.ownLogLevel = logLevel
        self.metadata = [:]
        self.metadataProvider = metadataProvider
    }

    /// A handler that follows the process's level (``PrefsLogging/setLogLevel(_:)``).
    init(
        label: String, identifier: String, destination: Destination,
        metadataProvider: Logger.MetadataProvider?
    ) {
        self.label = label
        self.identifier = identifier
        self.destination = destination
        self.ownLogLevel = nil
        self.metadata = [:]
        self.metadataProvider = metadataProvider
    }

    /// ``Destination/journal`` when standard error is connected to the journal, else ``Destination/standardError``.
    ///
    /// This is systemd's documented check: the service manager sets `JOURNAL_STREAM` to the device and inode
    /// (`<dev>:<inode>`) of the stream it connected to stdout and stderr, so when they still match standard error,
    /// the process runs under systemd and nobody redirected its output elsewhere.
    public static var detectedDestination: Destination {
        guard let identity = Systemd.standardErrorIdentity(),
            isJournalStream(POSIX.environmentVariable("JOURNAL_STREAM"), device: identity.device, inode: identity.inode)
        else { return .standardError }
        return .journal
    }

    /// Whether a `JOURNAL_STREAM` value names the file with the given device and inode numbers.
    static func isJournalStream(_ value: String?, device: UInt64, inode: UInt64) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let streamDevice = UInt64(parts[0]), let streamInode = UInt64(parts[1]) else {
            return false
        }
        return streamDevice == device && streamInode == inode
    }

    /// Gets or sets one metadata value of this handler.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one entry (the `Logger` has already checked its level).
    public func log(event: LogEvent) {
        let metadata = mergedMetadata(event.metadata)
        let message = event.message.description
        if destination == .journal {
            let entry = JournalEntry(
                level: event.level, message: message, metadata: metadata, error: event.error, identifier: identifier,
                label: label, source: event.source, file: event.file, function: event.function, line: event.line)
            do {
                try Systemd.journalSend(entry.encoded)
                return
            } catch {
                Self.reportJournalFailureOnce(error, identifier: identifier)
            }
        }
        Systemd.writeStandardError(
            Array(
                PlainLogLine.format(
                    timestamp: Systemd.localTimestamp(), level: event.level, label: label, message: message,
                    metadata: metadata, error: event.error
                ).utf8))
    }

    private func mergedMetadata(_ explicit: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit { merged.merge(explicit) { _, new in new } }
        return merged
    }

    private static let journalFailureReported = Atomic(false)

    /// Says once per process why entries go to standard error although journald was expected.
    private static func reportJournalFailureOnce(_ error: SystemCallError, identifier: String) {
        guard !journalFailureReported.exchange(true, ordering: .relaxed) else { return }
        Systemd.writeStandardError(
            Array("\(identifier): cannot write to journald (\(error)); logging to standard error instead\n".utf8))
    }
}
