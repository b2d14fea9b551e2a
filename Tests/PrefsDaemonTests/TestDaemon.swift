// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PrefsDaemon
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire

/// A daemon served in the test process, on preferences in a temporary directory.
final class TestDaemon: Sendable {
    let directory: TemporaryDirectory
    let store: PreferencesStore
    let server: DaemonServer
    let socketPath: String
    let paths: StorePaths

    static let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    init(
        limits: WireLimits = .default, idleTimeout: Duration? = nil, frameTimeout: Duration = .seconds(30),
        directory: TemporaryDirectory? = nil
    ) async throws {
        let directory = try directory ?? TemporaryDirectory(prefix: "prefsd")
        self.directory = directory
        paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: directory.file("system"),
            shippedDirectory: directory.file("domains"), machineID: "0123456789abcdef0123456789abcdef")
        store = PreferencesStore(
            paths: paths,
            configuration: StoreConfiguration(
                flushDelay: .milliseconds(50),
                limits: StoreLimits(
                    maxKeyBytes: limits.maxKeyBytes, maxDomainBytes: limits.maxDomainBytes, maxDepth: limits.maxDepth),
                flushesAtExit: false, diagnostics: { _ in }))
        socketPath = directory.file("run/socket")
        server = DaemonServer(
            configuration: DaemonConfiguration(
                socketPath: socketPath, storePaths: paths, limits: limits, idleTimeout: idleTimeout,
                frameTimeout: frameTimeout),
            store: store, logger: Self.quietLogger)
        try await server.start()
    }

    /// A connection that said hello.
    func connect(hello: Bool = true) throws -> WireTestConnection {
        let connection = try WireTestConnection(path: socketPath)
        if hello { try connection.hello() }
        return connection
    }

    func stop() async {
        await server.stop()
    }
}
