// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
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
    private let eventDispatches = Mutex<[ObjectIdentifier: LoopEventDispatch]>([:])

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

    /// The hand-over of store events to the connections of `eventLoop`, made on first use.
    func eventDispatch(for eventLoop: any EventLoop) -> LoopEventDispatch {
        eventDispatches.withLock { dispatches in
            if let dispatch = dispatches[ObjectIdentifier(eventLoop)] { return dispatch }
            let dispatch = LoopEventDispatch(eventLoop: eventLoop)
            dispatches[ObjectIdentifier(eventLoop)] = dispatch
            return dispatch
        }
    }
}
