// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Synchronization
import Testing

@testable import PrefsStore

/// A Preferences directory tree in a temp dir, with a store on it.
final class StoreFixture: Sendable {
    let directory: TemporaryDirectory
    let paths: StorePaths
    let diagnostics = Mutex<[StoreDiagnostic]>([])

    static let machineID = "0123456789abcdef0123456789abcdef"

    init() throws {
        directory = try TemporaryDirectory(prefix: "prefs-store")
        paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: directory.file("system"),
            shippedDirectory: directory.file("domains"), machineID: Self.machineID,
            fleetDirectory: directory.file("prefs/Fleet"), homeDirectory: directory.path)
    }

    /// A store on the fixture's directories; diagnostics are collected in ``diagnostics``.
    func makeStore(
        flushDelay: Duration = .seconds(60), watchesFiles: Bool = true, limits: StoreLimits = .default
    )
        -> PreferencesStore
    {
        let configuration = StoreConfiguration(
            flushDelay: flushDelay, limits: limits, watchesFiles: watchesFiles, flushesAtExit: false,
            diagnostics: { [weak self] diagnostic in self?.diagnostics.withLock { $0.append(diagnostic) } })
        return PreferencesStore(paths: paths, configuration: configuration)
    }

    /// The path of a domain's file.
    func path(_ domain: DomainID) throws -> String {
        try paths.path(for: domain)
    }

    /// Writes a dictionary as a domain's file (creating directories), as an administrator or a package would.
    func install(_ values: PlistDictionary, as domain: DomainID, format: PlistFormat = .xml) throws {
        let path = try paths.path(for: domain)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try writeFile(path, try PlistSerialization.encode(.dictionary(values), format: format))
    }
}

/// A domain name known to be valid.
func name(_ text: String) -> DomainName {
    // Test names are literals; an invalid one is a bug in the test.
    try! DomainName(text)
}

func user(_ text: String) -> DomainID { DomainID(name(text)) }

/// Writes bytes to a file in place (as `echo > file` does).
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Writes bytes to a temp file beside `path` and renames it over `path` (as many editors save).
func writeFileByRename(_ path: String, _ bytes: [UInt8]) throws {
    let temporary = path + ".editor-save"
    try writeFile(temporary, bytes)
    guard rename(temporary, path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
}

func readBytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The dictionary in a plist file, decoded independently of the store.
func readDictionary(_ path: String) throws -> PlistDictionary {
    let value = try PlistSerialization.decode(try readBytes(path))
    return try #require(value.dictionaryValue)
}

func fileExists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
}

func directoryEntries(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

/// Collects the event batches an observer receives.
final class EventRecorder: Sendable {
    private let batches = Mutex<[[ChangeEvent]]>([])

    var handler: @Sendable ([ChangeEvent]) -> Void {
        { [self] events in batches.withLock { $0.append(events) } }
    }

    var events: [ChangeEvent] { batches.withLock { $0.flatMap { $0 } } }
    var batchSizes: [Int] { batches.withLock { $0.map(\.count) } }

    func clear() { batches.withLock { $0 = [] } }
}

/// File mode bits of a path.
func permissions(_ path: String) -> Int {
    var info = stat()
    guard lstat(path, &info) == 0 else { return -1 }
    return Int(info.st_mode & 0o777)
}

func string(_ value: PlistValue?) -> String? { value?.stringValue }

/// Sets a file's modification time a minute back, so the store takes it as finished rather than being written.
func backdate(_ path: String) {
    var times = [timespec(tv_sec: time(nil) - 60, tv_nsec: 0), timespec(tv_sec: time(nil) - 60, tv_nsec: 0)]
    utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
}
