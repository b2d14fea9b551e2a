// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PrefsDaemon
import PrefsStore
import PrefsTestSupport
import Synchronization

/// A daemon in the test process on a temporary directory; restartable on the same socket and files.
final class ClientTestDaemon: Sendable {
    let directory: TemporaryDirectory
    let paths: StorePaths
    let socketPath: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "prefs-client")
        paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil,
            machineID: nil)
        socketPath = directory.file("run/socket")
    }

    func start() async throws -> DaemonServer {
        let store = PreferencesStore(
            paths: paths, configuration: StoreConfiguration(flushDelay: .milliseconds(20), flushesAtExit: false))
        let server = DaemonServer(
            configuration: DaemonConfiguration(socketPath: socketPath, storePaths: paths), store: store,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.start()
        return server
    }
}

/// What a subscription handler received, in order; a test waits for a number of events.
final class ReceivedEvents<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    private let arrived = DispatchSemaphore(value: 0)

    /// Records one event (call it from the handler).
    func append(_ event: Event) {
        events.withLock { $0.append(event) }
        arrived.signal()
    }

    /// Everything received so far.
    var all: [Event] { events.withLock { $0 } }

    /// Waits up to five seconds until `count` events in all have arrived; returns everything received.
    func wait(for count: Int) -> [Event] {
        let deadline = DispatchTime.now() + .seconds(5)
        while events.withLock({ $0.count }) < count, arrived.wait(timeout: deadline) == .success {}
        return all
    }
}
