import Dispatch
import PrefsClient
import PrefsPlist
import PrefsStore
import PrefsWire
import Synchronization

/// The backend that goes through `prefsd`: an in-memory engine is the local cache, kept coherent by the daemon's
/// subscriptions; every write is a request to the daemon, the single writer.
///
/// - ``prepare(_:)`` subscribes (on one connection per search list, with a reader thread) to each persistent domain
///   of a search list the first time it is used, fills the engine from the snapshot
///   (`PreferencesStore.setStoredContents`), and applies every event the same way; shipped domains, which the
///   daemon does not serve, are read from their files once.
/// - ``set(_:forKey:in:)`` sends the write and waits for the daemon's answer; a refusal changes nothing and throws.
///   On success the change is applied to the engine at once (read-your-writes; local observers fire), and stays on
///   top of the cache until the subscription delivers the daemon's version of the domain that includes it.
/// - ``synchronize()`` returns after the daemon's durable `synchronize`.
/// - ``resolve(_:in:)`` explains from the cache, with the daemon's file paths.
final class DaemonBackend: PreferencesBackend {
    let engine: PreferencesStore
    private let socketPath: String
    private let paths: StorePaths
    private let diagnostics: @Sendable (PreferencesError) -> Void
    private let state = Mutex(State())

    private struct Mirror {
        var values: [String: PlistValue]
        var sequence: UInt64
        /// The newest version this process wrote; until the subscription reaches it, local changes stay on top.
        var awaitedVersion: UInt64?
    }

    private struct State {
        var client: PrefsBlockingClient?
        var mirrors: [DomainID: Mirror] = [:]
        var subscriptions: [PrefsBlockingClient.Subscription] = []
        /// After a failed subscription, domains are not asked for again before this (and the failure is reported
        /// once), so a missing daemon costs one connection attempt a second, not one per read.
        var retryAfter: ContinuousClock.Instant?
    }

    init(
        socketPath: String, paths: StorePaths, configuration: StoreConfiguration,
        diagnostics: @escaping @Sendable (PreferencesError) -> Void
    ) {
        self.socketPath = socketPath
        self.paths = paths
        self.diagnostics = diagnostics
        self.engine = PreferencesStore.inMemory(configuration: configuration)
    }

    /// Whether the daemon answers on `socketPath` now.
    static func answers(socketPath: String) -> Bool {
        (try? PrefsBlockingClient(socketPath: socketPath, clientName: "Preferences probe", timeout: .seconds(2)))
            != nil
    }

    var description: String { "prefsd at \(socketPath)" }

    // MARK: - Cache

    func prepare(_ searchList: SearchList) {
        let missing = state.withLock { state -> [DomainID] in
            if let retryAfter = state.retryAfter, ContinuousClock.now < retryAfter { return [] }
            return searchList.domains.filter { state.mirrors[$0] == nil }
        }
        guard !missing.isEmpty else { return }
        var served: [(DomainID, WireDomain)] = []
        for domain in missing {
            if domain.scope == .shipped {
                loadShipped(domain)
            } else if let wire = Self.wireDomain(domain) {
                served.append((domain, wire))
            }
        }
        guard !served.isEmpty else { return }
        subscribe(served)
    }

    private func loadShipped(_ domain: DomainID) {
        let reader = PreferencesStore(
            paths: paths,
            configuration: StoreConfiguration(watchesFiles: false, flushesAtExit: false, diagnostics: { _ in }))
        let values = (try? reader.persistentDomain(domain)) ?? nil
        state.withLock { $0.mirrors[domain] = Mirror(values: values ?? [:], sequence: 0) }
        try? engine.setStoredContents(values ?? [:], of: domain)
    }

    /// Subscribes to the domains on one connection (one reader thread) and fills the cache from the snapshots.
    /// - Returns: Whether the subscription was made.
    @discardableResult
    private func subscribe(_ domains: [(DomainID, WireDomain)]) -> Bool {
        do throws(PrefsClientError) {
            let client = try connectedClient()
            let ids = domains.map(\.0)
            let filters = domains.map { WireSubscriptionFilter(.domain($0.1)) }
            let subscription = try client.subscribe(filters, startsReading: false) {
                [weak self] index, event in
                guard let self else { return }
                if let event {
                    self.apply(event, to: ids[index])
                } else {
                    for id in ids { self.apply(nil, to: id) }
                    self.resubscribeLater(domains)
                }
            }
            state.withLock { state in
                state.subscriptions.append(subscription)
                for (index, (domain, wire)) in domains.enumerated() {
                    let snapshot = subscription.snapshots[index]
                    state.mirrors[domain] = Mirror(values: snapshot.values, sequence: snapshot.sequence(of: wire) ?? 0)
                }
                state.retryAfter = nil
            }
            for (index, (domain, _)) in domains.enumerated() {
                // After a reconnect, this process's changes the daemon acknowledged are in the snapshot (or were
                // lost with a daemon that died before writing them): the daemon's values win.
                try? engine.synchronize(domain)
                try? engine.setStoredContents(subscription.snapshots[index].values, of: domain)
            }
            // Events (those that arrived meanwhile first) apply on top of the snapshots installed above.
            subscription.start()
            return true
        } catch {
            let firstFailure = state.withLock { state in
                defer { state.retryAfter = .now + .seconds(1) }
                return state.retryAfter == nil
            }
            if firstFailure {
                let names = domains.map { "\($0.0)" }.joined(separator: ", ")
                diagnostics(PreferencesError(.storeUnavailable, "cannot watch domains \(names) in prefsd: \(error)"))
            }
            return false
        }
    }

    /// Subscribes again, in the background, after the daemon went away: after 50 ms at first, then at most every
    /// second, until it answers (a restarted daemon, or systemd starting it again) or the backend is released. A cache
    /// that only reads is thereby kept current without waiting for the next write.
    private func resubscribeLater(_ domains: [(DomainID, WireDomain)], after delay: Int = 50) {
        // A Dispatch queue, not a task: the process's Swift concurrency threads may all be busy (or blocked).
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
            guard let self else { return }
            let missing = self.state.withLock { state in domains.filter { state.mirrors[$0.0] == nil } }
            if missing.isEmpty || self.subscribe(missing) { return }
            self.resubscribeLater(domains, after: min(delay * 2, 1000))
        }
    }

    /// Applies one subscription event (or the end of the subscription) to the cache.
    private func apply(_ event: PrefsSubscription.Event?, to domain: DomainID) {
        guard let event else {
            // The daemon went away: the cache keeps what it had, and the next use subscribes again.
            state.withLock { state in
                state.mirrors[domain] = nil
                state.client = nil
            }
            return
        }
        let (values, reachedAwaited) = state.withLock { state -> ([String: PlistValue]?, Bool) in
            guard var mirror = state.mirrors[domain] else { return (nil, false) }
            switch event {
            case .changes(let changes, _):
                for change in changes where change.sequence > mirror.sequence {
                    mirror.values[change.key] = change.new
                    mirror.sequence = change.sequence
                }
            case .resync(let snapshot):
                mirror.values = snapshot.values
                mirror.sequence = snapshot.sequences.first?.sequence ?? mirror.sequence
            }
            var reached = false
            if let awaited = mirror.awaitedVersion, mirror.sequence >= awaited {
                mirror.awaitedVersion = nil
                reached = true
            }
            state.mirrors[domain] = mirror
            return (mirror.values, reached)
        }
        guard let values else { return }
        // Local changes the daemon now includes are dropped first, so that the daemon's values (which may hold an
        // even newer change by another process) win.
        if reachedAwaited { try? engine.synchronize(domain) }
        try? engine.setStoredContents(values, of: domain, origin: .external)
    }

    // MARK: - Writes

    func set(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsStoreError) {
        let wire = try Self.writableWireDomain(domain)
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        let operation: WireOperation =
            value.map { .set(wire, key: key, value: $0, expectedVersion: nil) }
            ?? .remove(wire, key: key, expectedVersion: nil)
        let version = try versionOfWrite(operation, domain: domain)
        try engine.set(value, forKey: key, in: domain)
        keepLocalChange(until: version, of: domain)
    }

    func persistentDomain(_ domain: DomainID) throws(PrefsStoreError) -> [String: PlistValue]? {
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        return try engine.persistentDomain(domain)
    }

    func setPersistentDomain(_ values: [String: PlistValue], for domain: DomainID) throws(PrefsStoreError) {
        let wire = try Self.writableWireDomain(domain)
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        let version = try versionOfWrite(.writeDomain(wire, values: values, expectedVersion: nil), domain: domain)
        try engine.setPersistentDomain(values, for: domain)
        keepLocalChange(until: version, of: domain)
    }

    func resolve(_ key: String, in searchList: SearchList) -> Resolution {
        prepare(searchList)
        var resolution = engine.resolve(key, in: searchList)
        func withPath(_ candidate: Resolution.Candidate) -> Resolution.Candidate {
            var candidate = candidate
            if case .domain(let id) = candidate.layer { candidate.path = try? paths.path(for: id) }
            return candidate
        }
        resolution.winner = resolution.winner.map(withPath)
        resolution.shadowed = resolution.shadowed.map(withPath)
        return resolution
    }

    func synchronize() throws(PrefsStoreError) {
        do {
            _ = try connectedClient().send(.synchronize)
        } catch {
            throw Self.storeError(error, domain: nil)
        }
    }

    /// Sends a write; reconnects once when the connection was lost (a write stores the same values again).
    private func versionOfWrite(_ operation: WireOperation, domain: DomainID) throws(PrefsStoreError) -> UInt64 {
        var attempt = 0
        while true {
            do {
                let result = try connectedClient().send(operation)
                switch result {
                case .set(let version), .remove(let version), .writeDomain(let version): return version
                default: throw PrefsStoreError(.unavailable, "prefsd answered with an unexpected \(result.operation)")
                }
            } catch let error as PrefsClientError {
                attempt += 1
                if error.serverError == nil, attempt < 2 {
                    state.withLock { $0.client = nil }
                    continue
                }
                throw Self.storeError(error, domain: domain)
            } catch let error as PrefsStoreError {
                throw error
            } catch {
                throw PrefsStoreError(.unavailable, "prefsd failed: \(error)")
            }
        }
    }

    /// Notes that the cache must keep this process's change until the subscription reaches `version`.
    private func keepLocalChange(until version: UInt64, of domain: DomainID) {
        let reached = state.withLock { state -> Bool in
            guard var mirror = state.mirrors[domain] else { return false }
            if mirror.sequence >= version { return true }
            mirror.awaitedVersion = max(mirror.awaitedVersion ?? 0, version)
            state.mirrors[domain] = mirror
            return false
        }
        if reached {
            let values = state.withLock { $0.mirrors[domain]?.values } ?? [:]
            try? engine.synchronize(domain)
            try? engine.setStoredContents(values, of: domain, origin: .external)
        }
    }

    private func connectedClient() throws(PrefsClientError) -> PrefsBlockingClient {
        if let client = state.withLock({ $0.client }) { return client }
        let client = try PrefsBlockingClient(socketPath: socketPath, clientName: "Preferences", timeout: .seconds(30))
        state.withLock { $0.client = $0.client ?? client }
        return client
    }

    // MARK: - Mapping

    static func wireDomain(_ domain: DomainID) -> WireDomain? {
        switch domain.scope {
        case .user: WireDomain(domain.name.rawValue)
        case .byHost: WireDomain(domain.name.rawValue, byHost: true)
        case .system: WireDomain(domain.name.rawValue, scope: .system)
        case .forced: WireDomain(domain.name.rawValue, scope: .forced)
        case .shipped: nil
        }
    }

    private static func writableWireDomain(_ domain: DomainID) throws(PrefsStoreError) -> WireDomain {
        guard domain.scope.isWritable, let wire = wireDomain(domain) else {
            throw PrefsStoreError(.readOnlyDomain, "domain \(domain) is read-only in the \(domain.scope) layer")
        }
        return wire
    }

    /// A client error as the store would report it.
    static func storeError(_ error: PrefsClientError, domain: DomainID?) -> PrefsStoreError {
        guard let server = error.serverError else {
            return PrefsStoreError(.unavailable, "prefsd is unavailable: \(error.message)", cause: error)
        }
        let code: PrefsStoreError.Code
        switch server.code {
        case .invalidName: code = .invalidDomainName
        case .readOnly: code = .readOnlyDomain
        case .limitExceeded: code = .limitExceeded
        case .versionConflict: code = .versionConflict
        default: code = .unavailable
        }
        return PrefsStoreError(code, server.message, path: server.path, cause: error)
    }
}
