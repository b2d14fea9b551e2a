import PrefsPlist
import PrefsWire
import Synchronization

/// An asynchronous client of `prefsd`: every operation of the protocol (docs/PROTOCOL.md), pipelined over one
/// connection, with subscriptions and automatic reconnection.
///
/// The client connects on first use (or ``connect()``) and says `hello`. Any number of tasks may call it at once;
/// their requests share the connection and are answered in the order sent. When the connection is lost (the
/// daemon restarted, say), the next request connects again, and every live subscription is renewed: it receives a
/// ``PrefsSubscription/Event/resync(_:)`` with a fresh snapshot. A request whose reply was lost with the
/// connection is sent once more on the new one, unless it is a compare-and-set write (its version means nothing to
/// a restarted daemon: read again, then retry).
///
/// ```swift
/// let client = PrefsClient()
/// try await client.set("dark", forKey: "Theme", in: WireDomain("com.example.app"))
/// let (theme, _) = try await client.value(forKey: "Theme", in: WireDomain("com.example.app"))
/// let subscription = try await client.subscribe(.init(.domain(WireDomain("com.example.app"))))
/// for await event in subscription { … }
/// ```
public final class PrefsClient: Sendable {
    /// How the client connects.
    public let configuration: PrefsClientConfiguration
    private let state = Mutex(State())

    private struct State {
        var connection: ClientConnection?
        var connecting: Task<ClientConnection, any Error>?
        var isClosed = false
        var sinks: [ObjectIdentifier: SubscriptionSink] = [:]
    }

    /// Creates a client; it connects on first use.
    /// - Parameter configuration: The socket, the name sent in `hello`, timeouts, reconnection.
    public init(configuration: PrefsClientConfiguration = PrefsClientConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        let (connection, sinks) = state.withLock { ($0.connection, Array($0.sinks.values)) }
        connection?.channel.close(promise: nil)
        for sink in sinks { sink.continuation.finish() }
    }

    /// Connects now (if not connected yet), so that a missing daemon is reported at once.
    /// - Returns: What the daemon answered to `hello`: the protocol version, its name, its limits.
    /// - Throws: ``PrefsClientError`` `daemonUnavailable` when no daemon answers.
    @discardableResult
    public func connect() async throws(PrefsClientError) -> WireHelloResult {
        try await liveConnection().hello
    }

    /// Closes the connection and ends every subscription; later requests fail with `closed`.
    public func close() async {
        let (connection, connecting, sinks) = state.withLock { state in
            state.isClosed = true
            defer {
                state.connection = nil
                state.connecting = nil
                state.sinks = [:]
            }
            return (state.connection, state.connecting, Array(state.sinks.values))
        }
        connecting?.cancel()
        await connection?.close()
        for sink in sinks { sink.continuation.finish() }
    }

    /// Sends one request and returns its result.
    /// - Parameter operation: Any operation but `hello` (the client says hello itself) and `subscribe` /
    ///   `unsubscribe` (use ``subscribe(_:)``).
    /// - Returns: The daemon's result.
    /// - Throws: ``PrefsClientError``: `refused` with the daemon's error, `daemonUnavailable`, `connectionLost`,
    ///   `timedOut`, `closed`.
    public func send(_ operation: WireOperation) async throws(PrefsClientError) -> WireResult {
        switch operation {
        case .hello, .subscribe, .unsubscribe:
            throw PrefsClientError(
                .refused, "\(operation.name) is sent by the client itself; use connect() or subscribe(_:)",
                serverError: WireError.badField("op", "is \(operation.name), which the client sends itself"))
        default:
            break
        }
        var attempt = 0
        while true {
            let connection = try await liveConnection()
            do {
                return try await connection.request(operation, timeout: configuration.requestTimeout)
            } catch {
                attempt += 1
                guard error.code == .connectionLost, configuration.reconnects, attempt < 2,
                    Self.isSafeToRepeat(operation)
                else { throw error }
                forget(connection)
            }
        }
    }

    /// Subscribes to a domain's values or an application's effective values.
    /// - Parameter filter: What to watch: a domain or search list, and all keys, one key, or a prefix.
    /// - Returns: The snapshot and the events after it.
    /// - Throws: ``PrefsClientError``, e.g. `refused` with `invalidName` or `limitExceeded` (`maxSubscriptions`).
    public func subscribe(_ filter: WireSubscriptionFilter) async throws(PrefsClientError) -> PrefsSubscription {
        let (stream, continuation) = AsyncStream.makeStream(of: PrefsSubscription.Event.self)
        let sink = SubscriptionSink(filter: filter, continuation: continuation)
        var attempt = 0
        while true {
            let connection = try await liveConnection()
            do throws(PrefsClientError) {
                let result = try await connection.request(
                    .subscribe(filter), sink: sink, timeout: configuration.requestTimeout)
                guard case .subscribe(_, let snapshot) = result else {
                    throw PrefsClientError(.protocolViolation, "prefsd answered subscribe with a \(result.operation)")
                }
                let registered = state.withLock { state -> Bool in
                    guard !state.isClosed else { return false }
                    state.sinks[ObjectIdentifier(sink)] = sink
                    return true
                }
                guard registered else { throw PrefsClientError(.closed, "the client was closed") }
                // A reconnect between the reply and the registration above missed this sink: renew it now.
                if !connection.isActive { forget(connection) }
                continuation.onTermination = { [weak self] _ in
                    guard let self else { return }
                    Task { await self.cancel(sink) }
                }
                return PrefsSubscription(snapshot: snapshot, sink: sink, stream: stream, client: self)
            } catch {
                attempt += 1
                guard error.code == .connectionLost, configuration.reconnects, attempt < 2 else {
                    continuation.finish()
                    throw error
                }
                forget(connection)
            }
        }
    }

    /// Ends a subscription.
    func cancel(_ sink: SubscriptionSink) async {
        let (removed, connection) = state.withLock { state in
            (state.sinks.removeValue(forKey: ObjectIdentifier(sink)), state.connection)
        }
        guard removed != nil else { return }
        sink.continuation.finish()
        if let connection, connection.isActive, let serverID = sink.serverID.withLock({ $0 }) {
            _ = try? await connection.request(
                .unsubscribe(subscription: serverID), timeout: configuration.requestTimeout)
        }
    }

    // MARK: - Connection

    /// The current connection, connecting (and renewing subscriptions) when there is none.
    private func liveConnection() async throws(PrefsClientError) -> ClientConnection {
        let current = state.withLock { state in
            state.isClosed ? nil : state.connection.flatMap { $0.isActive ? $0 : nil }
        }
        if let current { return current }
        let task = try state.withLock { state throws(PrefsClientError) -> Task<ClientConnection, any Error> in
            guard !state.isClosed else { throw PrefsClientError(.closed, "the client was closed") }
            if let connection = state.connection {
                if connection.isActive {
                    return Task { connection }
                }
                guard configuration.reconnects else {
                    throw PrefsClientError(.connectionLost, "the connection to prefsd was lost")
                }
                state.connection = nil
            }
            if let connecting = state.connecting { return connecting }
            let connecting = Task { [configuration] () async throws -> ClientConnection in
                let connection = try await ClientConnection.open(configuration)
                try await self.renewSubscriptions(on: connection)
                return connection
            }
            state.connecting = connecting
            return connecting
        }
        do {
            let connection = try await task.value
            state.withLock { state in
                if state.connecting == task { state.connecting = nil }
                if !state.isClosed, state.connection == nil { state.connection = connection }
            }
            return connection
        } catch {
            state.withLock { state in
                if state.connecting == task { state.connecting = nil }
            }
            if let error = error as? PrefsClientError { throw error }
            throw PrefsClientError(.daemonUnavailable, "cannot connect to prefsd", cause: error)
        }
    }

    /// Subscribes every live subscription again on a new connection; each receives a resync.
    private func renewSubscriptions(on connection: ClientConnection) async throws(PrefsClientError) {
        let sinks = state.withLock { Array($0.sinks.values) }
        for sink in sinks {
            _ = try await connection.request(
                .subscribe(sink.filter), sink: sink, isRenewal: true, timeout: configuration.requestTimeout)
        }
    }

    /// Drops a connection that failed, so the next request connects again.
    private func forget(_ connection: ClientConnection) {
        state.withLock { state in
            if state.connection === connection { state.connection = nil }
        }
        connection.channel.close(promise: nil)
    }

    /// Whether an operation may be sent again after its reply was lost: everything but compare-and-set writes
    /// (a repeated write stores the same values again).
    private static func isSafeToRepeat(_ operation: WireOperation) -> Bool {
        switch operation {
        case .set(_, _, _, let expected), .setMany(_, _, _, let expected), .remove(_, _, let expected),
            .writeDomain(_, _, let expected), .removeDomain(_, let expected):
            expected == nil
        default:
            true
        }
    }
}
