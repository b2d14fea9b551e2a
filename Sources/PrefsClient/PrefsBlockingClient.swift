// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
public import PrefsWire
import Synchronization

/// A synchronous client of `prefsd` on one connection, for command-line tools and synchronous APIs: no event
/// loop, no threads of its own (``subscribe(_:handler:)`` starts one reader thread per subscription).
///
/// Calls are serialised: each sends one request and waits for its reply. A connection that breaks stays broken;
/// open a new client (command-line tools live shorter than a daemon restart).
public final class PrefsBlockingClient: Sendable {
    /// What the daemon answered to `hello`.
    public let hello: WireHelloResult
    /// The socket this client is connected to.
    public let socketPath: String
    private let timeout: Duration?
    private let handshakeTimeout: Duration?
    private let connection: Mutex<Connection>
    /// The result of the read sent with `hello`, until taken.
    private let firstResult: Mutex<Result<WireResult, PrefsClientError>?>

    /// How long a client waits, by default, for the answer to `hello` before it looks at the daemon's process: one
    /// that is stopped (`SIGSTOP`, a debugger) or gone is given up at once, one that runs is waited for as long as
    /// any reply. Nothing but the greeting has been sent, so a caller may safely go elsewhere.
    public static let defaultHandshakeTimeout: Duration = .seconds(1)

    private struct Connection: ~Copyable {
        let descriptor: Int32
        var decoder = WireFrameDecoder(limits: .default)
        var nextID: UInt64 = 1
        var failure: PrefsClientError?

        /// Sends a request and reads until its reply; events on the way are dropped (this connection has no
        /// subscriptions).
        /// - Parameters:
        ///   - timeout: How long to wait for each read of the reply; `nil` waits for ever.
        ///   - patience: For `hello`: after each `patience.slice` without a reply, the call times out if the daemon's
        ///     process is stopped, and waits on (up to `timeout` in all) while it runs.
        ///   - next: A read sent in the same write, whose reply ``reply(to:of:timeout:)`` reads (id + 1).
        mutating func call(
            _ operation: WireOperation, timeout: Duration?,
            patience: Patience? = nil, pipelining next: WireOperation? = nil
        ) throws(PrefsClientError) -> WireReply {
            if let failure { throw failure }
            do throws(PrefsClientError) {
                let id = nextID
                nextID &+= 1
                var frame = try Self.frame(operation, id: id)
                if let next {
                    frame += try Self.frame(next, id: nextID)
                    nextID &+= 1
                }
                try ClientSystem.writeAll(descriptor, frame)
                return try receive(id, of: operation, timeout: timeout, patience: patience)
            } catch {
                note(error)
                throw error
            }
        }

        /// Reads the reply to a request sent earlier in the same write (``call(_:timeout:patience:pipelining:)``).
        mutating func reply(
            to id: UInt64, of operation: WireOperation, timeout: Duration?
        ) throws(PrefsClientError)
            -> WireReply
        {
            if let failure { throw failure }
            do throws(PrefsClientError) {
                return try receive(id, of: operation, timeout: timeout, patience: nil)
            } catch {
                note(error)
                throw error
            }
        }

        /// A request's frame.
        private static func frame(_ operation: WireOperation, id: UInt64) throws(PrefsClientError) -> [UInt8] {
            do {
                return try WireFrame.encode(WireRequest(id: id, operation).dictionary)
            } catch {
                throw PrefsClientError(
                    .refused, "the request cannot be sent: \(error.message)", serverError: error.wireError)
            }
        }

        /// A request the daemon refused leaves the connection usable; anything else breaks it.
        private mutating func note(_ error: PrefsClientError) {
            if error.code != .refused || error.message.hasPrefix("prefsd closed") { failure = error }
        }

        /// Reads until the reply to request `id`; events on the way are dropped.
        private mutating func receive(
            _ id: UInt64, of operation: WireOperation, timeout: Duration?, patience: Patience?
        ) throws(PrefsClientError) -> WireReply {
            let deadline = timeout.map { ContinuousClock.now + $0 }
            while true {
                let message: WireServerMessage
                do throws(PrefsClientError) {
                    message = try Self.nextMessage(
                        descriptor, &decoder, timeout: timeout, patience: patience, deadline: deadline)
                } catch  where error.code == .connectionLost || error.code == .timedOut {
                    // The whole request is out: the daemon may have applied it before the connection ended.
                    throw PrefsClientError(
                        .outcomeUnknown,
                        "\(error.message) after request \(id) (\(operation.name)) was sent; it may or may not "
                            + "have been applied", cause: error)
                }
                switch message {
                case .reply(let reply):
                    guard reply.id == id else {
                        throw PrefsClientError(.protocolViolation, "prefsd answered request \(reply.id), not \(id)")
                    }
                    return reply
                case .event(.closing(let error)):
                    // A daemon shutting down may have applied the request before it said so.
                    throw PrefsClientError(
                        error.code == .shuttingDown ? .outcomeUnknown : .refused,
                        "prefsd closed the connection: \(error.code): \(error.message)", serverError: error)
                case .event:
                    continue
                }
            }
        }

        /// The next whole message from the daemon.
        /// - Parameters:
        ///   - timeout: How long each read may wait; `nil` for ever.
        ///   - patience: Reads wait one slice at a time, and go on only while the daemon's process runs, up to
        ///     `deadline`.
        ///   - deadline: When a patient read gives up.
        static func nextMessage(
            _ descriptor: Int32, _ decoder: inout WireFrameDecoder, timeout: Duration?,
            patience: Patience? = nil, deadline: ContinuousClock.Instant? = nil
        ) throws(PrefsClientError) -> WireServerMessage {
            while true {
                let frame: PlistDictionary?
                do {
                    frame = try decoder.nextFrame()
                } catch {
                    throw PrefsClientError(.protocolViolation, "prefsd sent a bad frame: \(error)")
                }
                if let frame {
                    do {
                        return try WireServerMessage(dictionary: frame)
                    } catch {
                        throw PrefsClientError(
                            .protocolViolation, "prefsd sent a message this client cannot read: \(error.message)")
                    }
                }
                let bytes: [UInt8]
                if let patience {
                    bytes = try patientRead(descriptor, patience: patience, deadline: deadline)
                } else {
                    bytes = try ClientSystem.readSome(descriptor, timeout: timeout)
                }
                guard !bytes.isEmpty else {
                    throw PrefsClientError(.connectionLost, "prefsd closed the connection")
                }
                do {
                    try decoder.append(bytes)
                } catch {
                    throw PrefsClientError(.protocolViolation, "prefsd sent a bad frame: \(error)")
                }
            }
        }

        /// Reads what is available, one slice at a time, while the daemon's process runs and the deadline has not
        /// passed.
        private static func patientRead(
            _ descriptor: Int32, patience: Patience, deadline: ContinuousClock.Instant?
        ) throws(PrefsClientError) -> [UInt8] {
            while true {
                let remaining = deadline.map { $0 - .now }
                let slice = remaining.map { min(max($0, .zero), patience.slice) } ?? patience.slice
                do throws(PrefsClientError) {
                    return try ClientSystem.readSome(descriptor, timeout: slice)
                } catch  where error.code == .timedOut {
                    if let remaining, remaining <= slice { throw error }
                    if let pid = patience.stoppedPeer(descriptor) {
                        let waited = patience.slice.seconds
                        throw PrefsClientError(
                            .timedOut, "nothing came within \(waited) s, and its process \(pid) is stopped or gone")
                    }
                }
            }
        }
    }

    /// Connects and says hello.
    /// - Parameters:
    ///   - socketPath: The daemon's socket; by default the one this process's environment names.
    ///   - clientName: The name sent in `hello`, for the daemon's log.
    ///   - timeout: How long to wait for each reply; `nil` waits for ever.
    ///   - handshakeTimeout: How long to wait for the answer to `hello` before looking at the daemon's process
    ///     (``defaultHandshakeTimeout``): a stopped or vanished daemon is given up then, a running one is waited for
    ///     up to `timeout` (after each further `handshakeTimeout` the process is looked at again); `nil` waits
    ///     `timeout` without looking.
    /// - Throws: ``PrefsClientError`` `daemonUnavailable` when nothing answers on the socket, or the daemon does not
    ///   greet (the error's cause is then `timedOut`): it is stopped, or it did not answer within `timeout`. Nothing
    ///   but `hello` was sent, so the caller may safely go elsewhere.
    public convenience init(
        socketPath: String = PrefsClientConfiguration.defaultSocketPath(), clientName: String = "PrefsClient",
        timeout: Duration? = .seconds(30), handshakeTimeout: Duration? = PrefsBlockingClient.defaultHandshakeTimeout
    ) throws(PrefsClientError) {
        try self.init(
            socketPath: socketPath, clientName: clientName, timeout: timeout, handshakeTimeout: handshakeTimeout,
            reading: nil)
    }

    /// Connects, says hello, and sends a first read in the same write: the daemon performs a connection's requests
    /// in order and answers both at once, so the read costs no round trip of its own. Its result waits for
    /// ``takeFirstResult()``. A read changes nothing, so having sent it to a daemon that then fails to greet is as
    /// safe as having sent `hello` alone.
    /// - Parameter first: A read (`get`, `getEffective`, `readDomain`, `listDomains`, `fleetStatus`), or `nil`;
    ///   another operation is not sent.
    /// - Throws: As ``init(socketPath:clientName:timeout:handshakeTimeout:)``; the read's own failure is its result.
    package init(
        socketPath: String, clientName: String, timeout: Duration?, handshakeTimeout: Duration?,
        reading first: WireOperation?
    ) throws(PrefsClientError) {
        self.socketPath = socketPath
        self.timeout = timeout
        let greeting = Self.shorter(handshakeTimeout, timeout)
        self.handshakeTimeout = greeting
        let descriptor = try ClientSystem.connect(to: socketPath, timeout: timeout)
        var connection = Connection(descriptor: descriptor)
        let reply: WireReply
        let pipelined = first.flatMap(Self.isPipelinable)
        do {
            reply = try connection.call(
                .hello(WireHello(client: clientName)), timeout: timeout, patience: Self.patience(greeting),
                pipelining: pipelined)
        } catch {
            ClientSystem.closeDescriptor(descriptor)
            throw Self.greetingFailure(error, socketPath: socketPath)
        }
        guard case .success(.hello(let hello)) = reply.outcome else {
            ClientSystem.closeDescriptor(descriptor)
            if case .failure(let error) = reply.outcome { throw PrefsClientError.refused(error) }
            throw PrefsClientError(.protocolViolation, "prefsd answered hello with another result")
        }
        var firstResult: Result<WireResult, PrefsClientError>?
        if let pipelined {
            do throws(PrefsClientError) {
                let answer = try connection.reply(to: reply.id &+ 1, of: pipelined, timeout: timeout)
                switch answer.outcome {
                case .success(let result): firstResult = .success(result)
                case .failure(let error): firstResult = .failure(.refused(error))
                }
            } catch {
                firstResult = .failure(error)
            }
        }
        self.hello = hello
        self.connection = Mutex(connection)
        self.firstResult = Mutex(firstResult)
    }

    /// The daemon's process (`SO_PEERCRED`), or `nil` when it is not visible (another pid namespace).
    package var daemonProcessID: Int32? {
        connection.withLock { ClientSystem.peerProcessID($0.descriptor) }
    }

    /// The operation itself when it may go out with `hello`: a read, which changes nothing.
    private static func isPipelinable(_ operation: WireOperation) -> WireOperation? {
        switch operation {
        case .get, .getEffective, .readDomain, .listDomains, .fleetStatus: operation
        case .hello, .set, .setMany, .remove, .writeDomain, .removeDomain, .synchronize, .subscribe, .unsubscribe: nil
        }
    }

    /// The result of the read sent with `hello` (``init(socketPath:clientName:timeout:handshakeTimeout:reading:)``),
    /// once; `nil` when there was none or it was taken.
    package func takeFirstResult() -> Result<WireResult, PrefsClientError>? {
        firstResult.withLock { result in
            defer { result = nil }
            return result
        }
    }

    deinit {
        connection.withLock { ClientSystem.closeDescriptor($0.descriptor) }
    }

    /// The shorter of two timeouts, `nil` standing for none.
    private static func shorter(_ first: Duration?, _ second: Duration?) -> Duration? {
        guard let first else { return second }
        guard let second else { return first }
        return min(first, second)
    }

    /// How a read waits for `hello`: a slice at a time, asking after each whether the daemon's process is stopped.
    struct Patience {
        /// How long each wait lasts.
        var slice: Duration
        /// The daemon's pid when its process is stopped or gone (given the connection), else `nil`.
        var stoppedPeer: (Int32) -> Int32?
    }

    /// How long `hello` waits: a slice of `handshakeTimeout` at a time, and longer only while the daemon's process
    /// runs, so a daemon that is stopped (or gone) costs one slice and a busy one is waited for.
    private static func patience(_ handshakeTimeout: Duration?) -> Patience? {
        handshakeTimeout.map { Patience(slice: $0, stoppedPeer: ClientSystem.stoppedPeer) }
    }

    /// The error for a `hello` that failed: nothing but the greeting was sent, so a daemon that does not answer it
    /// in time (or closes the connection) is simply unavailable.
    private static func greetingFailure(_ error: PrefsClientError, socketPath: String) -> PrefsClientError {
        guard error.code == .outcomeUnknown else { return error }
        if let cause = error.cause as? PrefsClientError, cause.code == .timedOut {
            return PrefsClientError(.daemonUnavailable, "prefsd on \(socketPath) did not answer hello", cause: cause)
        }
        return PrefsClientError(
            .daemonUnavailable, "prefsd on \(socketPath) did not answer hello: \(error.message)", cause: error)
    }

    /// Sends one request and waits for its result.
    /// - Parameter operation: Any operation but `hello`, `subscribe` and `unsubscribe`.
    /// - Throws: ``PrefsClientError``: `refused` with the daemon's error, `connectionLost`, `timedOut`.
    public func send(_ operation: WireOperation) throws(PrefsClientError) -> WireResult {
        switch operation {
        case .hello, .subscribe, .unsubscribe:
            throw PrefsClientError(
                .refused, "\(operation.name) is sent by the client itself; use subscribe(_:handler:)",
                serverError: WireError.badField("op", "is \(operation.name), which the client sends itself"))
        default:
            break
        }
        let timeout = self.timeout
        let reply = try connection.withLock { connection throws(PrefsClientError) in
            try connection.call(operation, timeout: timeout)
        }
        switch reply.outcome {
        case .success(let result): return result
        case .failure(let error): throw PrefsClientError.refused(error)
        }
    }

    /// A running subscription (or group of subscriptions) of a blocking client: a connection of its own and the
    /// thread that reads it.
    public final class Subscription: Sendable {
        /// The values when each subscription started, in the order of the filters.
        public let snapshots: [WireSnapshot]
        private let socket: SubscriptionSocket
        private let stopped = Atomic<Bool>(false)
        private let reader = Mutex<SubscriptionReader?>(nil)

        /// The values when the (first) subscription started.
        public var snapshot: WireSnapshot { snapshots[0] }

        init(snapshots: [WireSnapshot], socket: SubscriptionSocket) {
            self.snapshots = snapshots
            self.socket = socket
        }

        /// Stops the subscriptions; the handler is not called after the reader thread notices, at once.
        public func cancel() {
            guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
            socket.shutdown()
        }

        var isCancelled: Bool { stopped.load(ordering: .acquiring) }

        /// Starts delivering events, for a subscription made with `startsReading: false` (so that the caller could
        /// first install its snapshots); calling it again does nothing.
        public func start() {
            guard
                let reader = reader.withLock({ reader in
                    defer { reader = nil }; return reader
                })
            else { return }
            ClientSystem.startThread { reader.run() }
        }

        fileprivate func setReader(_ reader: SubscriptionReader) {
            self.reader.withLock { $0 = reader }
        }

        deinit {
            cancel()
            // A reader that never started never closes the socket: close it here.
            if reader.withLock({ $0 }) != nil { socket.close() }
        }
    }

    /// Subscribes on a connection of its own; `handler` receives the events on a reader thread, in order, and
    /// `nil` once when the connection ends (the daemon stopped, or ``Subscription/cancel()``).
    /// - Parameters:
    ///   - filter: What to watch.
    ///   - handler: Receives each event.
    /// - Returns: The subscription, with its snapshot.
    /// - Throws: ``PrefsClientError`` when the subscription cannot be made.
    public func subscribe(
        _ filter: WireSubscriptionFilter, handler: @escaping @Sendable (PrefsSubscription.Event?) -> Void
    ) throws(PrefsClientError) -> Subscription {
        try subscribe([filter]) { _, event in handler(event) }
    }

    /// Subscribes to several filters on one connection of its own, read by one thread; `handler` receives each
    /// event with the index of its filter, in order, and `(0, nil)` once when the connection ends.
    ///
    /// The subscriptions are requested together; events that arrive before the last reply are kept and delivered
    /// first, so none falls between a snapshot and the reader.
    /// - Parameters:
    ///   - filters: What to watch; at least one.
    ///   - startsReading: Whether events are delivered at once; with `false`, from ``Subscription/start()`` on
    ///     (nothing is lost meanwhile).
    ///   - handler: Receives each event with its filter's index.
    /// - Returns: The subscriptions, with their snapshots in the order of `filters`.
    /// - Throws: ``PrefsClientError`` when a subscription cannot be made (then none is).
    public func subscribe(
        _ filters: [WireSubscriptionFilter], startsReading: Bool = true,
        handler: @escaping @Sendable (Int, PrefsSubscription.Event?) -> Void
    ) throws(PrefsClientError) -> Subscription {
        guard !filters.isEmpty else {
            throw PrefsClientError(.refused, "subscribe needs at least one filter", serverError: nil)
        }
        let descriptor = try ClientSystem.connect(to: socketPath, timeout: timeout)
        var connection = Connection(descriptor: descriptor)
        var snapshots: [WireSnapshot] = []
        var routes: [UInt64: Int] = [:]
        var early: [(Int, PrefsSubscription.Event)] = []
        do throws(PrefsClientError) {
            do throws(PrefsClientError) {
                _ = try connection.call(
                    .hello(WireHello(client: "PrefsBlockingClient subscription")), timeout: timeout,
                    patience: Self.patience(handshakeTimeout))
            } catch {
                throw Self.greetingFailure(error, socketPath: socketPath)
            }
            var frames: [UInt8] = []
            for (index, filter) in filters.enumerated() {
                do {
                    frames += try WireFrame.encode(WireRequest(id: UInt64(index), .subscribe(filter)).dictionary)
                } catch {
                    throw PrefsClientError(
                        .refused, "the request cannot be sent: \(error.message)", serverError: error.wireError)
                }
            }
            try ClientSystem.writeAll(descriptor, frames)
            while snapshots.count < filters.count {
                let message = try Connection.nextMessage(descriptor, &connection.decoder, timeout: timeout)
                switch message {
                case .reply(let reply):
                    switch reply.outcome {
                    case .success(.subscribe(let serverID, let snapshot)):
                        routes[serverID] = snapshots.count
                        snapshots.append(snapshot)
                    case .failure(let error): throw PrefsClientError.refused(error)
                    case .success(let other):
                        throw PrefsClientError(
                            .protocolViolation, "prefsd answered subscribe with a \(other.operation)")
                    }
                case .event(.closing(let error)):
                    throw PrefsClientError(
                        .connectionLost, "prefsd closed the connection: \(error.code): \(error.message)",
                        serverError: error)
                case .event(let event):
                    if let routed = SubscriptionReader.route(event, routes: routes) { early.append(routed) }
                }
            }
        } catch {
            ClientSystem.closeDescriptor(descriptor)
            throw error
        }
        let socket = SubscriptionSocket(descriptor)
        let subscription = Subscription(snapshots: snapshots, socket: socket)
        let reader = SubscriptionReader(
            socket: socket, decoder: connection.decoder, routes: routes, early: early,
            subscription: subscription, handler: handler)
        subscription.setReader(reader)
        if startsReading { subscription.start() }
        return subscription
    }
}

/// Reads one subscription connection on its own thread until it ends.
final class SubscriptionReader: @unchecked Sendable {
    // Used by the reader thread only, after the start.
    private let socket: SubscriptionSocket
    private var descriptor: Int32 { socket.descriptor }
    private var decoder: WireFrameDecoder
    private let routes: [UInt64: Int]
    private var early: [(Int, PrefsSubscription.Event)]
    private weak var subscription: PrefsBlockingClient.Subscription?
    private let handler: @Sendable (Int, PrefsSubscription.Event?) -> Void

    init(
        socket: SubscriptionSocket, decoder: WireFrameDecoder, routes: [UInt64: Int],
        early: [(Int, PrefsSubscription.Event)],
        subscription: PrefsBlockingClient.Subscription,
        handler: @escaping @Sendable (Int, PrefsSubscription.Event?) -> Void
    ) {
        self.socket = socket
        self.decoder = decoder
        self.routes = routes
        self.early = early
        self.subscription = subscription
        self.handler = handler
    }

    /// The filter index and client event of a server event, or `nil` for an event of no known subscription.
    static func route(_ event: WireEvent, routes: [UInt64: Int]) -> (Int, PrefsSubscription.Event)? {
        switch event {
        case .change(let id, let change, let origin): routes[id].map { ($0, .changes([change], origin: origin)) }
        case .batch(let id, let changes, let origin): routes[id].map { ($0, .changes(changes, origin: origin)) }
        case .resync(let id, let snapshot): routes[id].map { ($0, .resync(snapshot)) }
        case .closing: nil
        }
    }

    func run() {
        defer {
            handler(0, nil)
            socket.close()
        }
        for (index, event) in early { handler(index, event) }
        early = []
        while true {
            guard let message = try? nextMessage() else { return }
            if subscription?.isCancelled ?? true { return }
            switch message {
            case .event(.closing), .reply: return
            case .event(let event):
                if let (index, routed) = Self.route(event, routes: routes) { handler(index, routed) }
            }
        }
    }

    private func nextMessage() throws(PrefsClientError) -> WireServerMessage {
        while true {
            if let frame = try? decoder.nextFrame() {
                do {
                    return try WireServerMessage(dictionary: frame)
                } catch {
                    throw PrefsClientError(.protocolViolation, "\(error)")
                }
            }
            let bytes = try ClientSystem.readSome(descriptor, timeout: nil)
            guard !bytes.isEmpty else { throw PrefsClientError(.connectionLost, "closed") }
            do {
                try decoder.append(bytes)
            } catch {
                throw PrefsClientError(.protocolViolation, "\(error)")
            }
        }
    }
}

/// A subscription's socket, shut down by ``PrefsBlockingClient/Subscription/cancel()`` and closed by its reader thread
/// when it ends: both under one lock, so that a cancel after the close never shuts down a descriptor number the
/// process has since given to another socket.
final class SubscriptionSocket: Sendable {
    let descriptor: Int32
    private let isClosed = Mutex(false)

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Shuts the socket down (the reader then ends), unless it is closed already.
    func shutdown() {
        isClosed.withLock { closed in if !closed { ClientSystem.shutdownSocket(descriptor) } }
    }

    /// Closes the socket once.
    func close() {
        isClosed.withLock { closed in
            if !closed { ClientSystem.closeDescriptor(descriptor) }
            closed = true
        }
    }
}
