// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Synchronization

/// The part of etcd v3's API that fleet preferences need, over its JSON gateway (`/v3/kv/range`, `/v3/kv/put`,
/// `/v3/kv/txn`, `/v3/watch`): range reads, puts, transactions comparing `mod_revision`, and watches from a
/// revision.
///
/// Unary requests go to the endpoint that last answered and move on to the next one when it cannot be reached, so
/// one dead member of a cluster costs one failed connection attempt.
///
/// With credentials, the client authenticates (`/v3/auth/authenticate`) before its first request and sends the
/// token in the `Authorization` header of every request and watch; when etcd answers that the token is invalid
/// (simple tokens expire after `--auth-token-ttl` seconds unused), it authenticates once more and sends the request
/// again.
package final class EtcdClient: Sendable {
    /// The cluster's client URLs.
    package let endpoints: [EtcdEndpoint]
    /// How long one unary request may take, connection included.
    package let requestTimeout: Duration
    /// The user and password, or `nil` for a cluster without authentication.
    package let credentials: EtcdCredentials?
    /// The TLS context of `https://` endpoints (``EtcdTLSContext/forEndpoints(_:configuration:)``); `nil` for the
    /// system's CA certificates and no client certificate.
    package let tls: EtcdTLSContext?
    private let transport: EtcdHTTPTransport
    private let preferred = Atomic<Int>(0)
    /// The token of the last authentication, `nil` until then and after etcd refused it.
    private let token = Mutex<String?>(nil)

    /// Creates a client.
    /// - Parameters:
    ///   - endpoints: At least one member's client URL.
    ///   - credentials: The user and password, or `nil` for a cluster without authentication.
    ///   - tls: The TLS context for `https://` endpoints, or `nil` for the system's CA certificates.
    ///   - requestTimeout: How long one unary request may take.
    package init(
        endpoints: [EtcdEndpoint], credentials: EtcdCredentials? = nil, tls: EtcdTLSContext? = nil,
        requestTimeout: Duration = .seconds(5)
    ) {
        precondition(!endpoints.isEmpty, "an etcd client needs at least one endpoint")
        self.endpoints = endpoints
        self.credentials = credentials
        self.tls = tls
        self.requestTimeout = requestTimeout
        self.transport = EtcdHTTPTransport(tls: tls)
    }

    /// The endpoint unary requests try first.
    package var currentEndpoint: EtcdEndpoint { endpoints[preferred.load(ordering: .relaxed) % endpoints.count] }

    /// The result of a range read.
    package struct RangeResult: Sendable {
        /// The keys, in key order.
        package var keyValues: [EtcdKeyValue]
        /// The store's revision the read saw.
        package var revision: Int64
    }

    /// Reads every key that starts with `prefix`.
    /// - Parameters:
    ///   - prefix: The key prefix.
    ///   - revision: The revision to read at, or `nil` for the newest.
    /// - Throws: ``EtcdError``; `compacted` when `revision` was compacted away.
    package func range(prefix: String, revision: Int64? = nil) async throws(EtcdError) -> RangeResult {
        var request: PlistDictionary = [
            "key": EtcdJSON.base64(prefix), "range_end": EtcdJSON.base64(EtcdJSON.prefixRangeEnd(Array(prefix.utf8))),
        ]
        if let revision { request["revision"] = .string(String(revision)) }
        return try await rangeRequest(request, what: "a range read of \(prefix)")
    }

    /// Reads one key.
    /// - Returns: The key, or `nil` when it does not exist, and the store's revision.
    package func get(_ key: String) async throws(EtcdError) -> (keyValue: EtcdKeyValue?, revision: Int64) {
        let result = try await rangeRequest(["key": EtcdJSON.base64(key)], what: "a read of \(key)")
        return (result.keyValues.first, result.revision)
    }

    /// Writes one key unconditionally.
    /// - Returns: The revision of the write.
    /// - Parameters:
    ///   - key: The key.
    ///   - value: Its new value.
    ///   - lease: A lease to attach the key to (``grantLease(seconds:)``): the key goes when the lease expires or is
    ///     revoked.
    @discardableResult
    package func put(_ key: String, value: [UInt8], lease: EtcdLease? = nil) async throws(EtcdError) -> Int64 {
        var request: PlistDictionary = ["key": EtcdJSON.base64(key), "value": EtcdJSON.base64(value)]
        if let lease { request["lease"] = .string(String(lease.id)) }
        let response = try await call("/v3/kv/put", request, what: "a put of \(key)")
        return try EtcdJSON.headerRevision(response)
    }

    /// What a compare-and-set transaction does when its compare holds.
    package enum Mutation: Sendable {
        /// Writes the key.
        case put([UInt8])
        /// Removes the key.
        case delete
    }

    /// Changes one key only if its `mod_revision` is still `expectedModRevision` (0: the key must not exist), as
    /// one transaction, so that two writers never lose each other's change.
    /// - Returns: The revision of the change.
    /// - Throws: ``EtcdError`` with code `conflict` when the key changed since, naming its current revision.
    @discardableResult
    package func compareAndSet(
        _ key: String, expectedModRevision: Int64, _ mutation: Mutation
    ) async throws(EtcdError) -> Int64 {
        let keyText = EtcdJSON.base64(key)
        let operation: PlistValue =
            switch mutation {
            case .put(let value):
                .dictionary(["request_put": .dictionary(["key": keyText, "value": EtcdJSON.base64(value)])])
            case .delete:
                .dictionary(["request_delete_range": .dictionary(["key": keyText])])
            }
        let request: PlistDictionary = [
            "compare": .array([
                .dictionary([
                    "key": keyText, "target": "MOD", "result": "EQUAL",
                    "mod_revision": .string(String(expectedModRevision)),
                ])
            ]),
            "success": .array([operation]),
            "failure": .array([.dictionary(["request_range": .dictionary(["key": keyText])])]),
        ]
        let response = try await call("/v3/kv/txn", request, what: "a transaction on \(key)")
        let revision = try EtcdJSON.headerRevision(response)
        guard case .bool(true)? = response["succeeded"] else {
            var current: Int64 = 0
            for reply in EtcdJSON.dictionaries(response, "responses") {
                let range = EtcdJSON.dictionary(reply, "response_range")
                if let keyValue = EtcdJSON.dictionaries(range, "kvs").first {
                    current = try EtcdJSON.integer(keyValue, "mod_revision") ?? 0
                }
            }
            throw EtcdError(
                .conflict,
                "\(key) changed since revision \(expectedModRevision) (it is now at revision \(current)); "
                    + "nothing was written")
        }
        return revision
    }

    /// Watches every key that starts with `prefix` from `startRevision` on one connection to `endpoint`, handing
    /// each message to `handle`, until the connection breaks, `handle` throws or the task is cancelled. `handle`
    /// runs on the connection's event loop as each batch arrives, and must not block.
    /// - Throws: ``EtcdError``: `compacted` (with ``EtcdError/compactRevision``) when `startRevision` is older than
    ///   what etcd keeps; `unavailable` when the stream ends or breaks; or what `handle` throws.
    package func watch(
        prefix: String, startRevision: Int64, endpoint: EtcdEndpoint,
        handle: @escaping @Sendable (EtcdWatchMessage) throws -> Void
    ) async throws {
        let request: PlistDictionary = [
            "create_request": .dictionary([
                "key": EtcdJSON.base64(prefix),
                "range_end": EtcdJSON.base64(EtcdJSON.prefixRangeEnd(Array(prefix.utf8))),
                "start_revision": .string(String(startRevision)),
            ])
        ]
        let what = "a watch of \(prefix)"
        let delivered = Atomic<Bool>(false)
        var attempt = 0
        while true {
            attempt += 1
            let authorization = try await authorization()
            do {
                try await watchOnce(
                    request, startRevision: startRevision, endpoint: endpoint, authorization: authorization
                ) { message in
                    delivered.store(true, ordering: .relaxed)
                    try handle(message)
                }
                return
            } catch let error as EtcdError where error.code == .unauthenticated || error.code == .permissionDenied {
                // etcd checks the token when the watch is created, before any event: a new token and one more try.
                if error.code == .unauthenticated, credentials != nil, attempt == 1, !delivered.load(ordering: .relaxed)
                {
                    forgetToken(authorization)
                    continue
                }
                throw explained(error, what: what)
            }
        }
    }

    private func watchOnce(
        _ request: PlistDictionary, startRevision: Int64, endpoint: EtcdEndpoint, authorization: String?,
        handle: @escaping @Sendable (EtcdWatchMessage) throws -> Void
    ) async throws {
        try await transport.stream(
            "/v3/watch", body: EtcdJSON.encode(request), to: endpoint, authorization: authorization
        ) { object in
            let envelope = try EtcdJSON.decode(object, what: "a watch")
            if case .dictionary(let error)? = envelope["error"] {
                let message = error["message"].flatMap { if case .string(let text) = $0 { text } else { nil } }
                throw EtcdError(.refused, "etcd at \(endpoint) ended the watch: \(message ?? "unknown error")")
            }
            let result = EtcdJSON.dictionary(envelope, "result")
            let revision = try EtcdJSON.headerRevision(result)
            if let compacted = try EtcdJSON.integer(result, "compact_revision"), compacted > 0 {
                throw EtcdError(
                    .compacted,
                    "etcd compacted its history up to revision \(compacted); the watch from \(startRevision) cannot "
                        + "resume", compactRevision: compacted)
            }
            if case .bool(true)? = result["canceled"] {
                let reason = result["cancel_reason"].flatMap { if case .string(let text) = $0 { text } else { nil } }
                let code = reason.flatMap { EtcdError.Code(authenticationMessage: $0) } ?? .unavailable
                throw EtcdError(code, "etcd at \(endpoint) cancelled the watch: \(reason ?? "no reason given")")
            }
            if case .bool(true)? = result["created"] {
                try handle(.created(revision: revision))
                return
            }
            let events = EtcdJSON.dictionaries(result, "events")
            if events.isEmpty {
                try handle(.progress(revision: revision))
                return
            }
            var batch: [EtcdWatchEvent] = []
            for event in events {
                let kind: EtcdWatchEvent.Kind = event["type"] == .string("DELETE") ? .delete : .put
                batch.append(
                    EtcdWatchEvent(kind: kind, keyValue: try EtcdKeyValue(json: EtcdJSON.dictionary(event, "kv"))))
            }
            try handle(.events(batch, revision: revision))
        }
    }

    /// Moves unary requests to the next endpoint; the watch loop calls it too when its member fails.
    package func advanceEndpoint() { preferred.add(1, ordering: .relaxed) }

    private func rangeRequest(_ request: PlistDictionary, what: String) async throws(EtcdError) -> RangeResult {
        let response = try await call("/v3/kv/range", request, what: what)
        var keyValues: [EtcdKeyValue] = []
        for keyValue in EtcdJSON.dictionaries(response, "kvs") { keyValues.append(try EtcdKeyValue(json: keyValue)) }
        return RangeResult(keyValues: keyValues, revision: try EtcdJSON.headerRevision(response))
    }

    /// Authenticates now, when the client has credentials and no token: a wrong password is then reported before
    /// anything else is tried.
    /// - Throws: ``EtcdError`` with code `authenticationFailed` naming the user when etcd refuses the password.
    package func authenticate() async throws(EtcdError) {
        _ = try await authorization()
    }

    /// The token to send, authenticating first when there is none yet; `nil` without credentials.
    private func authorization() async throws(EtcdError) -> String? {
        guard let credentials else { return nil }
        if let current = token.withLock({ $0 }) { return current }
        let response: PlistDictionary
        do {
            response = try await callOnce(
                "/v3/auth/authenticate",
                ["name": .string(credentials.user), "password": .string(credentials.password)],
                what: "the authentication of user \(credentials.user)", authorization: nil)
        } catch  where error.code == .authenticationFailed {
            throw EtcdError(
                .authenticationFailed,
                "etcd refused the user name or password of user \(credentials.user): \(error.message)")
        }
        guard case .string(let issued)? = response["token"], !issued.isEmpty else {
            throw EtcdError(
                .malformedResponse, "etcd's answer to the authentication of \(credentials.user) has no token")
        }
        token.withLock { $0 = issued }
        return issued
    }

    /// Drops a token etcd refused, unless another request already replaced it.
    private func forgetToken(_ refused: String?) {
        token.withLock { if $0 == refused { $0 = nil } }
    }

    /// An authorization error with a message naming what was refused and to whom.
    private func explained(_ error: EtcdError, what: String) -> EtcdError {
        let who = credentials.map { "user \($0.user)" } ?? "a client without credentials"
        switch error.code {
        case .permissionDenied:
            return EtcdError(
                .permissionDenied, "permission denied: etcd refused \(what) to \(who), whose roles do not allow it")
        case .unauthenticated where credentials == nil:
            return EtcdError(
                .unauthenticated,
                "etcd refused \(what): authentication is enabled on the cluster and no etcd user was given "
                    + "(\(error.message))")
        case .unauthenticated:
            return EtcdError(.unauthenticated, "etcd refused the token of \(who) for \(what): \(error.message)")
        default:
            return error
        }
    }

    /// Sends a unary request with the token, authenticating once more and sending it again when etcd refuses the
    /// token; explains permission errors.
    func call(
        _ path: String, _ request: PlistDictionary, what: String
    ) async throws(EtcdError) -> PlistDictionary {
        var attempt = 0
        while true {
            attempt += 1
            let authorization = try await authorization()
            do {
                return try await callOnce(path, request, what: what, authorization: authorization)
            } catch  where error.code == .unauthenticated && credentials != nil && attempt == 1 {
                forgetToken(authorization)
            } catch  where error.code == .unauthenticated || error.code == .permissionDenied {
                throw explained(error, what: what)
            }
        }
    }

    /// Sends a unary request to one endpoint only, once (a new token and one more try when etcd refuses the token):
    /// for questions about that member, such as whether the watch it serves is still alive.
    func call(
        _ path: String, _ request: PlistDictionary, what: String, at endpoint: EtcdEndpoint
    ) async throws(EtcdError) -> PlistDictionary {
        var attempt = 0
        while true {
            attempt += 1
            let authorization = try await authorization()
            do {
                let bytes = try await transport.post(
                    path, body: EtcdJSON.encode(request), to: endpoint, authorization: authorization,
                    timeout: requestTimeout)
                return try EtcdJSON.decode(bytes, what: what)
            } catch  where error.code == .unauthenticated && credentials != nil && attempt == 1 {
                forgetToken(authorization)
            } catch  where error.code == .unauthenticated || error.code == .permissionDenied {
                throw explained(error, what: what)
            }
        }
    }

    /// Sends a unary request to the preferred endpoint, then each other one in turn while they cannot be reached
    /// or answer that they cannot serve now (HTTP 503: no leader, leader changed), round after round with a pause
    /// of 100 ms, until ``requestTimeout`` has passed.
    private func callOnce(
        _ path: String, _ request: PlistDictionary, what: String, authorization: String?
    ) async throws(EtcdError) -> PlistDictionary {
        let body = EtcdJSON.encode(request)
        var failures: [String] = []
        let deadline = ContinuousClock.now + requestTimeout
        var attempt = 0
        while true {
            let index = (preferred.load(ordering: .relaxed) + attempt) % endpoints.count
            let endpoint = endpoints[index]
            do {
                let remaining = max(deadline - ContinuousClock.now, .milliseconds(200))
                let bytes = try await transport.post(
                    path, body: body, to: endpoint, authorization: authorization, timeout: remaining)
                if attempt % endpoints.count != 0 { preferred.store(index, ordering: .relaxed) }
                return try EtcdJSON.decode(bytes, what: what)
            } catch
                where error.code == .unavailable || error.code == .timedOut || error.message.containsText("HTTP 503")
            {
                failures.append(error.message)
            } catch  where error.code == .refused && error.message.containsText("compacted") {
                throw EtcdError(.compacted, error.message)
            }
            attempt += 1
            if ContinuousClock.now >= deadline { break }
            if attempt % endpoints.count == 0 {
                do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
            }
        }
        throw EtcdError(
            .unavailable,
            "no etcd endpoint answered \(what): " + failures.suffix(endpoints.count).joined(separator: "; "))
    }
}
