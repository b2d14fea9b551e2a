import Logging
import NIOPosix
import PrefsStore
import PrefsWire

/// What every connection of one daemon shares: the store, the limits, the thread pool for blocking requests.
final class DaemonShared: Sendable {
    let store: PreferencesStore
    let requests: StoreRequests
    let limits: WireLimits
    let serverName: String
    let logger: Logger
    let threadPool: NIOThreadPool

    init(store: PreferencesStore, limits: WireLimits, serverName: String, logger: Logger, threadPool: NIOThreadPool) {
        self.store = store
        self.requests = StoreRequests(store: store)
        self.limits = limits
        self.serverName = serverName
        self.logger = logger
        self.threadPool = threadPool
    }
}
