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
        var generation = configuration.changes.generation
        // The settings' generation each round started with, for the task beside its watch that waits for a reload.
        let roundGeneration = Atomic<UInt64>(generation)
        let applied = mirror.state.withLock { $0.revision }
        await EtcdPrefixFollower(backoff: Self.backoff).follow(
            from: applied == 0 ? nil : applied,
            round: {
                var reloaded = false
                var readsAgain = false
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
                    readsAgain = rereads || client.endpoints != previous.endpoints
                    reloaded = true
                    board.reconfigured(hostName: settings.hostName, groups: settings.groups)
                    logger.notice(
                        "fleet settings reloaded; connecting again",
                        metadata: [
                            "endpoints": "\(settings.endpoints.map(\.description).joined(separator: ","))",
                            "groups": "\(settings.groups.joined(separator: ","))", "full-read": "\(readsAgain)",
                        ])
                }
                roundGeneration.store(generation, ordering: .relaxed)
                board.connecting(to: client.currentEndpoint.description)
                return EtcdPrefixFollower.Round(
                    client: client, prefix: settings.layout.managedPrefix, readsAgain: readsAgain,
                    resetsPause: reloaded)
            },
            apply: { [self] update, endpoint in try self.apply(update, to: mirror, from: endpoint) },
            beside: { [self, configuration] client, endpoint in
                let generation = roundGeneration.load(ordering: .relaxed)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.checkLiveness(client: client, mirror: mirror, on: endpoint) }
                    group.addTask {
                        await configuration.changes.wait(after: generation)
                        throw EtcdPrefixFollower.Restart()
                    }
                    try await group.next()
                    group.cancelAll()
                }
            },
            lost: { error, endpoint in
                let revision = mirror.state.withLock { $0.revision }
                logger.warning(
                    "fleet connection lost; serving the cached policy",
                    metadata: ["endpoint": "\(endpoint)", "error": "\(error)", "revision": "\(revision)"])
                report("fleet: offline (\(error)), serving cached revision \(revision)")
                board.failed("\(error)", endpoint: endpoint.description)
            },
            compacted: { error in logger.notice("\(error.message); reading every managed domain again") },
            // A reload ends the pause: its settings may be what the connection lacked.
            pause: { wait in await configuration.changes.wait(after: generation, timeout: wait) })
    }

    /// Applies what the follower read or the watch delivered to the mirror, and tells the status board and the log.
    private func apply(_ update: EtcdPrefixFollower.Update, to mirror: Replica, from endpoint: EtcdEndpoint) throws {
        switch update {
        case .snapshot(let result):
            let (refusals, applied) = try mirror.state.withLock { mirror throws(EtcdError) in
                (try mirror.replaceAll(with: result.keyValues, revision: result.revision), mirror.revision)
            }
            log(refusals)
            board.knows(policyRevision: result.keyValues.map(\.modRevision).max() ?? 0)
            board.applied(applied, reported: result.revision, refused: refusals.count)
            logger.info(
                "read every managed domain",
                metadata: ["revision": "\(result.revision)", "keys": "\(result.keyValues.count)"])
        case .watch(.created(let etcdRevision)):
            let revision = mirror.state.withLock { $0.revision }
            logger.info(
                "watching the managed domains", metadata: ["endpoint": "\(endpoint)", "from": "\(revision + 1)"])
            report("fleet: connected to \(endpoint), revision \(revision)")
            board.connected(to: endpoint.description, revision: etcdRevision)
        case .watch(.events(let events, let revision)):
            let (refusals, applied) = try mirror.state.withLock { mirror throws(EtcdError) in
                (try mirror.apply(events, revision: revision), mirror.revision)
            }
            log(refusals)
            // The changes' own revisions (a delete event's too): a catching-up watch's header carries the store's
            // revision, which counts writes outside the managed keys.
            board.knows(policyRevision: events.map(\.keyValue.modRevision).max() ?? 0)
            board.applied(applied, reported: revision, refused: refusals.count)
            logger.debug("applied \(events.count) changes", metadata: ["revision": "\(revision)"])
            report("fleet: connected to \(endpoint), revision \(revision)")
        case .watch(.progress(let revision)):
            board.heard(revision)
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

    /// The mirror, shared with the watch's handler.
    private final class Replica: Sendable {
        let state: Mutex<FleetMirror>

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
