import Logging
import PrefsPlist
import PrefsStore
import PrefsWire

/// The daemon's own settings: the effective values of its domain, `prefsd`, read like any program's preferences
/// (forced, user, system, then the shipped registration defaults installed from `Domains/prefsd.plist`).
///
/// | key | type | default | |
/// |---|---|---|---|
/// | `FlushDelay` | real or integer, seconds (0.001–3600) | 1 | How long after a change its domain is written. |
/// | `IdleExitSeconds` | integer or real, seconds (0–86400) | 0 | Socket-activated only: exit after this long without clients; 0 never. |
/// | `LogLevel` | string | `info` | `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`. |
/// | `MaxFrameBytes`, `MaxFrameObjects`, `MaxDepth`, `MaxDomainBytes`, `MaxKeyBytes`, `MaxConnections`, `MaxSubscriptions`, `SubscriptionQueueLength` | integer ≥ 1 | as `WireLimits.default` | The limits of docs/PROTOCOL.md. |
///
/// A value of the wrong type or out of range is not fatal: the daemon logs a warning naming the key and the
/// value, and uses the default. Settings are read at start-up; restart the daemon to apply a change.
public struct DaemonSettings: Sendable {
    /// The daemon's settings domain, `prefsd`.
    public static let domainName = "prefsd"

    /// The settings as read.
    public var flushDelay: Duration = .seconds(1)
    /// Seconds without clients before a socket-activated daemon exits; `nil` never.
    public var idleExitDelay: Duration?
    /// The lowest level logged.
    public var logLevel: Logger.Level = .info
    /// The limits.
    public var limits: WireLimits = .default
    /// One sentence per setting that was ignored, naming the key, the value and why.
    public var warnings: [String] = []

    /// The setting key of each limit.
    static let limitKeys: [(key: String, limit: WireLimit)] = [
        ("MaxFrameBytes", .maxFrameBytes), ("MaxFrameObjects", .maxFrameObjects), ("MaxDepth", .maxDepth),
        ("MaxDomainBytes", .maxDomainBytes), ("MaxKeyBytes", .maxKeyBytes), ("MaxConnections", .maxConnections),
        ("MaxSubscriptions", .maxSubscriptions), ("SubscriptionQueueLength", .subscriptionQueueLength),
    ]

    /// Reads the settings from the effective values of the `prefsd` domain.
    /// - Parameter values: The effective values (for tests); read from `paths` by ``load(paths:)``.
    public init(values: PlistDictionary) {
        if let value = values["FlushDelay"] {
            if let seconds = Self.seconds(value), seconds >= 0.001, seconds <= 3600 {
                flushDelay = .milliseconds(Int64((seconds * 1000).rounded()))
            } else {
                warn("FlushDelay", value, "must be a number of seconds from 0.001 to 3600")
            }
        }
        if let value = values["IdleExitSeconds"] {
            if let seconds = Self.seconds(value), seconds >= 0, seconds <= 86400 {
                idleExitDelay = seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded()))
            } else {
                warn("IdleExitSeconds", value, "must be a number of seconds from 0 (never) to 86400")
            }
        }
        if let value = values["LogLevel"] {
            if case .string(let name) = value, let level = Logger.Level(rawValue: name.lowercased()) {
                logLevel = level
            } else {
                warn("LogLevel", value, "must be one of trace, debug, info, notice, warning, error, critical")
            }
        }
        for (key, limit) in Self.limitKeys {
            guard let value = values[key] else { continue }
            if case .integer(let integer) = value, let number = integer.int64Value, number >= 1, number <= Int32.max {
                limits[limit] = Int(number)
            } else {
                warn(key, value, "must be an integer from 1 to \(Int32.max)")
            }
        }
        if limits.maxFrameBytes < limits.maxDomainBytes + 64 * 1024 {
            warnings.append(
                "settings MaxFrameBytes (\(limits.maxFrameBytes)) and MaxDomainBytes (\(limits.maxDomainBytes)) of "
                    + "domain \(Self.domainName): a frame must hold the largest domain and its envelope; "
                    + "MaxFrameBytes raised to \(limits.maxDomainBytes + 64 * 1024)")
            limits.maxFrameBytes = limits.maxDomainBytes + 64 * 1024
        }
    }

    /// Reads the settings from the preferences in `paths`, without watching or writing anything.
    /// - Parameter paths: The directories of the preferences the daemon serves.
    public static func load(paths: StorePaths) -> DaemonSettings {
        let store = PreferencesStore(
            paths: paths,
            configuration: StoreConfiguration(watchesFiles: false, flushesAtExit: false, diagnostics: { _ in }))
        let name = DomainName.isValid(domainName) ? (try? DomainName(domainName)) : nil
        guard let name else { return DaemonSettings(values: [:]) }
        let view = store.effectiveView(for: SearchList(domain: name, includesGlobal: false))
        return DaemonSettings(values: view.values)
    }

    /// A number of seconds from an integer or a real.
    private static func seconds(_ value: PlistValue) -> Double? {
        switch value {
        case .integer(let integer): integer.int64Value.map(Double.init)
        case .real(let real) where real.isFinite: real
        default: nil
        }
    }

    private mutating func warn(_ key: String, _ value: PlistValue, _ rule: String) {
        warnings.append(
            "setting \(key) of domain \(Self.domainName) is \(value.defaultsDescription) (\(value.typeName)): "
                + "it \(rule); the default is used")
    }
}
