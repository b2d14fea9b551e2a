// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PrefsDaemon
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("prefsd settings and socket safety")
struct SettingsAndSocketTests {
    @Test("settings are read from the prefsd domain; bad values are named and replaced by defaults")
    func settings() {
        let good = DaemonSettings(values: [
            "FlushDelay": 0.25, "IdleExitSeconds": 30, "LogLevel": "debug", "MaxConnections": 10, "MaxKeyBytes": 64,
        ])
        #expect(good.flushDelay == .milliseconds(250))
        #expect(good.idleExitDelay == .seconds(30))
        #expect(good.logLevel == .debug)
        #expect(good.limits.maxConnections == 10)
        #expect(good.limits.maxKeyBytes == 64)
        #expect(good.warnings.isEmpty)
        #expect(DaemonSettings(values: ["IdleExitSeconds": 0]).idleExitDelay == nil)

        let bad = DaemonSettings(values: [
            "FlushDelay": "soon", "MaxConnections": 0, "LogLevel": "loud", "MaxDepth": 100_000_000,
            "IdleTimeoutSeconds": 0.01,
        ])
        #expect(bad.flushDelay == .seconds(1))
        #expect(bad.limits.maxConnections == WireLimits.default.maxConnections)
        #expect(bad.limits.maxDepth == WireLimits.default.maxDepth)
        #expect(bad.idleTimeout == .seconds(600))
        #expect(
            bad.warnings.sorted() == [
                "setting FlushDelay of domain prefsd is soon (string): it must be a number of seconds from 0.001 to "
                    + "3600; the default is used",
                "setting IdleTimeoutSeconds of domain prefsd is 0.01 (float): it must be 0 or a number of "
                    + "seconds from 0.1 to 86400; the default is used",
                "setting LogLevel of domain prefsd is loud (string): it must be one of trace, debug, info, notice, "
                    + "warning, error, critical; the default is used",
                "setting MaxConnections of domain prefsd is 0 (integer): it must be an integer from 1 to 65536; "
                    + "the default is used",
                "setting MaxDepth of domain prefsd is 100000000 (integer): it must be an integer from 1 to 200; "
                    + "the default is used",
            ])
    }

    @Test("every limit has its range in the one rule table that writes are checked against")
    func everyLimitHasARule() {
        #expect(DaemonSettings.limitRanges.count == WireLimit.allCases.count)
        for limit in WireLimit.allCases { #expect(DaemonSettings.limitRanges[limit] != nil, "\(limit)") }
    }

    @Test("the shipped Domains/prefsd.plist is what the daemon reads, and the user's value wins over it")
    func shippedSettings() throws {
        let directory = try TemporaryDirectory(prefix: "prefsd-settings")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let shipped = repository.appendingPathComponent("Domains").path
        let paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: shipped,
            machineID: nil)
        let defaults = DaemonSettings.load(paths: paths)
        #expect(defaults.warnings.isEmpty)
        #expect(defaults.flushDelay == .seconds(1))
        #expect(defaults.limits == .default)
        #expect(defaults.idleExitDelay == .seconds(60))
        try FileManager.default.createDirectory(atPath: directory.file("prefs"), withIntermediateDirectories: true)
        let user = try PlistSerialization.encode(["FlushDelay": 2], format: .xml)
        try Data(user).write(to: URL(fileURLWithPath: directory.file("prefs/prefsd.plist")))
        #expect(DaemonSettings.load(paths: paths).flushDelay == .seconds(2))
    }

    func serve(_ path: String) async throws -> DaemonServer {
        let directory = try TemporaryDirectory(prefix: "prefsd-store")
        let paths = StorePaths(
            preferencesDirectory: directory.path, systemDirectory: nil, shippedDirectory: nil, machineID: nil)
        let server = DaemonServer(
            configuration: DaemonConfiguration(socketPath: path, storePaths: paths),
            store: PreferencesStore(paths: paths, configuration: StoreConfiguration(flushesAtExit: false)),
            logger: TestDaemon.quietLogger)
        try await server.start()
        return server
    }

    func startError(_ path: String) async -> PrefsDaemonError? {
        do {
            let server = try await serve(path)
            await server.stop()
            return nil
        } catch {
            return error as? PrefsDaemonError
        }
    }

    @Test("the socket directory is created 0700; a second daemon, an unsafe directory, a non-socket are refused")
    func socketDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "prefsd-socket")
        let path = directory.file("run/socket")
        let server = try await serve(path)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("run"))
        #expect((attributes[.posixPermissions] as? Int) == 0o700)

        let second = await startError(path)
        #expect(second?.code == .socketInUse)
        #expect(second?.message == "another prefsd serves \(path) (it holds \(path).lock)")
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: path))

        try FileManager.default.createDirectory(
            atPath: directory.file("open"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let open = await startError(directory.file("open/socket"))
        #expect(open?.code == .unsafeSocketDirectory)
        #expect(
            open?.message
                == "socket directory \(directory.file("open")) has mode 755; it must be 0700 (only its owner may enter it)"
        )

        #expect(FileManager.default.createFile(atPath: directory.file("run/file"), contents: Data("x".utf8)))
        let notSocket = await startError(directory.file("run/file"))
        #expect(notSocket?.code == .socketInUse)
        #expect(FileManager.default.fileExists(atPath: directory.file("run/file")))

        let long = await startError(directory.file("run/" + String(repeating: "s", count: 120)))
        #expect(long?.code == .bindFailed)
    }

    @Test("a stale socket left by a dead daemon is reclaimed")
    func staleSocket() async throws {
        let directory = try TemporaryDirectory(prefix: "prefsd-stale")
        let path = directory.file("socket")
        // A bound socket nobody listens on: what a killed daemon leaves behind.
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(descriptor)
        let server = try await serve(path)
        let connection = try WireTestConnection(path: path)
        try connection.hello()
        await server.stop()
    }
}
