// SPDX-License-Identifier: Apache-2.0
import Dispatch
package import PrefsPlist
package import PrefsStore
import Synchronization

/// The domains `prefsd` serves, as a source of a `PreferencesStore`: the store caches them, kept current by
/// subscriptions, and commits every write through ``DaemonAccess`` (the connection `defaults` would use), the daemon
/// being the single writer.
///
/// - ``prepare(_:)`` subscribes (on one connection per call, with a reader thread) to the domains not subscribed
///   yet, and reports each snapshot; every event is reported the same way, with the daemon's version of the domain.
/// - A write is a request; the daemon's refusal throws and changes nothing. The engine applies an accepted change at
///   once, at the version the daemon acknowledged (read-your-writes), until the subscription reports that version.
/// - When the daemon goes away the cache keeps what it had; the domains are subscribed again in the background, and
///   on their next use, with versions that start over.
/// - Shipped domains, which the daemon does not serve, are read from their files (``FileDomains``) once.
package final class DaemonDomains: CommittingDomainSource {
    /// The connection for requests.
    package let access: DaemonAccess
    private let shipped: FileDomains
    private let paths: StorePaths
    private let state = Mutex(State())

    private struct Mirror {
        var values: PlistDictionary
        var sequence: UInt64
    }

    private struct State {
        var events: DomainSourceEvents?
        var mirrors: [DomainID: Mirror] = [:]
        var subscriptions: [DomainSubscription] = []
        /// After a failed subscription, domains are not asked for again before this (and the failure is reported
        /// once), so a missing daemon costs one connection attempt a second, not one per read.
        var retryAfter: ContinuousClock.Instant?
    }

    /// The daemon's domains through an access, whether or not it answers now.
    /// - Parameters:
    ///   - access: The daemon's access; a connection it made already is used for the first requests.
    ///   - paths: The directories the daemon serves, which explanations name; their shipped layer is read here.
    package init(access: DaemonAccess, paths: StorePaths) {
        self.access = access
        self.paths = paths
        self.shipped = FileDomains(paths: paths)
    }

    /// `prefsd at /run/user/1000/prefsd/socket`.
    package var description: String { access.route.description }

    // MARK: Cache

    package func attach(_ events: DomainSourceEvents) {
        state.withLock { $0.events = events }
    }

    package func mayHold(_ domain: DomainID) -> Bool {
        // A read subscribes: the daemon knows whether the domain holds anything.
        true
    }

    package func domainNames(in scope: DomainScope) throws(PrefsStoreError) -> Set<DomainName> {
        if scope == .shipped { return try shipped.domainNames(in: scope) }
        do {
            return Set(try access.domainNames(in: scope))
        } catch {
            throw Self.storeError(error)
        }
    }

    package func path(of domain: DomainID) -> String? {
        try? paths.path(for: domain)
    }

    package func prepare(_ domains: [DomainID]) {
        let missing = state.withLock { state -> [DomainID] in
            if let retryAfter = state.retryAfter, ContinuousClock.now < retryAfter { return [] }
            return domains.filter { state.mirrors[$0] == nil }
        }
        guard !missing.isEmpty else { return }
        var served: [DomainID] = []
        for domain in missing {
            if domain.scope == .shipped {
                let values = shipped.storedValues(of: domain) ?? [:]
                state.withLock { $0.mirrors[domain] = Mirror(values: values, sequence: 0) }
            } else {
                served.append(domain)
            }
        }
        if !served.isEmpty { subscribe(served) }
    }

    package func snapshot(of domain: DomainID) -> (values: PlistDictionary, version: UInt64) {
        state.withLock { state in
            guard let mirror = state.mirrors[domain] else { return ([:], 0) }
            return (mirror.values, mirror.sequence)
        }
    }

    /// Subscribes to the domains on one connection (one reader thread) and reports the snapshots.
    /// - Returns: Whether the subscription was made.
    @discardableResult
    private func subscribe(_ domains: [DomainID]) -> Bool {
        do throws(PrefsAccessError) {
            let subscription = try access.subscribe(domains) { [weak self] index, event in
                guard let self else { return }
                if let event {
                    self.apply(event, to: domains[index])
                } else {
                    self.state.withLock { state in for domain in domains { state.mirrors[domain] = nil } }
                    self.resubscribeLater(domains)
                }
            }
            let events = state.withLock { state in
                state.subscriptions.append(subscription)
                for (index, domain) in domains.enumerated() {
                    let snapshot = subscription.snapshots[index]
                    state.mirrors[domain] = Mirror(values: snapshot.values, sequence: snapshot.sequence)
                }
                state.retryAfter = nil
                return state.events
            }
            for (index, domain) in domains.enumerated() {
                // After a reconnect, this process's changes the daemon acknowledged are in the snapshot (or were
                // lost with a daemon that died before writing them): the daemon's values win, and its versions start
                // over.
                let snapshot = subscription.snapshots[index]
                events?.changed(snapshot.values, of: domain, version: snapshot.sequence, startsOver: true)
            }
            // Events (those that arrived meanwhile first) apply on top of the snapshots reported above.
            subscription.start()
            return true
        } catch {
            let (firstFailure, events) = state.withLock { state in
                defer { state.retryAfter = .now + .seconds(1) }
                return (state.retryAfter == nil, state.events)
            }
            if firstFailure {
                let names = domains.map { "\($0)" }.joined(separator: ", ")
                events?.report(
                    StoreDiagnostic(
                        severity: .warning, domain: nil,
                        error: PrefsStoreError(
                            .unavailable, "cannot watch domains \(names) in prefsd: \(error.message)")
                    ))
            }
            return false
        }
    }

    /// Subscribes again, in the background, after the daemon went away: after 50 ms at first, then at most every
    /// second, until it answers (a restarted daemon, or systemd starting it again) or the source is released. A cache
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

    /// Applies one subscription event to the mirror and reports the domain's contents.
    private func apply(_ event: DomainEvent, to domain: DomainID) {
        let reported = state.withLock { state -> (Mirror, DomainSourceEvents?)? in
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
            return (mirror, state.events)
        }
        guard let (mirror, events) = reported else { return }
        // The engine's changes the daemon's version includes are dropped, so that its values (which may hold an even
        // newer change by another process) win; newer ones stay on top.
        events?.changed(mirror.values, of: domain, version: mirror.sequence, startsOver: false)
    }

    // MARK: Writes

    package func commit(
        _ change: DomainChange, to domain: DomainID, expectedVersion: UInt64?
    ) throws(PrefsStoreError) -> UInt64 {
        do throws(PrefsAccessError) {
            switch change {
            case .value(let value, let key):
                if expectedVersion == nil { return try access.setValue(value, forKey: key, in: domain) }
                return try access.setValues([PlistKey(key): value], in: domain, expectedVersion: expectedVersion)
            case .values(let changes):
                return try access.setValues(changes, in: domain, expectedVersion: expectedVersion)
            case .replacement(let values):
                return try access.replaceValues(of: domain, with: values, expectedVersion: expectedVersion)
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    package func update<Outcome>(
        _ domain: DomainID, maxAttempts: Int, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsStoreError) -> (outcome: Outcome, values: PlistDictionary?, version: UInt64) {
        do throws(PrefsAccessError) {
            let ((outcome, values), version) = try access.update(domain, maxAttempts: maxAttempts) {
                current -> (Outcome, PlistDictionary?) in
                let before = current
                let outcome = body(&current)
                return (outcome, current == before ? nil : current)
            }
            return (outcome, values, version)
        } catch {
            throw Self.storeError(error)
        }
    }

    package func update(
        key: String, in domain: DomainID, maxAttempts: Int,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsStoreError) -> (value: PlistValue?, version: UInt64) {
        do {
            return try access.update(key: key, in: domain, maxAttempts: maxAttempts, transform)
        } catch {
            throw Self.storeError(error)
        }
    }

    package func synchronize() throws(PrefsStoreError) {
        do {
            try access.synchronize()
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The access layer's error as the engine throws it; ``PrefsAccessError/init(_:)-(PrefsStoreError)`` gives the
    /// original back.
    static func storeError(_ error: PrefsAccessError) -> PrefsStoreError {
        let code: PrefsStoreError.Code =
            switch error.code {
            case .invalidName: .invalidDomainName
            case .readOnly: .readOnlyDomain
            case .limitExceeded: .limitExceeded
            case .corrupt: .corruptFile
            case .ioFailure: .ioFailure
            case .invalidValue: .invalidValue
            case .versionConflict: .versionConflict
            default: .unavailable
            }
        return PrefsStoreError(code, error.message, path: error.path, cause: error)
    }
}
