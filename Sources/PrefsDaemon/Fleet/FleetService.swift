// SPDX-License-Identifier: Apache-2.0
import Logging
import PrefsFleet
import PrefsPOSIX
import PrefsStore
import ServiceLifecycle
import Synchronization

/// Mirrors the fleet's managed domains from etcd into the cache the store reads (docs/FLEET.md): a `Service` in
/// prefsd's group, present only when the settings name a fleet.
///
/// It reads the state an earlier run left, then loops until graceful shutdown: a full range read when it has no
/// revision yet (or after compaction), then a watch of the managed keys from the revision after the last one
/// applied, on one endpoint; when the watch fails it moves to the next endpoint after a pause that doubles from
/// 100 ms to 5 s (reset by a watch that delivered something). Each batch of changes reaches the store (and its
/// subscribers) at once; a `FleetCacheWriter` writes the cache files after, at a lower priority. The state goes to
/// the log and to the daemon's `STATUS=` line.
struct FleetService: Service {
    /// The settings, which a reload may replace: the service then connects again with the new ones.
    let configuration: FleetConfiguration
    let paths: StorePaths
    let logger: Logger
    /// Receives the one-line state for `STATUS=`.
    let report: @Sendable (String) -> Void
    /// Holds the state `fleetStatus` reports.
    let board: FleetStatusBoard

    /// The shortest and longest pause between reconnections.
    static let backoff: (first: Duration, last: Duration) = (.milliseconds(100), .seconds(5))

    /// Opens the fleet cache (creating it whole when missing) and reads the state an earlier run left; prefsd does
    /// this before it opens the store, so that the store watches the cache from the start.
    /// - Returns: The mirror, or `nil` after logging why the host cannot join (no machine id, no cache).
    static func prepareMirror(settings: FleetSettings, paths: StorePaths, logger: Logger) -> FleetMirror? {
        do {
            var mirror = try FleetMirror(
                paths: paths, layout: settings.layout, groups: settings.groups,
                limits: FleetMirror.Limits(maxValueBytes: settings.maxValueBytes))
            if let problem = try mirror.prepare() { logger.warning("\(problem)") }
            return mirror
        } catch {
            logger.error("cannot join the fleet: \(error.message)")
            return nil
        }
    }

    /// The settings in force now.
    var settings: FleetSettings { configuration.current }

    /// The mirror ``prepareMirror(settings:paths:logger:)`` opened.
    let prepared: FleetMirror
    /// The store prefsd serves: it hears of each change before the cache files are written.
    let store: PreferencesStore

    func run() async throws {
        var prepared = prepared
        let logger = logger
        let board = board
        let writer = FleetCacheWriter(
            cache: prepared.cache, store: store, report: { error in logger.error("\(error.message)") },
            written: { board.cacheWritten($0) })
        prepared.writer = writer
        let mirror = Replica(prepared)
        let settings = settings
        let client = settings.client()
        let revision = mirror.state.withLock { $0.revision }
        let machineIDSource =
            POSIX.environmentVariable("PREFERENCES_MACHINE_ID") == nil
            ? StorePaths.machineIDPath : "PREFERENCES_MACHINE_ID"
        logger.info(
            "joining the fleet",
            metadata: [
                "endpoints": "\(settings.endpoints.map(\.description).joined(separator: ","))",
                "prefix": "\(settings.layout.prefix)", "groups": "\(settings.groups.joined(separator: ","))",
                "user": "\(settings.credentials?.user ?? "none")",
                "revision": "\(revision)",
                "machine-id": "\(paths.machineID ?? "none")",
                "machine-id-source": "\(machineIDSource)",
            ])
        report("fleet: connecting, cached revision \(revision)")
        board.connecting(to: client.currentEndpoint.description)
        await cancelWhenGracefulShutdown {
            await self.loop(client: client, mirror: mirror)
        }
        // What the writer has not written yet goes to disk before prefsd exits.
        writer.finish()
        logger.info("left the fleet", metadata: ["revision": "\(mirror.state.withLock { $0.revision })"])
    }

    private func loop(client initialClient: EtcdClient, mirror: Replica) async {
        var client = initialClient
        var pause = Self.backoff.first
        var needsFullRead = mirror.state.withLock { $0.revision == 0 }
        var generation = configuration.changes.generation
        while !Task.isCancelled {
            if configuration.changes.generation != generation {
                generation = configuration.changes.generation
                let settings = settings
                let previous = client
                client = settings.client()
                // Another cluster, prefix, set of groups or limit: what the host holds is read again whole.
                let rereads = mirror.state.withLock { mirror in
                    defer {
                        mirror.reconfigure(
                            layout: settings.layout, groups: settings.groups, maxValueBytes: settings.maxValueBytes)
                    }
                    return mirror.layout != settings.layout || mirror.groups != settings.groups
                        || mirror.limits.maxValueBytes != settings.maxValueBytes
                }
                needsFullRead = needsFullRead || rereads || client.endpoints != previous.endpoints
                board.reconfigured(hostName: settings.hostName, groups: settings.groups)
                logger.notice(
                    "fleet settings reloaded; connecting again",
                    metadata: [
                        "endpoints": "\(settings.endpoints.map(\.description).joined(separator: ","))",
                        "groups": "\(settings.groups.joined(separator: ","))", "full-read": "\(needsFullRead)",
                    ])
                pause = Self.backoff.first
            }
            let endpoint = client.currentEndpoint
            board.connecting(to: endpoint.description)
            mirror.delivered.store(false, ordering: .relaxed)
            do {
                if needsFullRead {
                    let result = try await client.range(prefix: settings.layout.managedPrefix)
                    let (refusals, applied) = try mirror.state.withLock { mirror throws(EtcdError) in
                        (try mirror.replaceAll(with: result.keyValues, revision: result.revision), mirror.revision)
                    }
                    log(refusals)
                    board.knows(policyRevision: result.keyValues.map(\.modRevision).max() ?? 0)
                    board.applied(applied, reported: result.revision, refused: refusals.count)
                    needsFullRead = false
                    logger.info(
                        "read every managed domain",
                        metadata: ["revision": "\(result.revision)", "keys": "\(result.keyValues.count)"])
                    pause = Self.backoff.first
                }
                let start = mirror.state.withLock { $0.revision } + 1
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { [client] in
                        try await self.watch(client: client, mirror: mirror, from: start, on: endpoint)
                    }
                    group.addTask { [client] in
                        try await self.checkLiveness(client: client, mirror: mirror, on: endpoint)
                    }
                    group.addTask { [configuration, generation] in
                        await configuration.changes.wait(after: generation)
                        throw Reloaded()
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch is Reloaded {
                continue
            } catch let error as EtcdError where error.code == .compacted {  // From the watch, which throws untyped.
                logger.notice("\(error.message); reading every managed domain again")
                needsFullRead = true
                continue
            } catch {
                if Task.isCancelled { return }
                let revision = mirror.state.withLock { $0.revision }
                logger.warning(
                    "fleet connection lost; serving the cached policy",
                    metadata: ["endpoint": "\(endpoint)", "error": "\(error)", "revision": "\(revision)"])
                report("fleet: offline (\(error)), serving cached revision \(revision)")
                board.failed("\(error)", endpoint: endpoint.description)
            }
            if mirror.delivered.load(ordering: .relaxed) { pause = Self.backoff.first }
            client.advanceEndpoint()
            // A reload ends the pause: its settings may be what the connection lacked.
            await configuration.changes.wait(after: generation, timeout: pause)
            pause = min(pause * 2, Self.backoff.last)
        }
    }

    /// Watches the managed keys from `start` on `endpoint`, applying each batch, until the watch fails.
    private func watch(client: EtcdClient, mirror: Replica, from start: Int64, on endpoint: EtcdEndpoint) async throws {
        try await client.watch(prefix: settings.layout.managedPrefix, startRevision: start, endpoint: endpoint) {
            message in
            switch message {
            case .created(let etcdRevision):
                mirror.delivered.store(true, ordering: .relaxed)
                let revision = mirror.state.withLock { $0.revision }
                self.logger.info(
                    "watching the managed domains", metadata: ["endpoint": "\(endpoint)", "from": "\(start)"])
                self.report("fleet: connected to \(endpoint), revision \(revision)")
                self.board.connected(to: endpoint.description, revision: etcdRevision)
            case .events(let events, let revision):
                let (refusals, applied) = try mirror.state.withLock { mirror throws(EtcdError) in
                    (try mirror.apply(events, revision: revision), mirror.revision)
                }
                self.log(refusals)
                // The changes' own revisions (a delete event's too): a catching-up watch's header carries the
                // store's revision, which counts writes outside the managed keys.
                self.board.knows(policyRevision: events.map(\.keyValue.modRevision).max() ?? 0)
                self.board.applied(applied, reported: revision, refused: refusals.count)
                self.logger.debug("applied \(events.count) changes", metadata: ["revision": "\(revision)"])
                self.report("fleet: connected to \(endpoint), revision \(revision)")
            case .progress(let revision):
                self.board.heard(revision)
            }
        }
    }

    /// Asks the member serving the watch, every ``FleetSettings/watchCheckInterval``, whether the watch can still
    /// be trusted, and throws (which ends the watch and moves to the next member) when it cannot: the member does not
    /// answer, it has no leader (it is cut off from a quorum, so the policy may move on without it), or it holds a
    /// managed change newer than the host applied on two checks in a row (the watch went silent). A watch that
    /// delivers nothing is otherwise indistinguishable from an idle one.
    private func checkLiveness(client: EtcdClient, mirror: Replica, on endpoint: EtcdEndpoint) async throws {
        var missedBefore: Int64?
        while true {
            try await Task.sleep(for: settings.watchCheckInterval)
            let status = try await client.status(of: endpoint)
            guard status.hasLeader else {
                throw EtcdError(
                    .unavailable,
                    "etcd member at \(endpoint) has no leader (it cannot reach a quorum of the cluster); its watch may "
                        + "miss the fleet's changes")
            }
            let (newest, _) = try await client.newestModRevision(prefix: settings.layout.managedPrefix, at: endpoint)
            let applied = mirror.state.withLock { $0.revision }
            guard newest > applied else {
                missedBefore = nil
                continue
            }
            // One check may see a change whose event is on its way: a change still missing a whole interval later
            // means a dead watch.
            if let missed = missedBefore, missed > applied {
                throw EtcdError(
                    .unavailable,
                    "the watch on \(endpoint) delivered nothing past revision \(applied) although the member holds a "
                        + "managed change at revision \(missed); watching again")
            }
            missedBefore = newest
        }
    }

    private func log(_ refusals: [FleetRefusal]) {
        for refusal in refusals {
            logger.error(
                "\(refusal.description)",
                metadata: ["etcd.key": "\(refusal.key)", "etcd.revision": "\(refusal.revision)"])
        }
    }

    /// Ends a watch when the settings were reloaded, so that the loop connects again with the new ones.
    private struct Reloaded: Error {}

    /// The mirror, shared with the watch's handler.
    private final class Replica: Sendable {
        let state: Mutex<FleetMirror>
        /// Whether the current watch was established (which resets the pause between reconnections).
        let delivered = Atomic<Bool>(false)

        init(_ mirror: FleetMirror) {
            state = Mutex(mirror)
        }
    }
}

// The service group logs each service by its description; without one it would print the value by reflection (its
// stored properties) and build the type's name with the runtime's demangler, which loads libstdc++.
extension FleetService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    var description: String { "FleetService" }
}
