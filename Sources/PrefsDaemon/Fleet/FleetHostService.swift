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
    let settings: FleetSettings
    let board: FleetStatusBoard
    let logger: Logger

    /// The pause after a failed attempt before the next one.
    static let retryPause: Duration = .seconds(1)

    func run() async throws {
        let client = EtcdClient(
            endpoints: settings.endpoints, credentials: settings.credentials, tls: settings.tls,
            requestTimeout: .seconds(min(5, max(1, settings.hostTTL / 3))))
        guard let machineID = board.status.machineID else { return }
        let key = settings.layout.hostKey(machineID: machineID)
        let registration = Registration()
        await cancelWhenGracefulShutdown {
            await self.loop(client: client, key: key, registration: registration)
        }
        // Leaving cleanly: the entry goes now rather than when the lease would expire.
        if let lease = registration.lease {
            do {
                try await client.revoke(lease)
                logger.info("left the fleet's registry", metadata: ["etcd.key": "\(key)"])
            } catch {
                logger.notice(
                    "could not leave the fleet's registry; the entry goes when its lease expires",
                    metadata: ["etcd.key": "\(key)", "error": "\(error.message)"])
            }
        }
    }

    /// What the loop holds between attempts; read once more after it ends, to revoke the lease.
    private final class Registration: @unchecked Sendable {
        // Only the service's task touches it: the loop, then run() after the loop has returned.
        var lease: EtcdLease?
        var written: FleetHostRecord?
        var lastProblem: String?
    }

    private func loop(client: EtcdClient, key: String, registration: Registration) async {
        let registeredDate = POSIX.currentTimeSince1970()
        let renewal = Duration.seconds(settings.hostTTL) / 3
        var nextRenewal = ContinuousClock.now
        var generation = board.changes.generation
        while !Task.isCancelled {
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
            generation = await board.changes.wait(after: generation, timeout: pause)
        }
    }
}

// Named in the service group's log, as FleetService is (its description avoids the runtime's demangler).
extension FleetHostService: CustomStringConvertible {
    /// The service's name in the daemon's log.
    var description: String { "FleetHostService" }
}
