// SPDX-License-Identifier: Apache-2.0
import Logging
import PrefsCommandLine
import PrefsFleet
import PrefsPOSIX
import PrefsPlist
import PrefsWire
import ServiceLifecycle

/// Keeps this host in the fleet's registry (docs/FLEET.md, "Hosts"): a ``FleetHostRecord`` at
/// `<prefix>hosts/<machine-id>` on a lease of ``FleetSettings/hostTTL`` seconds, renewed every third of it, and put
/// again whenever the record changes (a revision applied, a failure, a reconnection). A host that stops cleanly
/// revokes its lease and leaves at once; one that dies or is cut off leaves when the lease expires.
///
/// A service in prefsd's group beside ``FleetService``, whose ``FleetStatusBoard`` it reads.
struct FleetHostService: Service {
    /// The settings, which a reload may replace: the host then registers again with the new ones.
    let configuration: FleetConfiguration
    let board: FleetStatusBoard
    let logger: Logger

    /// The pause after a failed attempt before the next one.
    static let retryPause: Duration = .seconds(1)

    func run() async throws {
        guard let machineID = board.status.machineID else { return }
        let registration = Registration(configuration.current)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let generation = configuration.changes.generation
                let settings = registration.settings
                await self.loop(
                    key: settings.layout.hostKey(machineID: machineID), registration: registration, until: generation)
                guard !Task.isCancelled else { break }
                // Reloaded settings: the same lease serves the same cluster, key and TTL; otherwise the host leaves
                // the old registry entry now rather than when it would expire, and registers anew.
                let reloaded = configuration.current
                if reloaded.endpoints != settings.endpoints || reloaded.layout != settings.layout
                    || reloaded.hostTTL != settings.hostTTL
                {
                    await leave(
                        client: registration.client, key: settings.layout.hostKey(machineID: machineID), registration)
                }
                registration.written = nil
                registration.settings = reloaded
                registration.client = Self.client(reloaded)
            }
        }
        // Leaving cleanly: the entry goes now rather than when the lease would expire.
        await leave(
            client: registration.client, key: registration.settings.layout.hostKey(machineID: machineID), registration)
    }

    /// The registry's client: its requests must end well within a lease's renewal period.
    fileprivate static func client(_ settings: FleetSettings) -> EtcdClient {
        settings.client(requestTimeout: .seconds(min(5, max(1, settings.hostTTL / 3))))
    }

    /// Revokes the registration's lease, if it has one, so that its entry goes at once.
    private func leave(client: EtcdClient, key: String, _ registration: Registration) async {
        guard let lease = registration.lease else { return }
        registration.lease = nil
        do {
            try await client.revoke(lease)
            logger.info("left the fleet's registry", metadata: ["etcd.key": "\(key)"])
        } catch {
            logger.notice(
                "could not leave the fleet's registry; the entry goes when its lease expires",
                metadata: ["etcd.key": "\(key)", "error": "\(error.message)"])
        }
    }

    /// What the loop holds between attempts; read once more after it ends, to revoke the lease.
    private final class Registration: @unchecked Sendable {
        // Only the service's task touches it: the loop, then run() after the loop has returned.
        var lease: EtcdLease?
        var written: FleetHostRecord?
        var lastProblem: String?
        /// When this prefsd first registered: a reload does not change it.
        let registeredDate = POSIX.currentTimeSince1970()
        /// The settings registered with, and the client made from them.
        var settings: FleetSettings
        var client: EtcdClient

        init(_ settings: FleetSettings) {
            self.settings = settings
            self.client = FleetHostService.client(settings)
        }
    }

    /// Registers and renews until the task is cancelled or the settings are replaced (their generation is no longer
    /// `settingsGeneration`).
    private func loop(key: String, registration: Registration, until settingsGeneration: UInt64) async {
        let client = registration.client
        let settings = registration.settings
        let registeredDate = registration.registeredDate
        let renewal = Duration.seconds(settings.hostTTL) / 3
        var nextRenewal = ContinuousClock.now
        var generation = board.changes.generation
        while !Task.isCancelled, configuration.changes.generation == settingsGeneration {
            let pause: Duration
            do {
                if registration.lease == nil {
                    let lease = try await client.grantLease(seconds: settings.hostTTL)
                    registration.lease = lease
                    registration.written = nil
                    nextRenewal = ContinuousClock.now + renewal
                }
                guard let lease = registration.lease else { continue }  // Granted just above.
                generation = board.changes.generation
                let record = board.hostRecord(version: PreferencesVersion.current, registeredDate: registeredDate)
                if record != registration.written {
                    try await client.put(key, value: record.encoded, lease: lease)
                    if registration.written == nil {
                        logger.info(
                            "registered in the fleet",
                            metadata: ["etcd.key": "\(key)", "lease": "\(lease.id)", "ttl": "\(lease.seconds)"])
                    }
                    registration.written = record
                    board.registered(at: key, leaseSeconds: lease.seconds)
                }
                if ContinuousClock.now >= nextRenewal {
                    try await client.keepAlive(lease)
                    nextRenewal = ContinuousClock.now + renewal
                }
                if registration.lastProblem != nil {
                    logger.notice("the fleet's registry is reachable again", metadata: ["etcd.key": "\(key)"])
                    registration.lastProblem = nil
                }
                pause = max(.zero, nextRenewal - ContinuousClock.now)
            } catch {
                if Task.isCancelled { return }
                // A refused renewal, or a put etcd refuses for its lease, means the lease expired: the entry is gone,
                // and a new lease brings it back.
                let expired = error.code == .refused || error.message.containsText("lease not found")
                if expired { registration.lease = nil }
                board.registrationFailed(error.message, expired: expired)
                if registration.lastProblem != error.message {
                    logger.warning(
                        "cannot keep this host in the fleet's registry",
                        metadata: ["etcd.key": "\(key)", "error": "\(error.message)"])
                    registration.lastProblem = error.message
                }
                // Failures also change the board: waiting on it would retry at the pace the failures come.
                do { try await Task.sleep(for: Self.retryPause) } catch { return }
                continue
            }
            // A change of the board, the renewal's time, or reloaded settings, whichever comes first.
            generation = await withTaskGroup(of: Void.self) { group in
                group.addTask { [board, generation] in await board.changes.wait(after: generation, timeout: pause) }
                group.addTask { [configuration] in await configuration.changes.wait(after: settingsGeneration) }
                await group.next()
                group.cancelAll()
                return board.changes.generation
            }
        }
    }
}

// Named in the service group's log, as FleetService is (its description avoids the runtime's demangler).
extension FleetHostService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    var description: String { "FleetHostService" }
}
