// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
import PrefsPlist
import PrefsWire
import Synchronization

/// The fleet state of this daemon, as `fleetStatus` reports it: written by ``FleetService`` as it connects, applies
/// changes and fails, read by every connection that asks. One lock around one small value, so a reader never sees
/// half an update.
final class FleetStatusBoard: Sendable {
    private let current: Mutex<WireFleetStatus>

    /// Creates the board of a daemon that is joining a fleet.
    /// - Parameters:
    ///   - cacheDirectory: The fleet cache directory.
    ///   - appliedRevision: The revision the cache holds from an earlier run.
    init(cacheDirectory: String, appliedRevision: Int64) {
        current = Mutex(
            WireFleetStatus(state: .connecting, appliedRevision: appliedRevision, cacheDirectory: cacheDirectory))
    }

    /// The state now.
    var status: WireFleetStatus { current.withLock { $0 } }

    /// Records an attempt to reach `endpoint`.
    func connecting(to endpoint: String) {
        current.withLock { $0.endpoint = endpoint }
    }

    /// Records a watch established on `endpoint`; `revision` is etcd's, from the response header.
    func connected(to endpoint: String, revision: Int64) {
        current.withLock { status in
            status.state = .connected
            status.endpoint = endpoint
            status.hear(revision)
        }
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
    }
}

extension WireFleetStatus {
    /// Keeps the newest revision reported.
    fileprivate mutating func hear(_ revision: Int64) {
        if revision > (latestRevision ?? 0) { latestRevision = revision }
    }
}
