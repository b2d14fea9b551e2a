// SPDX-License-Identifier: Apache-2.0
public import Logging
import PrefsFleet
public import PrefsPlist
public import PrefsStore
public import PrefsWire

/// The daemon's own settings: the effective values of its domain, `prefsd`, read like any program's preferences
/// (forced, user, system, then the shipped registration defaults installed from `Domains/prefsd.plist`).
///
/// | key | type | default | |
/// |---|---|---|---|
/// | `FlushDelay` | real or integer, seconds (0.001–3600) | 1 | How long after a change its domain is written. |
/// | `IdleExitSeconds` | integer or real, seconds (0–86400) | 0 | Socket-activated only: exit after this long without clients; 0 never. |
/// | `IdleTimeoutSeconds` | integer or real, seconds (0, or 0.1–86400) | 600 | Close a connection idle this long; 0 never. |
/// | `FrameTimeoutSeconds` | integer or real, seconds (0.1–3600) | 30 | Close a connection whose frame has not arrived whole this long after its first byte. |
/// | `LogLevel` | string | `info` | `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`. |
/// | `MaxFrameBytes`, `MaxFrameObjects`, `MaxDepth`, `MaxDomainBytes`, `MaxKeyBytes`, `MaxConnections`, `MaxSubscriptions`, `SubscriptionQueueLength`, `MaxSuites`, `MaxBufferedFrameBytes` | integer, each within ``limitRanges`` | as `WireLimits.default` | The limits of docs/PROTOCOL.md. |
///
/// A value of the wrong type or out of range is not fatal: the daemon logs a warning naming the key and the
/// value, and uses the default. Settings are read at start-up and again on `SIGHUP`.
public struct DaemonSettings: Sendable, Equatable {
    /// The daemon's settings domain, `prefsd`.
    public static let domainName = "prefsd"

    /// The settings as read.
    public var flushDelay: Duration = .seconds(1)
    /// Seconds without clients before a socket-activated daemon exits; `nil` never.
    public var idleExitDelay: Duration?
    /// How long a connection may stay idle before it is closed; `nil` never.
    public var idleTimeout: Duration? = .seconds(600)
    /// How long a frame may take to arrive whole.
    public var frameTimeout: Duration = .seconds(30)
    /// The lowest level logged.
    public var logLevel: Logger.Level = .info
    /// The limits.
    public var limits: WireLimits = .default
    /// One sentence per setting that was ignored, naming the key, the value and why.
    public var warnings: [String] = []
    /// The fleet to join (``FleetSettings``), or `nil` for none: then prefsd opens no network connection.
    package var fleet: FleetSettings?
    /// Why a configured fleet is not joined (its credentials cannot be used), one sentence each: logged as errors.
    package var fleetErrors: [String] = []

    /// The setting key of each limit.
    static let limitKeys: [(key: String, limit: WireLimit)] = [
        ("MaxFrameBytes", .maxFrameBytes), ("MaxFrameObjects", .maxFrameObjects), ("MaxDepth", .maxDepth),
        ("MaxDomainBytes", .maxDomainBytes), ("MaxKeyBytes", .maxKeyBytes), ("MaxConnections", .maxConnections),
        ("MaxSubscriptions", .maxSubscriptions), ("SubscriptionQueueLength", .subscriptionQueueLength),
        ("MaxSuites", .maxSuites), ("MaxBufferedFrameBytes", .maxBufferedFrameBytes),
    ]

    /// The values each limit may take: what the code handles, not merely what fits in an integer (the compiled-in
    /// schema, `DomainSchema.prefsd`, says why each stops where it does).
    public static let limitRanges: [WireLimit: ClosedRange<Int>] = Dictionary(
        uniqueKeysWithValues: limitKeys.compactMap { key, limit in
            DomainSchema.prefsd.keys[key]?.integerRange.map { (limit, $0) }
        })

    /// Reads the settings from the effective values of the `prefsd` domain, with the rules a write of them is
    /// checked against (`DomainSchema.prefsd`): a value that a hand edit or an older version left breaking one is
    /// ignored with a warning.
    /// - Parameter values: The effective values (for tests); read from `paths` by ``load(paths:)``.
    public init(values: PlistDictionary) {
        func accepted(_ key: String) -> PlistValue? {
            guard let value = values[key] else { return nil }
            guard let rule = DomainSchema.prefsd.keys[key], !rule.accepts(value) else { return value }
            warn(key, value, rule.requirement)
            return nil
        }
        if let value = accepted("FlushDelay"), let seconds = KeySchema.seconds(value) {
            flushDelay = Self.duration(seconds)
        }
        if let value = accepted("IdleExitSeconds"), let seconds = KeySchema.seconds(value) {
            idleExitDelay = seconds == 0 ? nil : Self.duration(seconds)
        }
        if let value = accepted("IdleTimeoutSeconds"), let seconds = KeySchema.seconds(value) {
            idleTimeout = seconds == 0 ? nil : Self.duration(seconds)
        }
        if let value = accepted("FrameTimeoutSeconds"), let seconds = KeySchema.seconds(value) {
            frameTimeout = Self.duration(seconds)
        }
        if case .string(let name)? = accepted("LogLevel"), let level = Logger.Level(rawValue: name.lowercased()) {
            logLevel = level
        }
        for (key, limit) in Self.limitKeys {
            if case .integer(let integer)? = accepted(key), let number = integer.int64Value {
                limits[limit] = Int(number)
            }
        }
        var fleetWarnings: [String] = []
        var fleetRefusals: [String] = []
        fleet = FleetSettings.read(values, warn: { fleetWarnings.append($0) }, refuse: { fleetRefusals.append($0) })
        fleetErrors = fleetRefusals
        warnings += fleetWarnings
        if limits.maxFrameBytes < limits.maxDomainBytes + 64 * 1024 {
            warnings.append(
                "settings MaxFrameBytes (\(limits.maxFrameBytes)) and MaxDomainBytes (\(limits.maxDomainBytes)) of "
                    + "domain \(Self.domainName): a frame must hold the largest domain and its envelope; "
                    + "MaxFrameBytes raised to \(limits.maxDomainBytes + 64 * 1024)")
            limits.maxFrameBytes = limits.maxDomainBytes + 64 * 1024
        }
        if limits.maxBufferedFrameBytes < limits.maxFrameBytes {
            warnings.append(
                "settings MaxBufferedFrameBytes (\(limits.maxBufferedFrameBytes)) and MaxFrameBytes "
                    + "(\(limits.maxFrameBytes)) of domain \(Self.domainName): the buffers must hold the largest "
                    + "frame; MaxBufferedFrameBytes raised to \(limits.maxFrameBytes)")
            limits.maxBufferedFrameBytes = limits.maxFrameBytes
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

    /// Every setting with its value as the log shows it, in a fixed order.
    var summary: [(key: String, value: String)] {
        var result: [(key: String, value: String)] = [
            ("FlushDelay", "\(flushDelay)"), ("IdleExitSeconds", idleExitDelay.map { "\($0)" } ?? "never"),
            ("IdleTimeoutSeconds", idleTimeout.map { "\($0)" } ?? "never"),
            ("FrameTimeoutSeconds", "\(frameTimeout)"), ("LogLevel", "\(logLevel)"),
        ]
        for (key, limit) in Self.limitKeys { result.append((key, "\(limits[limit])")) }
        return result
    }

    /// One line per setting whose value differs from `old`'s: `MaxConnections 256 -> 10`.
    func changes(from old: DaemonSettings) -> [String] {
        zip(old.summary, summary).compactMap { before, after in
            before.value == after.value ? nil : "\(after.key) \(before.value) -> \(after.value)"
        }
    }

    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private mutating func warn(_ key: String, _ value: PlistValue, _ rule: String) {
        warnings.append(
            "setting \(key) of domain \(Self.domainName) is \(value.defaultsDescription) (\(value.typeName)): "
                + "it \(rule); the default is used")
    }
}
