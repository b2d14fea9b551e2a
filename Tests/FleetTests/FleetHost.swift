// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport

/// One machine of a test fleet: a real `prefsd` with its own Preferences directory, socket and machine id
/// (`PREFERENCES_MACHINE_ID`), joined to the cluster by its settings domain.
final class FleetHost: @unchecked Sendable {
    static let prefsd = BuiltProduct("prefsd")
    static let defaults = BuiltProduct("defaults")

    let directory: TemporaryDirectory
    let machineID: String
    private(set) var process: SpawnedProcess?
    private var logs: [String] = []

    /// Creates the host's files; `settings` go into its `prefsd` domain (none: the host is in no fleet).
    init(settings: PlistDictionary) throws {
        directory = try TemporaryDirectory(prefix: "fleet-host")
        machineID = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
        try FileManager.default.createDirectory(atPath: preferences, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if !settings.isEmpty {
            let bytes = try PlistSerialization.encode(.dictionary(settings), format: .xml)
            try Data(bytes).write(to: URL(fileURLWithPath: preferences + "/prefsd.plist"))
        }
    }

    /// Settings that join `cluster` with these groups.
    static func settings(_ cluster: EtcdCluster, groups: [String] = [], extra: PlistDictionary = [:]) -> PlistDictionary
    {
        var settings: PlistDictionary = [
            "FleetEndpoints": .array(cluster.endpoints.map(PlistValue.string)),
            "FleetGroups": .array(groups.map(PlistValue.string)),
        ]
        for (key, value) in extra { settings[key] = value }
        return settings
    }

    deinit { process?.kill() }

    var preferences: String { directory.file("prefs") }
    var socketPath: String { directory.file("run/socket") }

    var environment: [String: String] {
        [
            "PREFERENCES_HOME": preferences, "PREFERENCES_SYSTEM_DIR": directory.file("system"),
            "PREFERENCES_DOMAINS_DIR": directory.file("domains"), "PREFSD_SOCKET": socketPath,
            "PREFERENCES_MACHINE_ID": machineID,
        ]
    }

    /// Starts prefsd (in `namespace`, when given) and waits until its socket exists.
    func start(in namespace: NetworkNamespace? = nil) throws {
        let process =
            try namespace.map {
                try SpawnedProcess(
                    NetworkNamespace.ip, ["netns", "exec", $0.name, Self.prefsd.path], environment: environment,
                    logDirectory: directory.path)
            }
            ?? SpawnedProcess(Self.prefsd.path, [], environment: environment, logDirectory: directory.path)
        self.process = process
        logs.append(process.errorPath)
        try waitUntil("prefsd to serve \(socketPath): \(log)", timeout: .seconds(20)) {
            guard process.isRunning else { throw TestFailure("prefsd exited: \(log)") }
            return FileManager.default.fileExists(atPath: socketPath)
        }
    }

    /// Stops prefsd with SIGTERM.
    func stop() {
        process?.terminate()
        process = nil
    }

    /// Everything every run of prefsd logged.
    var log: String {
        logs.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n--- restart\n")
    }

    /// The values of a fleet cache file (`forced` or `default`), or `nil` when it does not exist.
    func cached(_ kind: String, _ domain: String) -> PlistDictionary? {
        guard let data = FileManager.default.contents(atPath: preferences + "/Fleet/\(kind)/\(domain).plist") else {
            return nil
        }
        return try? PlistSerialization.decode(Array(data)).dictionaryValue
    }

    /// Waits until the cache holds `value` (nil: not the key) for `key`.
    func waitForCached(
        _ kind: String, _ domain: String, _ key: String, _ value: PlistValue?, timeout: Duration = .seconds(20)
    ) throws {
        try waitUntil(
            "\(kind) \(domain) \(key) = \(value.map { "\($0)" } ?? "nil") on host \(machineID) (cached: "
                + "\(cached(kind, domain).map { "\(PlistValue.dictionary($0))" } ?? "nothing")); log: \(log)",
            timeout: timeout
        ) { cached(kind, domain)?[key] == value }
    }

    /// Runs `defaults` as this host's user (through its prefsd when it runs).
    @discardableResult
    func defaults(_ arguments: [String]) throws -> BuiltProduct.Result {
        try Self.defaults.run(arguments, environment: environment)
    }

    /// The value of `key` in the user domain `domain` as `defaults read` prints it (through prefsd when it runs, else
    /// from the files), or `nil` when the key is absent.
    func read(_ domain: String, _ key: String) throws -> String? {
        let result = try defaults(["read", domain, key])
        return result.status == 0 ? result.standardOutput.trimmingCharacters(in: .newlines) : nil
    }
}
