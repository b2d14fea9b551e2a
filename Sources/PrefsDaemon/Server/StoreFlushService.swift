// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PrefsStore
public import ServiceLifecycle

/// Writes every domain durably when the daemon stops: a `Service` that waits for graceful shutdown, then
/// synchronizes the store.
///
/// List it before ``DaemonServer`` in the `ServiceGroup`: groups shut down in reverse order, so the server has
/// finished its last request when the flush starts.
public struct StoreFlushService: Service {
    private let store: PreferencesStore
    private let logger: Logger

    /// Creates the service.
    /// - Parameters:
    ///   - store: The store to flush.
    ///   - logger: Where a failed write is reported.
    public init(store: PreferencesStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Waits for graceful shutdown, then writes every changed domain; never throws.
    public func run() async throws {
        do { try await gracefulShutdown() } catch {}  // Cancelled: flush anyway, as the group goes away.
        do {
            try store.synchronize()
            logger.info("every domain is written")
        } catch {
            logger.error(
                "cannot write a domain at shutdown",
                metadata: ["error": "\(error)", "prefs.path": "\(error.path ?? "")"])
        }
    }
}

// The service group logs each service by its description; without one it would print the value by reflection (its
// stored properties) and build the type's name with the runtime's demangler, which loads libstdc++.
extension StoreFlushService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    public var description: String { "StoreFlushService" }
}
