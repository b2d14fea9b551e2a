// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// What one etcd member says of itself (`/v3/maintenance/status`).
package struct EtcdMemberStatus: Sendable, Hashable {
    /// The member's id.
    package var memberID: UInt64
    /// The id of the leader the member follows; 0 when it has none (it cannot reach a quorum).
    package var leader: UInt64
    /// The member's revision.
    package var revision: Int64

    /// Whether the member has a leader, and so serves the cluster's newest changes.
    package var hasLeader: Bool { leader != 0 }
}

extension EtcdClient {
    // Questions about the health of a watch and of the member that serves it (docs/FLEET.md, "Watch liveness"): a
    // watch that delivers nothing may be idle or may be dead, and only the member can tell.

    /// Asks one member for its status.
    /// - Throws: ``EtcdError`` when the member does not answer within ``requestTimeout``.
    package func status(of endpoint: EtcdEndpoint) async throws(EtcdError) -> EtcdMemberStatus {
        let response = try await call(
            "/v3/maintenance/status", [:], what: "the status of the member at \(endpoint)", at: endpoint)
        let header = EtcdJSON.dictionary(response, "header")
        return EtcdMemberStatus(
            memberID: try EtcdJSON.unsigned(header, "member_id") ?? 0,
            leader: try EtcdJSON.unsigned(response, "leader") ?? 0,
            revision: try EtcdJSON.headerRevision(response))
    }

    /// The newest `mod_revision` among the keys under `prefix`, and the store's revision.
    /// - Parameters:
    ///   - prefix: The key prefix.
    ///   - endpoint: The member to ask, with a serializable read of its own state (which a member without a leader
    ///     still answers); `nil` for a linearizable read through any member.
    /// - Returns: 0 as the newest when no key is under the prefix.
    package func newestModRevision(
        prefix: String, at endpoint: EtcdEndpoint? = nil
    ) async throws(EtcdError) -> (newest: Int64, revision: Int64) {
        var request: PlistDictionary = [
            "key": EtcdJSON.base64(prefix), "range_end": EtcdJSON.base64(EtcdJSON.prefixRangeEnd(Array(prefix.utf8))),
            "limit": .string("1"), "sort_order": .string("DESCEND"), "sort_target": .string("MOD"),
            "keys_only": .bool(true),
        ]
        let what = "the newest change under \(prefix)"
        let response: PlistDictionary
        if let endpoint {
            request["serializable"] = .bool(true)
            response = try await call("/v3/kv/range", request, what: what, at: endpoint)
        } else {
            response = try await call("/v3/kv/range", request, what: what)
        }
        let newest = try EtcdJSON.dictionaries(response, "kvs").first.map { keyValue throws(EtcdError) in
            try EtcdJSON.integer(keyValue, "mod_revision") ?? 0
        }
        return (newest ?? 0, try EtcdJSON.headerRevision(response))
    }
}
