// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Synchronization
import Testing

/// A Preferences directory tree in a temp dir (user, system with forced/, shipped domains), a storage on it, and the
/// diagnostics it reports.
final class FacadeFixture: Sendable {
    let directory: TemporaryDirectory
    let storage: PreferencesStorage
    let log: ErrorLog

    static let machineID = "0123456789abcdef0123456789abcdef"

    var preferencesDirectory: String { directory.file("prefs") }
    var systemDirectory: String { directory.file("system") }
    var shippedDirectory: String { directory.file("domains") }

    /// The environment a child process needs to see the same directories.
    var environment: [String: String] {
        [
            "PREFERENCES_HOME": preferencesDirectory, "PREFERENCES_SYSTEM_DIR": systemDirectory,
            "PREFERENCES_DOMAINS_DIR": shippedDirectory,
        ]
    }

    init(flushDelay: Duration = .seconds(60)) throws {
        directory = try TemporaryDirectory(prefix: "prefs-facade")
        let log = ErrorLog()
        self.log = log
        storage = .directories(
            preferences: directory.file("prefs"), system: directory.file("system"), domains: directory.file("domains"),
            machineID: Self.machineID, flushDelay: flushDelay,
            diagnostics: { [log] error in log.append(error) })
    }

    /// Preferences of a domain on this fixture's storage.
    func preferences(_ domain: String = "com.example.App", suites: [String] = []) throws -> Preferences {
        try Preferences(domain: domain, suites: suites, storage: storage)
    }

    /// The file of a domain in a layer.
    func path(_ domain: String, _ scope: PreferenceScope) -> String {
        let stem = domain == "NSGlobalDomain" ? ".GlobalPreferences" : domain
        switch scope {
        case .user: return "\(preferencesDirectory)/\(stem).plist"
        case .byHost: return "\(preferencesDirectory)/ByHost/\(stem).\(Self.machineID).plist"
        case .system: return "\(systemDirectory)/\(stem).plist"
        case .forced: return "\(systemDirectory)/forced/\(stem).plist"
        case .shipped: return "\(shippedDirectory)/\(stem).plist"
        case .fleetForced: return "\(preferencesDirectory)/Fleet/forced/\(stem).plist"
        case .fleetDefault: return "\(preferencesDirectory)/Fleet/default/\(stem).plist"
        }
    }

    /// Writes a domain's file as an administrator, a package or another program would.
    func install(_ values: PlistDictionary, domain: String, scope: PreferenceScope) throws {
        let path = path(domain, scope)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(try PlistSerialization.encode(.dictionary(values), format: .xml)).write(to: URL(fileURLWithPath: path))
    }

    /// The dictionary in a domain's file, decoded independently of the library; `nil` when there is no file.
    func stored(_ domain: String, _ scope: PreferenceScope = .user) throws -> PlistDictionary? {
        let path = path(domain, scope)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let value = try PlistSerialization.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let dictionary: PlistDictionary = try #require(value.dictionaryValue)
        return dictionary
    }

    /// What the storage reported to its diagnostics handler.
    var reported: [PreferencesError] { log.all }
}

/// Collects the errors a diagnostics handler receives.
final class ErrorLog: Sendable {
    private let errors = Mutex<[PreferencesError]>([])

    func append(_ error: PreferencesError) { errors.withLock { $0.append(error) } }
    var all: [PreferencesError] { errors.withLock { $0 } }
    var messages: [String] { all.map(\.description) }
}

/// Collects values a handler receives.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
