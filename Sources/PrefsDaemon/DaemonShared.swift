import Logging
import NIOPosix
import PrefsStore
import PrefsWire
import Synchronization

/// What every connection of one daemon shares: the store, the connection policy (limits and timeouts, replaced on
/// a reload), the budget of incomplete frames, the encoded events, the thread pool for blocking requests.
final class DaemonShared: Sendable {
    let store: PreferencesStore
    let requests: StoreRequests
    let serverName: String
    let logger: Logger
    let threadPool: NIOThreadPool
    let frameBudget: FrameBudget
    /// The fleet state `fleetStatus` reports, or `nil` when the daemon is in no fleet.
    let fleetStatus: FleetStatusBoard?
    /// Encoded events, shared by the connections that send the same one.
    let eventFrames = EventFrameCache()
    private let currentPolicy: Mutex<ConnectionPolicy>

    init(
        store: PreferencesStore, policy: ConnectionPolicy, serverName: String, logger: Logger,
        threadPool: NIOThreadPool, fleetStatus: FleetStatusBoard? = nil
    ) {
        self.fleetStatus = fleetStatus
        self.store = store
        self.requests = StoreRequests(store: store)
        self.currentPolicy = Mutex(policy)
        self.frameBudget = FrameBudget(capacity: policy.limits.maxBufferedFrameBytes)
        self.serverName = serverName
        self.logger = logger
        self.threadPool = threadPool
    }

    /// The policy new connections are held to.
    var policy: ConnectionPolicy {
        get { currentPolicy.withLock { $0 } }
        set {
            currentPolicy.withLock { $0 = newValue }
            frameBudget.setCapacity(newValue.limits.maxBufferedFrameBytes)
        }
    }
}
