// SPDX-License-Identifier: Apache-2.0
public import Logging
public import ServiceLifecycle

/// A swift-service-lifecycle `Service` that keeps systemd's watchdog fed.
///
/// It sends `WATCHDOG=1` at once and then every ``SystemdNotifier/watchdogInterval`` (half of `WatchdogSec=`) until
/// graceful shutdown begins or its task is cancelled. When the watchdog is off (no `WatchdogSec=`, or not under
/// systemd) it sends nothing and simply waits for shutdown, because a service that returns early would, by
/// `ServiceGroup`'s default, end the whole group.
///
/// A `ServiceGroup` shuts its services down in reverse order, so list this service first: it then keeps pinging
/// while the services after it drain. (systemd itself stops enforcing the watchdog once the daemon sends
/// `STOPPING=1` or a stop is requested.)
public struct SystemdWatchdogService: Service {
    private let notifier: SystemdNotifier
    private let logger: Logger

    /// Creates the service.
    /// - Parameters:
    ///   - notifier: Where the pings go and how often; by default read from this process's environment.
    ///   - logger: Where a failed ping is reported (as a warning; the next ping is still attempted).
    public init(notifier: SystemdNotifier = SystemdNotifier(), logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    /// Pings until graceful shutdown or cancellation; never throws.
    public func run() async throws {
        guard notifier.isEnabled, let interval = notifier.watchdogInterval else {
            do { try await gracefulShutdown() } catch {}  // Cancelled: the group is going away anyway.
            return
        }
        logger.debug("systemd watchdog enabled", metadata: ["watchdog.interval": "\(interval)"])
        let notifier = self.notifier
        let logger = self.logger
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try notifier.watchdog()
                } catch {
                    logger.warning("cannot ping the systemd watchdog", metadata: ["error": "\(error)"])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}

// The service group logs each service by its description; without one it would print the value by reflection (its
// stored properties) and build the type's name with the runtime's demangler, which loads libstdc++.
extension SystemdWatchdogService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    public var description: String { "SystemdWatchdogService" }
}
