// SPDX-License-Identifier: Apache-2.0
public import Logging
import NIOCore
import NIOPosix
import PrefsPOSIX
public import PrefsStore
public import PrefsSystemd
import PrefsWire
public import ServiceLifecycle
import Synchronization

/// The daemon's server: a SwiftNIO server on a Unix socket that serves the preferences of one store to its
/// clients, as a swift-service-lifecycle `Service`.
///
/// It adopts the socket systemd passed (socket activation) or binds its own (see ``DaemonConfiguration``), checks
/// every peer's uid with `SO_PEERCRED` (the daemon's own uid and root are served), limits connections, reports
/// `READY=1` and `STATUS=` to systemd, and on graceful shutdown sends `STOPPING=1`, lets every connection finish
/// the request it is performing, tells it `shuttingDown` and closes it. A socket-activated server with an idle
/// delay returns from ``run()`` after that long without clients (the `ServiceGroup` then shuts down).
///
/// The store is flushed by ``StoreFlushService``, which a `ServiceGroup` shuts down after this service.
public final class DaemonServer: Service, Sendable {
    private let configuration: DaemonConfiguration
    private let shared: DaemonShared
    private let notifier: SystemdNotifier
    private let activatedSocket: SocketActivation.ListeningSocket?
    private let logger: Logger
    private let group: any EventLoopGroup
    private let state = Mutex(State())

    /// A served connection, with what its handlers tell about its activity.
    private struct Connection {
        let channel: any Channel
        let activity: ConnectionActivity
    }

    private struct State {
        var listener: SocketListener?
        var serverChannel: (any Channel)?
        var connections: [ObjectIdentifier: Connection] = [:]
        /// Accepted connections, including those still being checked.
        var admitted = 0
        var lastActivity = ContinuousClock.now
        var isStopping = false
        var statusDirty = true
        /// What other services add to the status line (the fleet's state), or `nil`.
        var extraStatus: String?
        var lastStatus = ""
        /// Replaced by a reload of the settings.
        var idleExitDelay: Duration?
        /// The listening socket NIO serves a duplicate of: systemd's, or the one the server bound (then closed at
        /// stop).
        var listeningDescriptor: Int32?
        var ownsListeningDescriptor = false
        /// Accepting stopped because descriptors or memory ran out; it starts again after ``acceptPause``.
        var acceptPaused = false
        /// When an accept failure was last logged.
        var acceptFailureLogged: ContinuousClock.Instant?
        /// Descriptors held in reserve while accepting (``spareDescriptorCount``), closed when descriptors run out.
        var spareDescriptors: [Int32] = []
    }

    /// How long a connection must have been idle before it may be closed to make room for a new one.
    static let minimumIdleForEviction: TimeAmount = .seconds(1)

    /// How long the server stops accepting after an accept failed (descriptors or memory exhausted).
    static let acceptPause: TimeAmount = .milliseconds(250)

    /// How often an accept failure is logged at most, while accepts go on failing.
    static let acceptFailureLogInterval: Duration = .seconds(60)

    /// Descriptors the server holds in reserve while it accepts, and gives back when an accept finds none left.
    ///
    /// Accepting is what can use up the process's descriptors, and a process left with none fails in places that
    /// cannot wait: libdispatch, under Swift's tasks, opens `/proc/<thread>/stat` every second while work is queued,
    /// and crashes when that fails (`SIGILL`). So the accepts never take the last descriptors for long: when one fails
    /// for want of them, the reserve is closed at once, and listening starts again only once the reserve and two
    /// more descriptors can be opened.
    static let spareDescriptorCount = 8

    /// Creates a server; nothing happens until ``start()`` or ``run()``.
    /// - Parameters:
    ///   - configuration: Socket path, limits, idle delay, server name.
    ///   - store: The preferences served; the server is its only writer.
    ///   - activatedSocket: The socket systemd passed (`SocketActivation.listeningSocket()`), or `nil` to bind
    ///     ``DaemonConfiguration/socketPath``.
    ///   - notifier: Where `READY=1`, `STATUS=` and `STOPPING=1` go.
    ///   - logger: The server's logger.
    public convenience init(
        configuration: DaemonConfiguration, store: PreferencesStore,
        activatedSocket: SocketActivation.ListeningSocket? = nil, notifier: SystemdNotifier = SystemdNotifier(),
        logger: Logger
    ) {
        self.init(
            configuration: configuration, store: store, activatedSocket: activatedSocket, notifier: notifier,
            logger: logger, fleetStatus: nil)
    }

    /// Creates a server that answers `fleetStatus` from `fleetStatus` (`nil`: the daemon is in no fleet).
    init(
        configuration: DaemonConfiguration, store: PreferencesStore,
        activatedSocket: SocketActivation.ListeningSocket?, notifier: SystemdNotifier, logger: Logger,
        fleetStatus: FleetStatusBoard?
    ) {
        self.configuration = configuration
        self.notifier = notifier
        self.activatedSocket = activatedSocket
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup.singleton
        self.shared = DaemonShared(
            store: store,
            policy: ConnectionPolicy(
                limits: configuration.limits, idleTimeout: configuration.idleTimeout,
                frameTimeout: configuration.frameTimeout),
            serverName: configuration.serverName, logger: logger, threadPool: NIOThreadPool.singleton,
            fleetStatus: fleetStatus)
        state.withLock { $0.idleExitDelay = configuration.idleExitDelay }
    }

    /// Applies settings read again (`SIGHUP`): the limits and timeouts hold for connections accepted from now on
    /// (the connection count and the budget of incomplete frames at once), the idle exit delay at the next check.
    /// - Parameter settings: The new settings, already checked.
    public func apply(_ settings: DaemonSettings) {
        ensureDescriptors(for: settings.limits)
        shared.policy = ConnectionPolicy(
            limits: settings.limits, idleTimeout: settings.idleTimeout, frameTimeout: settings.frameTimeout)
        state.withLock { $0.idleExitDelay = settings.idleExitDelay }
    }

    /// Raises the descriptor limit to hold `maxConnections` connections besides the daemon's own descriptors (the
    /// listener, inotify, journald, files being written), and says so when the hard limit does not allow it.
    private func ensureDescriptors(for limits: WireLimits) {
        let needed = limits.maxConnections + Self.reservedDescriptors
        let available = DaemonSystem.raiseDescriptorLimit(toCover: needed)
        if available < needed {
            logger.warning(
                "the descriptor limit (\(available)) is below the \(needed) that maxConnections (\(limits.maxConnections)) needs; raise LimitNOFILE= or lower MaxConnections"
            )
        }
    }

    /// Descriptors kept for the daemon's own use besides its connections.
    static let reservedDescriptors = 64

    /// The path clients connect to: the activated socket's, or the configured one.
    public var socketPath: String { activatedSocket?.path ?? configuration.socketPath }

    /// The number of connected clients.
    public var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Serves until graceful shutdown (or, when socket-activated with an idle delay, until idle), then drains.
    /// - Throws: ``PrefsDaemonError`` when the socket cannot be bound or adopted.
    public func run() async throws {
        try await start()
        do {
            try notifier.ready(status: statusLine())
        } catch {
            logger.warning("cannot tell systemd the daemon is ready", metadata: ["error": "\(error)"])
        }
        logger.info("serving preferences", metadata: ["socket": "\(socketPath)"])
        await cancelWhenGracefulShutdown {
            await self.serveUntilIdle()
        }
        await stop()
    }

    /// Binds or adopts the socket and starts accepting connections.
    /// - Throws: ``PrefsDaemonError`` when the socket cannot be bound or adopted.
    public func start() async throws {
        ensureDescriptors(for: configuration.limits)
        _ = fillSpareDescriptors()
        if let activatedSocket {
            state.withLock { $0.listeningDescriptor = activatedSocket.descriptor }
            try await listen(adopting: activatedSocket.descriptor)
            return
        }
        let listener = try SocketListener.prepare(path: configuration.socketPath)
        let previousMask = configuration.socketCreationMask.map { DaemonSystem.setFileCreationMask($0) }
        let descriptor: Int32
        do {
            // Bound here, not by NIO, so that NIO serves a duplicate and accepting can stop and start again with the
            // socket (and the connections waiting in its backlog) kept open.
            descriptor = try DaemonSystem.listeningSocket(path: listener.path, backlog: 4096)
            if let previousMask { DaemonSystem.setFileCreationMask(previousMask) }
        } catch {
            if let previousMask { DaemonSystem.setFileCreationMask(previousMask) }
            listener.release()
            throw PrefsDaemonError(
                .bindFailed, "cannot listen on \(listener.path)", path: listener.path, cause: error)
        }
        state.withLock {
            $0.listener = listener
            $0.listeningDescriptor = descriptor
            $0.ownsListeningDescriptor = true
        }
        do {
            try await listen(adopting: descriptor)
        } catch {
            POSIX.closeDescriptor(descriptor)
            listener.release()
            throw PrefsDaemonError(
                .bindFailed, "cannot listen on \(listener.path)", path: listener.path, cause: error)
        }
    }

    /// Stops accepting, lets every connection finish its request in progress, closes them with `shuttingDown`,
    /// and removes the socket the server bound. Sends `STOPPING=1` first.
    public func stop() async {
        let (serverChannel, alreadyStopping) = state.withLock { state in
            defer { state.isStopping = true }
            return (state.serverChannel, state.isStopping)
        }
        guard !alreadyStopping else { return }
        do {
            try notifier.stopping(status: "stopping: finishing requests and writing every domain")
        } catch {
            logger.warning("cannot tell systemd the daemon is stopping", metadata: ["error": "\(error)"])
        }
        try? await serverChannel?.close()
        let connections = state.withLock { $0.connections.values.map(\.channel) }
        logger.info("stopping", metadata: ["clients": "\(connections.count)"])
        for channel in connections {
            channel.pipeline.fireUserInboundEventTriggered(ConnectionEvent.shutdown)
        }
        // A client that does not read cannot receive its closing event: close it anyway after the drain timeout.
        let drainTimeout = TimeAmount.nanoseconds(Int64(configuration.drainTimeout.components.seconds) * 1_000_000_000)
        for channel in connections {
            channel.eventLoop.scheduleTask(in: drainTimeout) { channel.close(promise: nil) }
        }
        for channel in connections {
            try? await channel.closeFuture.get()
        }
        let (listener, ownedDescriptor) = state.withLock { state in
            (state.listener, state.ownsListeningDescriptor ? state.listeningDescriptor : nil)
        }
        if let ownedDescriptor { POSIX.closeDescriptor(ownedDescriptor) }
        listener?.release()
        releaseSpareDescriptors()
    }

    // MARK: - Accepting

    private func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 4096)
            .serverChannelInitializer { [self] channel in
                // Out of descriptors, accept fails at once again and again: pause instead of spinning on it.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptFailureHandler { [self] error, channel in self.acceptFailed(error, on: channel) })
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [self] channel in
                self.initialize(channel)
            }
    }

    /// Starts serving a listening descriptor (systemd's, or the one the server bound); NIO gets a duplicate, so the
    /// original stays open for as long as the daemon runs (an idle exit may stop listening and start again).
    private func listen(adopting descriptor: Int32) async throws {
        let copy: Int32
        do {
            copy = try DaemonSystem.duplicate(descriptor)
        } catch {
            throw PrefsDaemonError(.activationFailed, "cannot use the socket systemd passed", cause: error)
        }
        let channel: any Channel
        do {
            channel = try await bootstrap().withBoundSocket(copy).get()
        } catch {
            POSIX.closeDescriptor(copy)
            throw PrefsDaemonError(
                .activationFailed, "cannot serve the socket systemd passed (descriptor \(descriptor))",
                cause: error)
        }
        let stopping = state.withLock { state in
            if !state.isStopping { state.serverChannel = channel }
            return state.isStopping
        }
        if stopping { try? await channel.close() }
    }

    /// An accept failed for want of descriptors or memory: stops accepting (the listening socket stays open, and
    /// connections wait in its backlog), logs it at most once a minute, and accepts again after ``acceptPause``.
    ///
    /// Accepting stops by turning the listening channel's `autoRead` off, which takes its socket out of the event
    /// loop's read interest; the channel itself stays open. Closing it instead would lose connections: those accepted
    /// in the same read whose set-up is still under way on another event loop are closed by NIO's accept handler when
    /// it finds its channel closed.
    private func acceptFailed(_ error: any Error, on channel: any Channel) {
        let (pause, log) = state.withLock { state -> (Bool, Bool) in
            let now = ContinuousClock.now
            let log = state.acceptFailureLogged.map { now - $0 >= Self.acceptFailureLogInterval } ?? true
            if log { state.acceptFailureLogged = now }
            guard !state.isStopping, !state.acceptPaused, state.serverChannel === channel else {
                return (false, log)
            }
            state.acceptPaused = true
            return (true, log)
        }
        if log {
            let milliseconds = Self.acceptPause.nanoseconds / 1_000_000
            logger.error(
                "cannot accept a connection; accepting again every \(milliseconds) ms until it works",
                metadata: ["error": "\(error)"])
        }
        guard pause else { return }
        releaseSpareDescriptors()
        do {
            try channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        } catch {
            // Only a closed channel refuses the option, and a closed channel accepts nothing either.
            logger.debug("cannot pause accepting", metadata: ["error": "\(error)"])
        }
        channel.eventLoop.scheduleTask(in: Self.acceptPause) { [self] in
            self.resumeAccepting(on: channel)
        }
    }

    /// Opens the reserve of descriptors and checks that two more are free besides; on failure closes what it opened.
    /// - Returns: Whether the reserve is full and descriptors are left over.
    private func fillSpareDescriptors() -> Bool {
        var opened: [Int32] = []
        while opened.count < Self.spareDescriptorCount + 2, let descriptor = DaemonSystem.openSpareDescriptor() {
            opened.append(descriptor)
        }
        guard opened.count == Self.spareDescriptorCount + 2 else {
            for descriptor in opened { POSIX.closeDescriptor(descriptor) }
            return false
        }
        // The last two only showed that there is room beyond the reserve.
        POSIX.closeDescriptor(opened.removeLast())
        POSIX.closeDescriptor(opened.removeLast())
        replaceSpareDescriptors(with: opened)
        return true
    }

    /// Closes the reserve of descriptors, so that the process has some while accepting is paused.
    private func releaseSpareDescriptors() {
        replaceSpareDescriptors(with: [])
    }

    /// Makes `descriptors` the reserve and closes the one it replaces.
    private func replaceSpareDescriptors(with descriptors: [Int32]) {
        var previous = descriptors
        state.withLock { swap(&$0.spareDescriptors, &previous) }
        for descriptor in previous { POSIX.closeDescriptor(descriptor) }
    }

    /// Accepts again after an accept pause, once the reserve of descriptors can be filled; tries again after
    /// ``acceptPause`` while it cannot. Runs on the listening channel's event loop.
    private func resumeAccepting(on channel: any Channel) {
        let current = state.withLock { !$0.isStopping && $0.serverChannel === channel }
        guard current, channel.isActive else {
            state.withLock { $0.acceptPaused = false }
            return
        }
        // Not while descriptors are this short: the accepts would take the last ones again.
        guard fillSpareDescriptors() else {
            channel.eventLoop.scheduleTask(in: Self.acceptPause) { [self] in
                self.resumeAccepting(on: channel)
            }
            return
        }
        state.withLock { $0.acceptPaused = false }
        do {
            try channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        } catch {
            logger.debug("cannot resume accepting", metadata: ["error": "\(error)"])
        }
    }

    /// The served connection to close to make room when the table is full: the one idle the longest, without
    /// subscriptions, idle for at least ``minimumIdleForEviction``; `nil` when there is none.
    private static func evictionCandidate(_ connections: [ObjectIdentifier: Connection]) -> (any Channel)? {
        let latest = NIODeadline.now() - minimumIdleForEviction
        let candidates = connections.values.filter {
            !$0.activity.holdsSubscriptions && $0.activity.lastProgressTime <= latest
        }
        for candidate in candidates.sorted(by: { $0.activity.lastProgressTime < $1.activity.lastProgressTime })
        where candidate.activity.choose() {
            return candidate.channel
        }
        return nil
    }

    private func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        let policy = shared.policy
        let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            state.lastActivity = .now
            guard !state.isStopping else { return (false, nil) }
            if state.admitted < policy.limits.maxConnections {
                state.admitted += 1
                return (true, nil)
            }
            guard let victim = Self.evictionCandidate(state.connections) else { return (false, nil) }
            state.admitted += 1
            return (true, victim)
        }
        evicted?.pipeline.fireUserInboundEventTriggered(ConnectionEvent.evict)
        guard admitted else {
            let limit = policy.limits.maxConnections
            let error =
                state.withLock { $0.isStopping }
                ? WireError(.shuttingDown, "prefsd is stopping; reconnect later")
                : WireError.limitExceeded(.maxConnections, value: limit, "connection \(limit + 1)")
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusingHandler(error))
            }
        }
        let identifier = ObjectIdentifier(channel)
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { state in
                state.connections[identifier] = nil
                state.admitted -= 1
                state.lastActivity = .now
                state.statusDirty = true
            }
        }
        let ownUser = POSIX.userID
        return DaemonSystem.peerCredentials(of: channel).flatMap { [self] credentials in
            channel.eventLoop.makeCompletedFuture {
                guard credentials.userID == ownUser || credentials.userID == 0 else {
                    logger.warning(
                        "refused a client of another user",
                        metadata: [
                            "prefs.client.pid": "\(credentials.processID)", "prefs.client.uid": "\(credentials.userID)",
                        ])
                    try channel.pipeline.syncOperations.addHandler(
                        RefusingHandler(
                            WireError(
                                .permissionDenied,
                                "prefsd serves \(ownUser == 0 ? "root" : "uid \(ownUser) and root") only; this "
                                    + "client runs as uid \(credentials.userID)")))
                    return
                }
                let activity = ConnectionActivity()
                state.withLock { state in
                    state.connections[identifier] = Connection(channel: channel, activity: activity)
                    state.statusDirty = true
                }
                try ConnectionPipeline.addHandlers(
                    to: channel.pipeline.syncOperations, shared: shared, policy: policy, activity: activity,
                    credentials: credentials)
            }
        }
    }

    // MARK: - Idle exit and status

    /// Keeps the status current; returns when a socket-activated server has been idle for its delay.
    private func serveUntilIdle() async {
        let tick: Duration = configuration.idleExitDelay.map { min($0 / 4, .seconds(1)) } ?? .seconds(1)
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return }
            updateStatus()
            guard let activatedSocket, let idleDelay = state.withLock({ $0.idleExitDelay }) else { continue }
            let isIdle = state.withLock { state in
                state.admitted == 0 && ContinuousClock.now - state.lastActivity >= idleDelay
            }
            guard isIdle else { continue }
            if await stopListeningIfIdle(activatedSocket.descriptor) {
                logger.info("exiting after \(idleDelay) without clients")
                return
            }
        }
    }

    /// Closes the listening channel when no client is connected or connecting; a client that slipped in while it
    /// closed is served, and listening starts again.
    /// - Returns: Whether the server stopped listening with no client.
    private func stopListeningIfIdle(_ descriptor: Int32) async -> Bool {
        guard !DaemonSystem.hasPendingConnection(descriptor), !state.withLock({ $0.acceptPaused }) else {
            return false
        }
        let channel = state.withLock { $0.serverChannel }
        try? await channel?.close()
        let stillIdle = state.withLock { $0.admitted == 0 }
        if stillIdle { return true }
        do {
            try await listen(adopting: descriptor)
        } catch {
            logger.error("cannot listen again after an idle check", metadata: ["error": "\(error)"])
            return true
        }
        return false
    }

    private func updateStatus() {
        let dirty = state.withLock { state in
            defer { state.statusDirty = false }
            return state.statusDirty
        }
        guard dirty else { return }
        let line = statusLine()
        let changed = state.withLock { state in
            defer { state.lastStatus = line }
            return state.lastStatus != line
        }
        guard changed else { return }
        do {
            try notifier.status(line)
        } catch {
            logger.debug("cannot send the status to systemd", metadata: ["error": "\(error)"])
        }
    }

    /// Sets what another service (the fleet's) adds to the `STATUS=` line; sent within a second.
    /// - Parameter text: One line, or `nil` to add nothing.
    public func setExtraStatus(_ text: String?) {
        state.withLock { state in
            if state.extraStatus != text {
                state.extraStatus = text
                state.statusDirty = true
            }
        }
    }

    /// `12 domains, 3 clients`, then what ``setExtraStatus(_:)`` set: `; fleet: …`.
    private func statusLine() -> String {
        let domains = (try? shared.store.domainNames(scope: .user).count) ?? 0
        let clients = connectionCount
        let extra = state.withLock { $0.extraStatus }
        return "\(domains) domain\(domains == 1 ? "" : "s"), \(clients) client\(clients == 1 ? "" : "s")"
            + (extra.map { "; " + $0 } ?? "")
    }
}

// The service group logs each service by its description; without one it would print the value by reflection (its
// stored properties) and build the type's name with the runtime's demangler, which loads libstdc++.
extension DaemonServer: CustomStringConvertible {
    /// The service's name in the daemon's log.
    public var description: String { "DaemonServer" }
}
