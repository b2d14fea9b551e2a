// SPDX-License-Identifier: Apache-2.0
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import PrefsSystemd

/// The watchdog service's life cycle in a `ServiceGroup`, in process. (Its pings are checked on a real
/// notification socket in `SystemdNotifierTests`, where the fixture owns its environment.)
@Suite struct SystemdWatchdogServiceTests {
    /// Returns after a delay, with graceful shutdown of the group as its success behaviour.
    struct Timer: Service {
        let delay: Duration
        func run() async throws { try await Task.sleep(for: delay) }
    }

    final class Flag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    @Test func offWatchdogKeepsTheGroupRunningUntilGracefulShutdown() async throws {
        let logger = Logger(label: "test")
        let watchdog = SystemdWatchdogService(
            notifier: SystemdNotifier(isEnabled: false, watchdogTimeout: nil), logger: logger)
        let stopAfter = Timer(delay: .milliseconds(300))
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: watchdog),
                    .init(service: stopAfter, successTerminationBehavior: .gracefullyShutdownGroup),
                ], logger: logger))
        let started = ContinuousClock.now
        try await group.run()
        // Had the idle watchdog returned at once, its default .cancelGroup behaviour would have ended the group
        // before the timer.
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test func offWatchdogEndsOnCancellation() async throws {
        let service = SystemdWatchdogService(
            notifier: SystemdNotifier(isEnabled: true, watchdogTimeout: nil), logger: Logger(label: "test"))
        let finished = Flag()
        let task = Task {
            try await service.run()
            finished.set()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!finished.isSet)
        task.cancel()
        try await task.value
        #expect(finished.isSet)
    }
}
