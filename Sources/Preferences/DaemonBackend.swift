// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PrefsAccess
import PrefsPlist
import PrefsStore
import Synchronization

/// The backend that goes through `prefsd`: an in-memory engine is the local cache, kept coherent by the daemon's
/// subscriptions; every write is a request to the daemon, the single writer, through the access layer's
/// `DaemonAccess` (which `defaults` uses too).
///
/// - ``prepare(_:)`` subscribes (on one connection per search list, with a reader thread) to each persistent domain
///   of a search list the first time it is used, fills the engine from the snapshot
///   (`PreferencesStore.setStoredContents`), and applies every event the same way; shipped domains, which the
///   daemon does not serve, are read from their files once.
/// - ``set(_:forKey:in:)`` sends the write and waits for the daemon's answer; a refusal changes nothing and throws.
///   ``update(key:in:_:)`` is the access layer's compare-and-set loop, applied to the cache the same way.
///   On success the change is applied to the engine at once (read-your-writes; local observers fire) with the
///   domain version the daemon acknowledged, and stays on top of the cache until the subscription delivers that
///   version of the domain (which includes it). Versions order acknowledgements and echoes whatever thread brings
///   them first: a change older than what the cache has (a stale echo, or another thread's newer write) is never
///   applied over it, so a thread never reads an older value after its own newer write.
/// - ``synchronize()`` returns after the daemon's durable `synchronize`.
/// - ``resolve(_:in:)`` explains from the cache, with the daemon's file paths.
final class DaemonBackend: PreferencesBackend {
    let engine: PreferencesStore
    private let access: DaemonAccess
    private let paths: StorePaths
    private let diagnostics: @Sendable (PreferencesError) -> Void
    private let state = Mutex(State())

    private struct Mirror {
        var values: PlistDictionary
        var sequence: UInt64
    }

    private struct State {
        var mirrors: [DomainID: Mirror] = [:]
        var subscriptions: [DomainSubscription] = []
        /// After a failed subscription, domains are not asked for again before this (and the failure is reported
        /// once), so a missing daemon costs one connection attempt a second, not one per read.
        var retryAfter: ContinuousClock.Instant?
    }

    init(
        socketPath: String, paths: StorePaths, configuration: StoreConfiguration,
        diagnostics: @escaping @Sendable (PreferencesError) -> Void
    ) {
        self.access = DaemonAccess(socketPath: socketPath, clientName: "Preferences")
        self.paths = paths
        self.diagnostics = diagnostics
        self.engine = PreferencesStore.inMemory(configuration: configuration)
    }

    var description: String { access.route.description }

    // MARK: - Cache

    func prepare(_ searchList: SearchList) {
        let missing = state.withLock { state -> [DomainID] in
            if let retryAfter = state.retryAfter, ContinuousClock.now < retryAfter { return [] }
            return searchList.domains.filter { state.mirrors[$0] == nil }
        }
        guard !missing.isEmpty else { return }
        var served: [DomainID] = []
        for domain in missing {
            if domain.scope == .shipped { loadShipped(domain) } else { served.append(domain) }
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
    private func subscribe(_ domains: [DomainID]) -> Bool {
        do throws(PrefsAccessError) {
            let subscription = try access.subscribe(domains) { [weak self] index, event in
                guard let self else { return }
                if let event {
                    self.apply(event, to: domains[index])
                } else {
                    for domain in domains { self.apply(nil, to: domain) }
                    self.resubscribeLater(domains)
                }
            }
            state.withLock { state in
                state.subscriptions.append(subscription)
                for (index, domain) in domains.enumerated() {
                    let snapshot = subscription.snapshots[index]
                    state.mirrors[domain] = Mirror(values: snapshot.values, sequence: snapshot.sequence)
                }
                state.retryAfter = nil
            }
            for (index, domain) in domains.enumerated() {
                // After a reconnect, this process's changes the daemon acknowledged are in the snapshot (or were
                // lost with a daemon that died before writing them): the daemon's values win, and its versions start
                // over.
                let snapshot = subscription.snapshots[index]
                try? engine.setStoredContents(
                    snapshot.values, of: domain, version: snapshot.sequence, startsOver: true)
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
                let names = domains.map { "\($0)" }.joined(separator: ", ")
                diagnostics(
                    PreferencesError(.storeUnavailable, "cannot watch domains \(names) in prefsd: \(error.message)"))
            }
            return false
        }
    }

    /// Subscribes again, in the background, after the daemon went away: after 50 ms at first, then at most every
    /// second, until it answers (a restarted daemon, or systemd starting it again) or the backend is released. A cache
    /// that only reads is thereby kept current without waiting for the next write.
    private func resubscribeLater(_ domains: [DomainID], after delay: Int = 50) {
        // A Dispatch queue, not a task: the process's Swift concurrency threads may all be busy (or blocked).
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
            guard let self else { return }
            let missing = self.state.withLock { state in domains.filter { state.mirrors[$0] == nil } }
            if missing.isEmpty || self.subscribe(missing) { return }
            self.resubscribeLater(domains, after: min(delay * 2, 1000))
        }
    }

    /// Applies one subscription event (or the end of the subscription) to the cache.
    private func apply(_ event: DomainEvent?, to domain: DomainID) {
        guard let event else {
            // The daemon went away: the cache keeps what it had, and the next use subscribes again.
            state.withLock { $0.mirrors[domain] = nil }
            return
        }
        let mirrored = state.withLock { state -> Mirror? in
            guard var mirror = state.mirrors[domain] else { return nil }
            switch event {
            case .changes(let changes):
                for change in changes where change.sequence > mirror.sequence {
                    mirror.values[change.key] = change.newValue
                    mirror.sequence = change.sequence
                }
            case .resync(let values, let sequence):
                mirror.values = values
                mirror.sequence = max(sequence, mirror.sequence)
            }
            state.mirrors[domain] = mirror
            return mirror
        }
        guard let mirrored else { return }
        // Local changes the daemon's version includes are dropped, so that its values (which may hold an even newer
        // change by another process) win; newer local changes stay on top.
        try? engine.setStoredContents(mirrored.values, of: domain, version: mirrored.sequence, origin: .external)
    }

    // MARK: - Writes

    func set(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsAccessError) {
        try checkWritable(domain)
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        let version = try access.setValue(value, forKey: key, in: domain)
        try applyLocally { () throws(PrefsStoreError) in
            try engine.applyAcknowledged(value, forKey: key, in: domain, version: version)
        }
    }

    func update(
        key: String, in domain: DomainID, _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> PlistValue? {
        try checkWritable(domain)
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        let (value, version) = try access.update(key: key, in: domain, transform)
        try applyLocally { () throws(PrefsStoreError) in
            try engine.applyAcknowledged(value, forKey: key, in: domain, version: version)
        }
        return value
    }

    func persistentDomain(_ domain: DomainID) throws(PrefsAccessError) -> PlistDictionary? {
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        do {
            return try engine.persistentDomain(domain)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    func setPersistentDomain(_ values: PlistDictionary, for domain: DomainID) throws(PrefsAccessError) {
        try checkWritable(domain)
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        let version = try access.replaceValues(of: domain, with: values)
        try applyLocally { () throws(PrefsStoreError) in
            try engine.applyAcknowledgedReplacement(values, of: domain, version: version)
        }
    }

    func adopt(_ values: PlistDictionary, into domain: DomainID) throws(PrefsAccessError) -> MigrationPlan {
        try checkWritable(domain)
        prepare(SearchList(domain: domain.name, includesByHost: domain.scope == .byHost, includesGlobal: false))
        let ((plan, adopted), version) = try access.update(domain) { current in
            let plan = MigrationPlan(source: values, current: current, overwrite: false)
            plan.apply(values, to: &current)
            return (plan, current)
        }
        if plan.changesDomain {
            try applyLocally { () throws(PrefsStoreError) in
                try engine.applyAcknowledgedReplacement(adopted, of: domain, version: version)
            }
        }
        return plan
    }

    func hasMigrated(_ domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError) -> Bool {
        try access.hasMigrated(domain, from: kind)
    }

    func recordMigration(of domain: DomainName, from kind: MigrationSource.Kind) throws(PrefsAccessError) {
        try access.recordMigrations([(domain, kind)])
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

    func synchronize() throws(PrefsAccessError) {
        try access.synchronize()
    }

    /// Applies to the cache a change the daemon accepted.
    private func applyLocally(_ change: () throws(PrefsStoreError) -> Void) throws(PrefsAccessError) {
        do {
            try change()
        } catch {
            throw PrefsAccessError(error)
        }
    }

    /// Refuses, before asking the daemon, a write to a layer only its owner changes.
    private func checkWritable(_ domain: DomainID) throws(PrefsAccessError) {
        guard domain.scope.isWritable else {
            throw PrefsAccessError(.readOnly, "domain \(domain) is read-only in the \(domain.scope) layer")
        }
    }
}
