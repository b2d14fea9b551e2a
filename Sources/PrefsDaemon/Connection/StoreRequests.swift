// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore
import PrefsWire

/// Performs the store operations of the protocol: maps a request's parameters to `PreferencesStore` calls, and
/// their results and errors to the wire's.
///
/// `hello`, `subscribe`, `unsubscribe` and `fleetStatus` belong to a connection and are handled by it; everything else
/// is here.
struct StoreRequests: Sendable {
    let store: PreferencesStore

    /// Performs one operation for a client.
    /// - Parameters:
    ///   - operation: Any operation but `hello`, `subscribe`, `unsubscribe` and `fleetStatus`.
    ///   - origin: The client's credentials, recorded in change events.
    /// - Returns: The result, or the error to send.
    ///   - recent: The connection's previous domain, reused when this operation addresses it too.
    func perform(
        _ operation: WireOperation, origin: ChangeOrigin, recent: inout RecentDomain
    ) -> Result<WireResult, WireError> {
        do throws(WireError) {
            return .success(try performThrowing(operation, origin: origin, recent: &recent))
        } catch {
            return .failure(error)
        }
    }

    /// Performs a frequent request read straight from its frame (``WireFlatRequest``), as ``perform(_:origin:recent:)``
    /// performs its general form.
    /// - Parameters:
    ///   - request: The request.
    ///   - origin: The client's credentials, recorded in change events.
    ///   - recent: The connection's previous domain, reused when this request addresses it too.
    /// - Returns: The result, or the error to send.
    func perform(
        _ request: WireFlatRequest, origin: ChangeOrigin, recent: inout RecentDomain
    ) -> Result<WireResult, WireError> {
        do throws(WireError) {
            let domain = try recent.domainID(request.domain)
            switch request.operation {
            case .get:
                return .success(try get(request.key, in: domain))
            case .set(let value):
                let version = try set(value, forKey: request.key, in: domain, origin, request.expectedVersion)
                return .success(.set(version: version))
            case .remove:
                let version = try set(nil, forKey: request.key, in: domain, origin, request.expectedVersion)
                return .success(.remove(version: version))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Performs one operation, without a previous domain to reuse.
    func perform(_ operation: WireOperation, origin: ChangeOrigin) -> Result<WireResult, WireError> {
        var recent = RecentDomain()
        return perform(operation, origin: origin, recent: &recent)
    }

    private func performThrowing(
        _ operation: WireOperation, origin: ChangeOrigin, recent: inout RecentDomain
    ) throws(WireError) -> WireResult {
        switch operation {
        case .get(let wireDomain, let key):
            return try get(key, in: try recent.domainID(wireDomain))
        case .getEffective(let searchList, let key):
            let list = try searchList.searchList()
            return .getEffective(WireResolution(store.resolve(key, in: list), app: list.domain))
        case .set(let wireDomain, let key, let value, let expectedVersion):
            return .set(
                version: try set(value, forKey: key, in: try recent.domainID(wireDomain), origin, expectedVersion))
        case .setMany(let wireDomain, let values, let removeKeys, let expectedVersion):
            let domain = try recent.domainID(wireDomain)
            var changes: [PlistKey: PlistValue?] = [:]
            for (key, value) in values.storage { changes[key] = .some(value) }
            for key in removeKeys { changes[PlistKey(key)] = .some(nil) }
            return .setMany(
                version: try mapErrors(domain) { () throws(PrefsStoreError) in
                    try store.setMany(changes, in: domain, origin: origin, expectedSequence: expectedVersion)
                })
        case .remove(let wireDomain, let key, let expectedVersion):
            return .remove(
                version: try set(nil, forKey: key, in: try recent.domainID(wireDomain), origin, expectedVersion))
        case .readDomain(let wireDomain):
            let domain = try recent.domainID(wireDomain)
            let read = try mapErrors(domain) { () throws(PrefsStoreError) in
                try store.persistentDomainWithSequence(domain)
            }
            // A missing domain's version comes with the answer, so that a first write needs no second read.
            guard let values = read.values else {
                throw WireError(.notFound, "domain \(wireDomain) does not exist", currentVersion: read.sequence)
            }
            return .readDomain(values: values, version: read.sequence)
        case .writeDomain(let wireDomain, let values, let expectedVersion):
            let domain = try recent.domainID(wireDomain)
            return .writeDomain(
                version: try mapErrors(domain) { () throws(PrefsStoreError) in
                    try store.setPersistentDomain(
                        values, for: domain, origin: origin, expectedSequence: expectedVersion)
                })
        case .removeDomain(let wireDomain, let expectedVersion):
            let domain = try recent.domainID(wireDomain)
            let version = try mapErrors(domain) { () throws(PrefsStoreError) -> UInt64? in
                if domain.scope.isWritable, try store.persistentDomain(domain) == nil { return nil }
                return try store.removePersistentDomain(domain, origin: origin, expectedSequence: expectedVersion)
            }
            guard let version else { throw Self.domainNotFound(wireDomain) }
            return .removeDomain(version: version)
        case .listDomains(let scope, let byHost):
            let storeScope = scope.domainScope(byHost: byHost)
            let names = try mapErrors(nil) { () throws(PrefsStoreError) in try store.domainNames(scope: storeScope) }
            return .listDomains(names.map(\.rawValue).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        case .synchronize:
            // A domain that cannot be written loses this client's unwritten changes: its write fails and changes nothing.
            try mapErrors(nil) { () throws(PrefsStoreError) in try store.synchronize(withdrawingOnFailure: origin) }
            return .synchronize
        case .hello, .subscribe, .unsubscribe, .fleetStatus:
            throw WireError(.internal, "operation \(operation.name.rawValue) is handled by the connection")
        }
    }

    /// One key's value; a key missing from a domain whose file cannot be used is that file's error, as on the
    /// files (a corrupt file is not an empty domain).
    private func get(_ key: String, in domain: DomainID) throws(WireError) -> WireResult {
        let snapshot = store.snapshot(of: domain)
        let value = snapshot.values[key]
        if value == nil, snapshot.values.isEmpty, let issue = store.domainIssue(domain) {
            throw wireError(issue, domain: domain)
        }
        return .get(value: value, version: snapshot.sequence)
    }

    /// Sets or (with `nil`) removes one key; returns the domain's version after it.
    private func set(
        _ value: PlistValue?, forKey key: String, in domain: DomainID, _ origin: ChangeOrigin,
        _ expectedVersion: UInt64?
    ) throws(WireError) -> UInt64 {
        try mapErrors(domain) { () throws(PrefsStoreError) in
            try store.set(value, forKey: key, in: domain, origin: origin, expectedSequence: expectedVersion)
        }
    }

    /// Runs a store call, turning its error into the wire's.
    private func mapErrors<Value>(
        _ domain: DomainID?, _ body: () throws(PrefsStoreError) -> Value
    ) throws(WireError) -> Value {
        do {
            return try body()
        } catch {
            throw wireError(error, domain: domain)
        }
    }

    /// The wire error for a store error.
    func wireError(_ error: PrefsStoreError, domain: DomainID?) -> WireError {
        let message = error.description
        switch error.code {
        case .invalidDomainName:
            return WireError(.invalidName, message)
        case .readOnlyDomain:
            return WireError(.readOnly, message, path: error.path)
        case .limitExceeded:
            let limit = WireLimit.allCases.first {
                message.containsText("(\($0.rawValue) =") || message.containsText($0.rawValue)
            }
            return WireError(.limitExceeded, message, limit: limit, path: error.path)
        case .versionConflict:
            let current = domain.map { store.snapshot(of: $0).sequence }
            return WireError(.versionConflict, message, currentVersion: current)
        case .encodingFailed, .invalidValue:
            return WireError(.badRequest, message, field: "value")
        case .corruptFile:
            let current = domain.map { store.snapshot(of: $0).sequence }
            return WireError(.corruptDomain, message, currentVersion: current, path: error.path)
        default:
            return WireError(.storeUnavailable, message, path: error.path)
        }
    }

    private static func domainNotFound(_ domain: WireDomain) -> WireError {
        WireError(.notFound, "domain \(domain) does not exist")
    }
}
