// SPDX-License-Identifier: Apache-2.0
import Logging
import PrefsFleet
import PrefsPOSIX
import PrefsPlist
import PrefsStore
import ServiceLifecycle
import Synchronization

/// Keeps the user's roaming domains in step with etcd (docs/FLEET.md, "Roaming user domains"): a `Service` in
/// prefsd's group, present only when the fleet settings name roaming domains.
///
/// Two tasks. The watch reads `<prefix>users/<user>/` once, then watches it, reconnecting with the same backoff as
/// the managed domains (the same `EtcdPrefixFollower`); it hands each version of a roaming domain to the
/// synchronizer. The synchronizer is the one place that changes the replicas: it takes in local edits (the store's observation of each domain: `defaults`,
/// clients, hand edits), merges etcd's versions into the local domain with an atomic update of the store, and
/// pushes what is pending with a compare on the revision it was based on. A push that fails for want of etcd is
/// tried again after a pause that doubles from 100 ms to 5 s; the changes wait in the state file meanwhile, across
/// restarts too.
struct RoamingService: Service {
    let settings: FleetSettings
    let paths: StorePaths
    let store: PreferencesStore
    let logger: Logger
    /// Where the count of changes waiting to be pushed is shown (`defaults fleet status`).
    let board: FleetStatusBoard

    /// What the synchronizer acts on, in order.
    enum Input: Sendable {
        /// The local domain changed (or may have).
        case local(DomainName)
        /// etcd's version of a domain.
        case remote(DomainName, Version)
        /// The watch is established: push what waits.
        case online
        /// The pause after a failed push is over.
        case retry
    }

    /// One version of a roaming domain in etcd.
    enum Version: Sendable {
        /// A valid document at its `mod_revision`.
        case document(RoamingDocument, modRevision: Int64)
        /// The key does not exist.
        case absent
        /// The value is not a usable roaming document.
        case refused(modRevision: Int64, reason: String)
    }

    func run() async throws {
        guard let directory = paths.fleetDirectory.map({ $0 + "/roaming" }), let host = paths.machineID else {
            logger.error("roaming needs the fleet cache and a machine id; no domain roams")
            return
        }
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        // At most one `.local` per domain waits: a client making thousands of changes a second queues one look at the
        // domain, not thousands (the look finds every change since).
        let waitingLocal = WaitingDomains()
        let tokens = settings.roamingDomains.map { domain in
            store.observe(.domain(DomainID(domain))) { _ in
                if waitingLocal.mark(domain) { continuation.yield(.local(domain)) }
            }
        }
        defer { for token in tokens { token.cancel() } }
        let client = settings.client()
        logger.info(
            "roaming",
            metadata: [
                "domains": "\(settings.roamingDomains.map(\.rawValue).joined(separator: ","))",
                "etcd.prefix": "\(settings.layout.roamingPrefix(user: settings.roamingUser))",
            ])
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.watch(client: client, continuation: continuation) }
                group.addTask {
                    var synchronizer = Synchronizer(
                        service: self, client: client, host: host, directory: directory, continuation: continuation,
                        waitingLocal: waitingLocal)
                    await synchronizer.run(inputs)
                    synchronizer.cancelRetry()
                }
            }
        }
    }

    /// Reads the user's roaming domains, then watches them, until cancelled.
    private func watch(client: EtcdClient, continuation: AsyncStream<Input>.Continuation) async {
        let prefix = settings.layout.roamingPrefix(user: settings.roamingUser)
        await EtcdPrefixFollower(backoff: FleetService.backoff).follow(
            from: nil,
            round: { EtcdPrefixFollower.Round(client: client, prefix: prefix) },
            apply: { [self] update, _ in
                switch update {
                case .snapshot(let result):
                    let found = Dictionary(result.keyValues.map { ($0.keyText, $0) }, uniquingKeysWith: { $1 })
                    for domain in settings.roamingDomains {
                        let key = settings.layout.roamingKey(user: settings.roamingUser, domain: domain)
                        continuation.yield(.remote(domain, found[key].map(version) ?? .absent))
                    }
                case .watch(.created):
                    continuation.yield(.online)
                case .watch(.events(let events, _)):
                    for event in events {
                        guard let domain = domain(ofKey: event.keyValue.keyText) else { continue }
                        continuation.yield(.remote(domain, event.kind == .delete ? .absent : version(event.keyValue)))
                    }
                case .watch(.progress):
                    break
                }
            },
            lost: { error, endpoint in
                logger.warning(
                    "roaming watch lost; local changes wait until etcd is back",
                    metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
            },
            compacted: { error in logger.notice("\(error.message); reading the roaming domains again") },
            pause: { wait in try? await Task.sleep(for: wait) })
    }

    /// The roaming domain an etcd key names, when it is one of the configured ones.
    private func domain(ofKey key: String) -> DomainName? {
        settings.roamingDomains.first { settings.layout.roamingKey(user: settings.roamingUser, domain: $0) == key }
    }

    private func version(_ keyValue: EtcdKeyValue) -> Version {
        let limits = FleetMirror.Limits(maxValueBytes: settings.maxValueBytes)
        switch RoamingDocument.decode(keyValue.value, limits: limits) {
        case .success(let document): return .document(document, modRevision: keyValue.modRevision)
        case .failure(let refusal): return .refused(modRevision: keyValue.modRevision, reason: refusal.description)
        }
    }

    /// The domains with a `.local` input waiting, shared by the store's observers and the synchronizer.
    final class WaitingDomains: Sendable {
        private let domains = Mutex<Set<DomainName>>([])

        /// Marks a domain; `true` when it was not marked yet, and a `.local` must be sent.
        func mark(_ domain: DomainName) -> Bool { domains.withLock { $0.insert(domain).inserted } }

        /// Clears a domain's mark, before its `.local` is acted on.
        func clear(_ domain: DomainName) { _ = domains.withLock { $0.remove(domain) } }
    }

    /// Owns the replicas; runs on one task, so every change to them is in order.
    private struct Synchronizer {
        let service: RoamingService
        let client: EtcdClient
        let continuation: AsyncStream<Input>.Continuation
        /// The domains with a `.local` waiting in the stream.
        let waitingLocal: WaitingDomains
        var replicas: [DomainName: RoamingReplica] = [:]
        var pause = FleetService.backoff.first
        var retry: Task<Void, Never>?

        /// How many times a push reads etcd's newer version and pushes again before it waits for the next change.
        static let pushAttempts = 16

        init(
            service: RoamingService, client: EtcdClient, host: String, directory: String,
            continuation: AsyncStream<Input>.Continuation, waitingLocal: WaitingDomains
        ) {
            self.service = service
            self.client = client
            self.continuation = continuation
            self.waitingLocal = waitingLocal
            for domain in service.settings.roamingDomains {
                var replica = RoamingReplica(
                    domain: domain,
                    key: service.settings.layout.roamingKey(user: service.settings.roamingUser, domain: domain),
                    host: host, directory: directory)
                if let problem = replica.load(maxKeyBytes: FleetMirror.Limits().maxKeyBytes) {
                    service.logger.warning("\(problem)")
                }
                replicas[domain] = replica
            }
            report()
        }

        mutating func run(_ inputs: AsyncStream<Input>) async {
            // Edits made while prefsd was stopped (or before the domain ever roamed) are found first, before etcd's
            // version is merged in, and stamped with the file's modification time: they are no newer than that.
            for domain in service.settings.roamingDomains { takeLocal(domain, stampedWithFileTime: true) }
            for await input in inputs {
                switch input {
                case .local(let domain):
                    // Cleared before the look, so that a change made during it queues another.
                    waitingLocal.clear(domain)
                    // While a retry is scheduled etcd was out of reach: the edit waits with the others rather than
                    // costing a request timeout of its own.
                    if takeLocal(domain), retry == nil { await push(domain) }
                case .remote(let domain, let version):
                    takeRemote(domain, version)
                    await push(domain)
                case .online, .retry:
                    if case .retry = input { retry = nil }
                    for domain in service.settings.roamingDomains { await push(domain) }
                }
            }
        }

        func cancelRetry() { retry?.cancel() }

        private var logger: Logger { service.logger }

        private static func now() -> PlistDate { PlistDate(secondsSince1970: POSIX.currentTimeSince1970()) }

        /// Takes in the local domain's edits, stamped now or, at start, with the file's modification time.
        /// - Returns: Whether something new waits to be pushed.
        @discardableResult
        private mutating func takeLocal(_ domain: DomainName, stampedWithFileTime: Bool = false) -> Bool {
            guard var replica = replicas[domain] else { return false }
            let id = DomainID(domain)
            var stamp = Self.now()
            if stampedWithFileTime, let path = try? service.store.path(for: id),
                let status = try? POSIX.fileStatus(atPath: path, followsSymbolicLinks: true)
            {
                let modified = PlistDate(
                    secondsSince1970: Double(status.modificationSeconds) + Double(status.modificationNanoseconds) / 1e9)
                stamp = min(stamp, modified)
            }
            guard replica.noteLocal(service.store.snapshot(of: id).values, now: stamp) else { return false }
            save(&replica)
            return true
        }

        /// Merges etcd's version into the local domain, atomically with the edits the domain has now.
        private mutating func takeRemote(_ domain: DomainName, _ version: Version) {
            guard let replica = replicas[domain] else { return }
            let key = replica.key
            switch version {
            case .refused(let modRevision, let reason):
                let message =
                    "refused roaming domain \(domain) from etcd key \(key) at revision \(modRevision): \(reason); this "
                    + "host keeps its version and its next change replaces that value"
                logger.error(
                    "\(message)",
                    metadata: ["etcd.key": "\(key)", "etcd.revision": "\(modRevision)"])
                var refused = replica
                refused.refuse(modRevision: modRevision)
                save(&refused)
            case .absent, .document:
                let remote: RoamingDocument?
                let modRevision: Int64
                if case .document(let document, let revision) = version {
                    (remote, modRevision) = (document, revision)
                } else {
                    (remote, modRevision) = (nil, 0)
                }
                let now = Self.now()
                do {
                    var merged = try service.store.update(DomainID(domain)) { values in
                        var next = replica
                        next.noteLocal(values, now: now)
                        next.receive(remote, modRevision: modRevision)
                        values = next.expectedValues
                        return next
                    }.outcome
                    if merged.baseRevision != replica.baseRevision {
                        logger.debug(
                            "merged roaming domain \(domain)",
                            metadata: ["etcd.revision": "\(merged.baseRevision)", "pending": "\(merged.pending.count)"])
                    }
                    save(&merged)
                } catch {
                    logger.error(
                        "cannot merge etcd's version of roaming domain \(domain) into this host's: \(error.message)",
                        metadata: ["etcd.key": "\(key)", "etcd.revision": "\(modRevision)"])
                }
            }
        }

        /// Pushes what is pending, reading etcd's newer version and merging it first whenever the compare fails.
        private mutating func push(_ domain: DomainName) async {
            for _ in 0..<Self.pushAttempts {
                guard let replica = replicas[domain], let document = replica.outgoing(now: Self.now()) else { return }
                let bytes: [UInt8]
                do {
                    bytes = try document.encoded()
                } catch {
                    logger.error("\(error.message)")
                    return
                }
                guard bytes.count <= service.settings.maxValueBytes else {
                    let message =
                        "roaming domain \(domain) is \(bytes.count) bytes, more than FleetMaxValueBytes "
                        + "(\(service.settings.maxValueBytes)); it stays on this host until it is smaller"
                    logger.error(
                        "\(message)",
                        metadata: ["etcd.key": "\(replica.key)"])
                    return
                }
                do {
                    let revision = try await client.compareAndSet(
                        replica.key, expectedModRevision: replica.baseRevision, .put(bytes))
                    var pushed = replica
                    pushed.pushed(document, modRevision: revision)
                    save(&pushed)
                    pause = FleetService.backoff.first
                    logger.debug(
                        "pushed roaming domain \(domain)",
                        metadata: ["etcd.key": "\(replica.key)", "etcd.revision": "\(revision)"])
                    return
                } catch  where error.code == .conflict {
                    // Another host pushed first: merge its version, then push again.
                    do {
                        let (keyValue, _) = try await client.get(replica.key)
                        takeRemote(domain, keyValue.map(service.version) ?? .absent)
                    } catch {
                        scheduleRetry(after: error)
                        return
                    }
                } catch {
                    scheduleRetry(after: error)
                    return
                }
            }
            logger.warning("roaming domain \(domain) changed in etcd under every push; trying again later")
        }

        private mutating func scheduleRetry(after error: EtcdError) {
            logger.warning(
                "cannot push roaming changes; they wait on this host", metadata: ["error": "\(error.message)"])
            guard retry == nil else { return }  // One is on its way.
            let delay = pause
            pause = min(pause * 2, FleetService.backoff.last)
            let continuation = continuation
            retry = Task {
                try? await Task.sleep(for: delay)
                continuation.yield(.retry)
            }
        }

        private mutating func save(_ replica: inout RoamingReplica) {
            do {
                try replica.save()
            } catch {
                logger.error("\(error.message)")
            }
            replicas[replica.domain] = replica
            report()
        }

        func report() {
            service.board.roaming(
                user: service.settings.roamingUser, domains: service.settings.roamingDomains.map(\.rawValue),
                pending: replicas.values.reduce(0) { $0 + $1.pending.count })
        }
    }
}

// The service group logs each service by its description; without one it would print the value by reflection (its
// stored properties) and build the type's name with the runtime's demangler, which loads libstdc++.
extension RoamingService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    var description: String { "RoamingService" }
}
