// SPDX-License-Identifier: Apache-2.0
import PrefsFleet
import PrefsPOSIX
import PrefsPlist
import PrefsWire
import Synchronization

/// The fleet state of this daemon, as `fleetStatus` reports it: written by ``FleetService`` as it connects, applies
/// changes and fails, read by every connection that asks. One lock around one small value, so a reader never sees
/// half an update.
///
/// Each change that the host's registry record shows (state, revisions, errors) is signalled on ``changes``, which
/// the ``FleetHostService`` waits on.
final class FleetStatusBoard: Sendable {
    private let current: Mutex<WireFleetStatus>
    /// When the policy revision was first known, in seconds since 1970.
    private let policyDate = Mutex<Double?>(nil)
    /// The revision the cache files on disk hold: what the registry reports as applied, since programs that read
    /// the files rather than ask prefsd have a revision only once it is written.
    private let writtenRevision: Mutex<Int64>
    /// Signalled on each change a registry record shows.
    let changes = ChangeSignal()

    /// Creates the board of a daemon that is joining a fleet.
    /// - Parameters:
    ///   - cacheDirectory: The fleet cache directory.
    ///   - appliedRevision: The revision the cache holds from an earlier run.
    ///   - machineID: The machine id the host joins as.
    ///   - hostName: The name it registers under.
    ///   - groups: Its groups.
    init(
        cacheDirectory: String, appliedRevision: Int64, machineID: String? = nil, hostName: String? = nil,
        groups: [String] = []
    ) {
        var status = WireFleetStatus(
            state: .connecting, appliedRevision: appliedRevision, cacheDirectory: cacheDirectory)
        status.machineID = machineID
        status.hostName = hostName
        status.groups = groups
        current = Mutex(status)
        writtenRevision = Mutex(appliedRevision)
    }

    /// The state now.
    var status: WireFleetStatus { current.withLock { $0 } }

    /// The host's registry record now.
    /// - Parameters:
    ///   - version: The version of prefsd.
    ///   - registeredDate: When this prefsd registered.
    func hostRecord(version: String, registeredDate: Double) -> FleetHostRecord {
        let status = status
        return FleetHostRecord(
            machineID: status.machineID ?? "", name: status.hostName ?? "", groups: status.groups, version: version,
            state: status.state.rawValue, appliedRevision: min(status.appliedRevision, writtenRevision.withLock { $0 }),
            policyRevision: status.policyRevision ?? status.appliedRevision, policyDate: policyDate.withLock { $0 },
            lastError: status.lastError, lastErrorDate: status.lastErrorDate?.secondsSince1970,
            refusedValues: status.refusedValues, registeredDate: registeredDate)
    }

    /// Records an attempt to reach `endpoint`.
    func connecting(to endpoint: String) {
        current.withLock { $0.endpoint = endpoint }
    }

    /// Records the newest managed change known: the revision of a watched batch, or the newest `mod_revision` of a
    /// full read.
    func knows(policyRevision revision: Int64) {
        let newer = current.withLock { status in
            guard revision > (status.policyRevision ?? 0) else { return false }
            status.policyRevision = revision
            return true
        }
        guard newer else { return }
        let now = POSIX.currentTimeSince1970()
        policyDate.withLock { $0 = now }
        changes.signal()
    }

    /// Records the host registered in the fleet's registry at `key`, on a lease of `seconds`.
    func registered(at key: String, leaseSeconds seconds: Int64) {
        current.withLock { status in
            status.hostKey = key
            status.hostLeaseSeconds = seconds
            status.registrationError = nil
        }
    }

    /// Records that the host could not register (or renew its registration); its entry may have expired.
    func registrationFailed(_ message: String, expired: Bool) {
        current.withLock { status in
            status.registrationError = message
            if expired {
                status.hostKey = nil
                status.hostLeaseSeconds = nil
            }
        }
    }

    /// Records a watch established on `endpoint`; `revision` is etcd's, from the response header.
    func connected(to endpoint: String, revision: Int64) {
        current.withLock { status in
            status.state = .connected
            status.endpoint = endpoint
            status.hear(revision)
        }
        changes.signal()
    }

    /// Records a revision etcd reported (a response header, a progress report) without a change applied.
    func heard(_ revision: Int64) {
        current.withLock { $0.hear(revision) }
    }

    /// Records changes written to the cache up to `applied`, with `refused` values refused among them; `reported` is
    /// the revision of etcd's response.
    func applied(_ applied: Int64, reported: Int64, refused: Int) {
        current.withLock { status in
            status.appliedRevision = applied
            status.hear(reported)
            status.refusedValues += UInt64(refused)
        }
        changes.signal()
    }

    /// Records the host's name and groups from reloaded settings.
    func reconfigured(hostName: String, groups: [String]) {
        current.withLock { status in
            status.hostName = hostName
            status.groups = groups
        }
        changes.signal()
    }

    /// Records that the cache files on disk hold `revision`.
    func cacheWritten(_ revision: Int64) {
        let advanced = writtenRevision.withLock { written in
            defer { written = max(written, revision) }
            return revision > written
        }
        if advanced { changes.signal() }
    }

    /// Records the roaming domains, their etcd name, and how many local changes wait to be pushed.
    func roaming(user: String, domains: [String], pending: Int) {
        current.withLock { status in
            status.roamingUser = user
            status.roamingDomains = domains
            status.roamingPending = UInt64(pending)
        }
    }

    /// Records a failure: the daemon is offline and serves the cached policy until a watch is established again.
    func failed(_ message: String, endpoint: String) {
        let date = POSIX.currentTimeSince1970()
        current.withLock { status in
            status.state = .offline
            status.endpoint = endpoint
            status.lastError = message
            status.lastErrorDate = PlistDate(secondsSince1970: date)
        }
        changes.signal()
    }
}

extension WireFleetStatus {
    /// Keeps the newest revision reported.
    fileprivate mutating func hear(_ revision: Int64) {
        if revision > (latestRevision ?? 0) { latestRevision = revision }
    }
}
