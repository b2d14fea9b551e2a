import Logging
import NIOCore
import NIOPosix
import PrefsPOSIX
import PrefsStore
import PrefsSystemd
import PrefsWire
import ServiceLifecycle
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

    private struct State {
        var listener: SocketListener?
        var serverChannel: (any Channel)?
        var connections: [ObjectIdentifier: any Channel] = [:]
        /// Accepted connections, including those still being checked.
        var admitted = 0
        var lastActivity = ContinuousClock.now
        var isStopping = false
        var statusDirty = true
        var lastStatus = ""
    }

    /// Creates a server; nothing happens until ``start()`` or ``run()``.
    /// - Parameters:
    ///   - configuration: Socket path, limits, idle delay, server name.
    ///   - store: The preferences served; the server is its only writer.
    ///   - activatedSocket: The socket systemd passed (`SocketActivation.listeningSocket()`), or `nil` to bind
    ///     ``DaemonConfiguration/socketPath``.
    ///   - notifier: Where `READY=1`, `STATUS=` and `STOPPING=1` go.
    ///   - logger: The server's logger.
    public init(
        configuration: DaemonConfiguration, store: PreferencesStore,
        activatedSocket: SocketActivation.ListeningSocket? = nil, notifier: SystemdNotifier = SystemdNotifier(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.notifier = notifier
        self.activatedSocket = activatedSocket
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup.singleton
        self.shared = DaemonShared(
            store: store, limits: configuration.limits, serverName: configuration.serverName, logger: logger,
            threadPool: NIOThreadPool.singleton)
    }

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
        if let activatedSocket {
            try await listen(adopting: activatedSocket.descriptor)
            return
        }
        let listener = try SocketListener.prepare(path: configuration.socketPath)
        let previousMask = configuration.socketCreationMask.map { DaemonSystem.setFileCreationMask($0) }
        let channel: any Channel
        do {
            channel = try await bootstrap().bind(unixDomainSocketPath: listener.path).get()
            if let previousMask { DaemonSystem.setFileCreationMask(previousMask) }
        } catch {
            if let previousMask { DaemonSystem.setFileCreationMask(previousMask) }
            listener.release()
            throw PrefsDaemonError(
                .bindFailed, "cannot listen on \(listener.path)", path: listener.path, cause: error)
        }
        state.withLock {
            $0.listener = listener
            $0.serverChannel = channel
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
        let connections = state.withLock { Array($0.connections.values) }
        logger.info("stopping", metadata: ["clients": "\(connections.count)"])
        for channel in connections {
            channel.pipeline.fireUserInboundEventTriggered(ConnectionHandler.ShutdownEvent())
        }
        // A client that does not read cannot receive its closing event: close it anyway after the drain timeout.
        let drainTimeout = TimeAmount.nanoseconds(Int64(configuration.drainTimeout.components.seconds) * 1_000_000_000)
        for channel in connections {
            channel.eventLoop.scheduleTask(in: drainTimeout) { channel.close(promise: nil) }
        }
        for channel in connections {
            try? await channel.closeFuture.get()
        }
        state.withLock { $0.listener }?.release()
    }

    // MARK: - Accepting

    private func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 4096)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [self] channel in
                self.initialize(channel)
            }
    }

    /// Starts serving a listening descriptor systemd passed; NIO gets a duplicate, so the original stays open
    /// for as long as the daemon runs (an idle exit may stop listening and start again).
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
        state.withLock { $0.serverChannel = channel }
    }

    private func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        let admitted = state.withLock { state -> Bool in
            state.lastActivity = .now
            guard !state.isStopping, state.admitted < configuration.limits.maxConnections else { return false }
            state.admitted += 1
            return true
        }
        guard admitted else {
            let limit = configuration.limits.maxConnections
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
                state.withLock { state in
                    state.connections[identifier] = channel
                    state.statusDirty = true
                }
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(WireFrameChannelDecoder(limits: configuration.limits)))
                try channel.pipeline.syncOperations.addHandler(
                    ConnectionHandler(shared: shared, credentials: credentials))
            }
        }
    }

    // MARK: - Idle exit and status

    /// Keeps the status current; returns when a socket-activated server has been idle for its delay.
    private func serveUntilIdle() async {
        let idleDelay = activatedSocket == nil ? nil : configuration.idleExitDelay
        let tick: Duration = idleDelay.map { min($0 / 4, .seconds(1)) } ?? .seconds(1)
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return }
            updateStatus()
            guard let idleDelay, let activatedSocket else { continue }
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
        guard !DaemonSystem.hasPendingConnection(descriptor) else { return false }
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

    /// `12 domains, 3 clients`.
    private func statusLine() -> String {
        let domains = (try? shared.store.domainNames(scope: .user).count) ?? 0
        let clients = connectionCount
        return "\(domains) domain\(domains == 1 ? "" : "s"), \(clients) client\(clients == 1 ? "" : "s")"
    }
}
