// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// A lease etcd granted: keys put with it (``EtcdClient/put(_:value:lease:)``) go when it expires or is revoked.
package struct EtcdLease: Sendable, Hashable {
    /// etcd's id of the lease.
    package var id: Int64
    /// Its time to live, in seconds, as etcd granted it.
    package var seconds: Int64
}

extension EtcdClient {
    // etcd's leases through its JSON gateway (docs/FLEET.md, "Transport"): a key attached to a lease lives only while
    // its holder keeps the lease alive, which is how a fleet tells live hosts (docs/FLEET.md, "Scaling").

    /// Asks etcd for a lease.
    /// - Parameter seconds: Its time to live; etcd may grant more (its minimum is a few seconds).
    /// - Returns: The lease, with the time to live granted.
    /// - Throws: ``EtcdError``: `invalidArgument` for a time to live under 1 s; what the request meets otherwise.
    package func grantLease(seconds: Int64) async throws(EtcdError) -> EtcdLease {
        guard seconds >= 1 else {
            throw EtcdError(.invalidArgument, "a lease lives at least 1 s, not \(seconds)")
        }
        let response = try await call(
            "/v3/lease/grant", ["TTL": .string(String(seconds))], what: "a lease of \(seconds) s")
        if case .string(let message)? = response["error"], !message.isEmpty {
            throw EtcdError(.refused, "etcd refused a lease of \(seconds) s: \(message)")
        }
        guard let id = try EtcdJSON.integer(response, "ID"), id != 0 else {
            throw EtcdError(.malformedResponse, "etcd's answer to a lease of \(seconds) s has no lease id")
        }
        return EtcdLease(id: id, seconds: try EtcdJSON.integer(response, "TTL") ?? seconds)
    }

    /// Renews a lease for its whole time to live, as etcd's `LeaseKeepAlive` does once.
    /// - Returns: The seconds it now has to live.
    /// - Throws: ``EtcdError`` with code `refused` when the lease has expired or was revoked (its keys are gone).
    @discardableResult
    package func keepAlive(_ lease: EtcdLease) async throws(EtcdError) -> Int64 {
        // The gateway streams: one request object in, one answer out, then the end of both.
        let response = try await call("/v3/lease/keepalive", ["ID": .string(String(lease.id))], what: "a lease renewal")
        let result = EtcdJSON.dictionary(response, "result")
        guard let seconds = try EtcdJSON.integer(result, "TTL"), seconds > 0 else {
            throw EtcdError(.refused, "etcd's lease \(lease.id) has expired or was revoked: its keys are gone")
        }
        return seconds
    }

    /// How long a lease has left.
    /// - Returns: Its seconds to live, or `nil` when it has expired or was revoked.
    package func timeToLive(_ lease: EtcdLease) async throws(EtcdError) -> Int64? {
        let response = try await call(
            "/v3/lease/timetolive", ["ID": .string(String(lease.id))], what: "the time to live of a lease")
        guard let seconds = try EtcdJSON.integer(response, "TTL"), seconds > 0 else { return nil }
        return seconds
    }

    /// Ends a lease now: its keys go at once.
    /// - Throws: ``EtcdError`` with code `refused` when etcd does not know the lease (expired already).
    package func revoke(_ lease: EtcdLease) async throws(EtcdError) {
        _ = try await call("/v3/lease/revoke", ["ID": .string(String(lease.id))], what: "the revocation of a lease")
    }
}
