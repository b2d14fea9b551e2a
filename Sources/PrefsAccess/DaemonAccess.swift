// SPDX-License-Identifier: Apache-2.0
import PrefsClient
package import PrefsPlist
package import PrefsStore
package import PrefsWire
import Synchronization

/// ``DomainAccess`` through `prefsd`: every read and write is a request on one connection (made on first use, and
/// again after the daemon restarts), so the caller sees exactly what the daemon's other clients see and its writes
/// reach their subscriptions at once. Observation subscribes on a connection of its own.
///
/// A request that failed before it was sent whole is sent again once on a new connection; a write whose answer was
/// lost after it was sent is reported as `.outcomeUnknown`, never sent again.
package final class DaemonAccess: DomainAccess {
    /// The daemon's socket.
    package let socketPath: String
    private let clientName: String
    private let timeout: Duration?
    private let connection = Mutex<PrefsBlockingClient?>(nil)
    /// A read sent with `hello` (``connect(reading:)``), and its client holding the result, until it is asked for.
    private let prefetched = Mutex<(read: WireOperation, client: PrefsBlockingClient)?>(nil)
    /// The broken files the daemon named since the last ``takeDiagnostics()``, as the files route's store reports
    /// them: so that `defaults` warns about each, whichever route it took.
    private let diagnostics = Mutex<[StoreDiagnostic]>([])

    /// Creates the access; nothing connects until the first request (or ``connect()``).
    /// - Parameters:
    ///   - socketPath: The daemon's socket.
    ///   - clientName: The name the daemon logs for this client.
    ///   - timeout: How long to wait for each reply; `nil` waits for ever.
    package init(socketPath: String, clientName: String, timeout: Duration? = .seconds(30)) {
        self.socketPath = socketPath
        self.clientName = clientName
        self.timeout = timeout
    }

    package var route: AccessRoute { .daemon(socketPath: socketPath) }

    /// Connects now, if not connected.
    /// - Throws: ``PrefsAccessError`` with code `.unavailable` when nothing answers on the socket.
    package func connect() throws(PrefsAccessError) {
        _ = try client()
    }

    /// Connects now, if not connected, sending a read with `hello` (one round trip for both) for the first
    /// ``values(of:)`` of the domain or ``value(forKey:in:)`` of the key: what a one-shot `defaults read` does.
    /// - Throws: ``PrefsAccessError`` with code `.unavailable` when nothing answers on the socket.
    package func connect(reading first: FirstRead) throws(PrefsAccessError) {
        guard let wire = try? Self.wireDomain(first.domain) else { return try connect() }
        let read: WireOperation = first.key.map { .get(wire, key: $0) } ?? .readDomain(wire)
        let made = try client(reading: read)
        prefetched.withLock { $0 = (read, made) }
    }

    // MARK: Requests

    /// Sends one request and returns its result.
    ///
    /// A request that did not get out whole (the connection was found broken: the daemon restarted) is sent once
    /// more on a new connection. A read whose answer was lost is sent again too; a write is not.
    package func send(_ operation: WireOperation) throws(PrefsAccessError) -> WireResult {
        var attempt = 0
        while true {
            attempt += 1
            let connected = try client()
            do {
                return try connected.send(operation)
            } catch  where error.code == .refused {
                throw PrefsAccessError(error)
            } catch {
                // The connection is broken either way; the next request makes a new one.
                connection.withLock { if $0 === connected { $0 = nil } }
                let resendable = error.code != .outcomeUnknown || !operation.isWrite
                if resendable, attempt < 2, error.code != .protocolViolation { continue }
                throw PrefsAccessError(error)
            }
        }
    }

    /// The connected client, connecting first when there is none.
    /// - Parameter first: A read to send with `hello` when a connection is made (its result waits in the client).
    func client(reading first: WireOperation? = nil) throws(PrefsAccessError) -> PrefsBlockingClient {
        if let current = connection.withLock({ $0 }) { return current }
        let made: PrefsBlockingClient
        do {
            made = try PrefsBlockingClient(
                socketPath: socketPath, clientName: clientName, timeout: timeout,
                handshakeTimeout: PrefsBlockingClient.defaultHandshakeTimeout, reading: first)
        } catch {
            throw PrefsAccessError(error)
        }
        return connection.withLock { current in
            if let current { return current }
            current = made
            return made
        }
    }

    // MARK: DomainAccess

    package func values(of domain: DomainID) throws(PrefsAccessError) -> PlistDictionary? {
        try read(domain, corruptIsEmpty: false).values
    }

    /// Asks for the key alone (`get`): a large domain is not sent whole for one of its keys.
    package func value(forKey key: String, in domain: DomainID) throws(PrefsAccessError) -> PlistValue? {
        let read = WireOperation.get(try Self.wireDomain(domain), key: key)
        let result: WireResult
        do throws(PrefsAccessError) {
            if let prefetched = try takePrefetched(read) { result = prefetched } else { result = try send(read) }
        } catch {
            throw noted(error, domain: domain)
        }
        guard case .get(let value, _) = result else { throw Self.unexpected(result) }
        return value
    }

    /// A domain's values (`nil` when it does not exist) and version, consistent with each other.
    /// - Parameter corruptIsEmpty: Whether a corrupt file reads as an empty domain at its version (for an edit,
    ///   whose write sets the file aside, as on the files), rather than as its error.
    func read(
        _ domain: DomainID, corruptIsEmpty: Bool
    ) throws(PrefsAccessError) -> (values: PlistDictionary?, version: UInt64) {
        let wire = try Self.wireDomain(domain)
        let first: DomainRead
        do throws(PrefsAccessError) {
            first = try readOnce(wire)
        } catch {
            let error = noted(error, domain: domain)
            if corruptIsEmpty, let version = Self.corruptDomainVersion(error) { return (nil, version) }
            throw error
        }
        switch first {
        case .found(let values, let version): return (values.isEmpty ? nil : values, version)
        case .absent(let version?): return (nil, version)
        case .absent(nil): break
        }
        // A prefsd 1.0 answers a missing domain without its version: it comes from `get`, and a second
        // read proves the domain was still absent at that version (were it created in between, the read returns it
        // and its version instead).
        let result = try send(.get(wire, key: ""))
        guard case .get(_, let version) = result else { throw Self.unexpected(result) }
        if case .found(let values, let found) = try readOnce(wire) { return (values.isEmpty ? nil : values, found) }
        return (nil, version)
    }

    /// What one `readDomain` said: the domain, or that it is absent, at the version prefsd gave (if it gave one).
    private enum DomainRead {
        case found(PlistDictionary, version: UInt64)
        case absent(version: UInt64?)
    }

    private func readOnce(_ wire: WireDomain) throws(PrefsAccessError) -> DomainRead {
        let result: WireResult
        do throws(PrefsAccessError) {
            if let prefetched = try takePrefetched(.readDomain(wire)) {
                result = prefetched
            } else {
                result = try send(.readDomain(wire))
            }
        } catch {
            if let client = error.cause as? PrefsClientError, let serverError = client.serverError,
                serverError.code == .notFound
            {
                return .absent(version: serverError.currentVersion)
            }
            throw error
        }
        guard case .readDomain(let values, let version) = result else { throw Self.unexpected(result) }
        return .found(values, version: version)
    }

    /// The result of `read` sent with `hello`, once, as ``send(_:)`` would return it; `nil` when there is none (or
    /// its connection broke, so that ``send(_:)`` sends the read again on a new one).
    private func takePrefetched(_ read: WireOperation) throws(PrefsAccessError) -> WireResult? {
        guard
            let client = prefetched.withLock({ prefetched in
                defer { prefetched = nil }
                return prefetched?.read == read ? prefetched?.client : nil
            })
        else { return nil }
        switch client.takeFirstResult() {
        case .success(let result): return result
        case .failure(let error) where error.code == .refused: throw PrefsAccessError(error)
        case .failure, nil: return nil
        }
    }

    @discardableResult
    package func setValue(
        _ value: PlistValue?, forKey key: String, in domain: DomainID
    ) throws(PrefsAccessError) -> UInt64 {
        let wire = try Self.wireDomain(domain)
        let operation: WireOperation =
            value.map { .set(wire, key: key, value: $0, expectedVersion: nil) }
            ?? .remove(wire, key: key, expectedVersion: nil)
        return try Self.version(of: send(operation))
    }

    @discardableResult
    package func setValues(_ changes: [PlistKey: PlistValue?], in domain: DomainID) throws(PrefsAccessError) -> UInt64 {
        try setValues(changes, in: domain, expectedVersion: nil)
    }

    /// Sets and removes keys, optionally only if the domain is still at `expectedVersion`.
    func setValues(
        _ changes: [PlistKey: PlistValue?], in domain: DomainID, expectedVersion: UInt64?
    ) throws(PrefsAccessError) -> UInt64 {
        var values: PlistDictionary = [:]
        var removeKeys: [PlistKey] = []
        for (key, value) in changes {
            if let value { values[key] = value } else { removeKeys.append(key) }
        }
        let result = try send(
            .setMany(
                try Self.wireDomain(domain), values: values, removeKeys: removeKeys.sorted().map(\.string),
                expectedVersion: expectedVersion))
        return try Self.version(of: result)
    }

    @discardableResult
    package func replaceValues(
        of domain: DomainID, with values: PlistDictionary
    ) throws(PrefsAccessError) -> UInt64 {
        try replaceValues(of: domain, with: values, expectedVersion: nil)
    }

    /// Replaces a domain's contents, optionally only if the domain is still at `expectedVersion`.
    func replaceValues(
        of domain: DomainID, with values: PlistDictionary, expectedVersion: UInt64?
    ) throws(PrefsAccessError) -> UInt64 {
        let result = try send(
            .writeDomain(try Self.wireDomain(domain), values: values, expectedVersion: expectedVersion))
        return try Self.version(of: result)
    }

    package func update<Outcome>(
        _ domain: DomainID, maxAttempts: Int, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsAccessError) -> (outcome: Outcome, version: UInt64) {
        try retryingConflicts(in: domain, maxAttempts: maxAttempts) { () throws(PrefsAccessError) in
            let (found, version) = try read(domain, corruptIsEmpty: true)
            let base = found ?? [:]
            var values = base
            let outcome = body(&values)
            var changes: [PlistKey: PlistValue?] = [:]
            for (key, value) in PreferencesStore.changes(from: base, to: values) {
                changes[PlistKey(key)] = .some(value)
            }
            if changes.isEmpty { return (outcome, version) }
            return (outcome, try setValues(changes, in: domain, expectedVersion: version))
        }
    }

    package func update(
        key: String, in domain: DomainID, maxAttempts: Int,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> (value: PlistValue?, version: UInt64) {
        let wire = try Self.wireDomain(domain)
        return try retryingConflicts(in: domain, maxAttempts: maxAttempts) { () throws(PrefsAccessError) in
            let old: PlistValue?
            let version: UInt64
            do throws(PrefsAccessError) {
                let result = try send(.get(wire, key: key))
                guard case .get(let value, let current) = result else { throw Self.unexpected(result) }
                (old, version) = (value, current)
            } catch {
                // A corrupt file is an empty domain to an edit: its write sets the file aside.
                let error = noted(error, domain: domain)
                guard let current = Self.corruptDomainVersion(error) else { throw error }
                (old, version) = (nil, current)
            }
            let value = transform(old)
            if value == old { return (value, version) }
            let operation: WireOperation =
                value.map { .set(wire, key: key, value: $0, expectedVersion: version) }
                ?? .remove(wire, key: key, expectedVersion: version)
            return (value, try Self.version(of: send(operation)))
        }
    }

    /// Runs a read-compute-write attempt until its compare-and-set write commits: a `versionConflict` (another writer
    /// came first) starts it over after a short random pause, up to `maxAttempts` times.
    private func retryingConflicts<Result>(
        in domain: DomainID, maxAttempts: Int, _ attempt: () throws(PrefsAccessError) -> Result
    ) throws(PrefsAccessError) -> Result {
        var backoff = UpdateBackoff()
        for _ in 0..<max(maxAttempts, 1) {
            do throws(PrefsAccessError) {
                return try attempt()
            } catch  where error.code == .versionConflict {
                backoff.wait()
            }
        }
        throw PrefsAccessError(
            .versionConflict,
            "domain \(domain) changed under each of \(max(maxAttempts, 1)) attempts to update it; nothing was changed")
    }

    package func domainNames(in scope: DomainScope) throws(PrefsAccessError) -> [DomainName] {
        let listing: (scope: WireDomain.Scope, byHost: Bool)
        do {
            listing = try WireDomain.Scope.listing(scope)
        } catch {
            throw PrefsAccessError(.unavailable, error.message)
        }
        let operation = WireOperation.listDomains(scope: listing.scope, byHost: listing.byHost)
        let result = try send(operation)
        guard case .listDomains(let names) = result else { throw Self.unexpected(result) }
        return names.compactMap { try? DomainName($0) }
    }

    package func resolve(_ key: String, in searchList: SearchList) throws(PrefsAccessError) -> Resolution {
        let result = try send(.getEffective(WireSearchList(searchList), key: key))
        guard case .getEffective(let resolution) = result else { throw Self.unexpected(result) }
        return resolution.resolution(of: key)
    }

    package func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(PrefsAccessError) -> (observation: any AccessObservation, values: PlistDictionary) {
        let wire = try Self.wireDomain(domain)
        let filter = WireSubscriptionFilter(.domain(wire), keys: key.map { .key($0) } ?? .all)
        let subscription = try client().subscribeOrThrow([filter], startsReading: true) { _, event in
            guard let event else { return }
            switch event {
            case .changes(let changes, let origin):
                handler(changes.map { Self.changeEvent($0, origin: origin, domain: domain) })
            case .resync:
                // The daemon's queue for this observer overflowed: what changed in between is in the daemon's
                // snapshot, not in events; an observer of events cannot be given a snapshot, so it goes on.
                break
            }
        }
        return (subscription, subscription.snapshot.values)
    }

    package func synchronize() throws(PrefsAccessError) {
        let result = try send(.synchronize)
        guard case .synchronize = result else { throw Self.unexpected(result) }
    }

    package func takeDiagnostics() -> [StoreDiagnostic] {
        diagnostics.withLock { diagnostics in
            defer { diagnostics = [] }
            return diagnostics
        }
    }

    /// Keeps a problem for ``takeDiagnostics()``.
    func report(_ diagnostic: StoreDiagnostic) {
        diagnostics.withLock { $0.append(diagnostic) }
    }

    /// Keeps the daemon's report of a domain file it cannot use (corrupt, unreadable, not a regular file, too large) as a
    /// warning for ``takeDiagnostics()``, as the files route's store keeps its own; returns the error unchanged.
    private func noted(_ error: PrefsAccessError, domain: DomainID) -> PrefsAccessError {
        let code: PrefsStoreError.Code? =
            switch error.code {
            case .corrupt: .corruptFile
            case .ioFailure where error.path != nil: .ioFailure
            case .limitExceeded where error.path != nil: .limitExceeded
            default: nil
            }
        if let code {
            report(
                StoreDiagnostic(
                    severity: .warning, domain: domain, error: PrefsStoreError(code, error.message, path: error.path)))
        }
        return error
    }

    /// The version of a domain whose file the daemon found corrupt, or `nil` for any other error.
    private static func corruptDomainVersion(_ error: PrefsAccessError) -> UInt64? {
        guard error.code == .corrupt, let client = error.cause as? PrefsClientError else { return nil }
        return client.serverError?.currentVersion
    }

    // MARK: Mapping

    /// The wire domain of a store domain.
    /// - Throws: ``PrefsAccessError`` with code `.unavailable` for a shipped domain, which prefsd does not serve.
    static func wireDomain(_ domain: DomainID) throws(PrefsAccessError) -> WireDomain {
        do {
            return try WireDomain(domain)
        } catch {
            throw PrefsAccessError(.unavailable, error.message)
        }
    }

    /// A store change event for a change the daemon reported.
    static func changeEvent(_ change: WireChange, origin: WireOrigin, domain: DomainID) -> ChangeEvent {
        ChangeEvent(
            domain: domain, key: change.key, oldValue: change.old, newValue: change.new, sequence: change.sequence,
            origin: origin.changeOrigin)
    }

    private static func version(of result: WireResult) throws(PrefsAccessError) -> UInt64 {
        switch result {
        case .set(let version), .setMany(let version), .remove(let version), .writeDomain(let version),
            .removeDomain(let version):
            return version
        default:
            throw unexpected(result)
        }
    }

    private static func unexpected(_ result: WireResult) -> PrefsAccessError {
        PrefsAccessError(.unavailable, "prefsd answered with an unexpected \(result.operation) result")
    }
}

extension PrefsBlockingClient.Subscription: AccessObservation {}

extension PrefsBlockingClient {
    /// ``subscribe(_:startsReading:handler:)`` with the layer's error.
    func subscribeOrThrow(
        _ filters: [WireSubscriptionFilter], startsReading: Bool,
        handler: @escaping @Sendable (Int, PrefsSubscription.Event?) -> Void
    ) throws(PrefsAccessError) -> Subscription {
        do {
            return try subscribe(filters, startsReading: startsReading, handler: handler)
        } catch {
            throw PrefsAccessError(error)
        }
    }
}
