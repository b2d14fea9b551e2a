import PrefsPlist
import PrefsStore
import PrefsWire

/// Performs the store operations of the protocol: maps a request's parameters to `PreferencesStore` calls, and
/// their results and errors to the wire's.
///
/// `hello`, `subscribe` and `unsubscribe` belong to a connection and are handled by it; everything else is here.
struct StoreRequests: Sendable {
    let store: PreferencesStore

    /// Performs one operation for a client.
    /// - Parameters:
    ///   - operation: Any operation but `hello`, `subscribe` and `unsubscribe`.
    ///   - origin: The client's credentials, recorded in change events.
    /// - Returns: The result, or the error to send.
    func perform(_ operation: WireOperation, origin: ChangeOrigin) -> Result<WireResult, WireError> {
        do throws(WireError) {
            return .success(try performThrowing(operation, origin: origin))
        } catch {
            return .failure(error)
        }
    }

    private func performThrowing(_ operation: WireOperation, origin: ChangeOrigin) throws(WireError) -> WireResult {
        switch operation {
        case .get(let wireDomain, let key):
            let domain = try Self.domainID(wireDomain)
            let snapshot = store.snapshot(of: domain)
            return .get(value: snapshot.values[key], version: snapshot.sequence)
        case .getEffective(let searchList, let key):
            let list = try Self.searchList(searchList)
            return .getEffective(Self.resolution(store.resolve(key, in: list), app: list.domain))
        case .set(let wireDomain, let key, let value, let expectedVersion):
            let domain = try Self.domainID(wireDomain)
            return .set(
                version: try mapErrors(domain) { () throws(PrefsStoreError) in
                    try store.set(value, forKey: key, in: domain, origin: origin, expectedSequence: expectedVersion)
                })
        case .setMany(let wireDomain, let values, let removeKeys, let expectedVersion):
            let domain = try Self.domainID(wireDomain)
            var changes: [String: PlistValue?] = [:]
            for (key, value) in values { changes[key] = .some(value) }
            for key in removeKeys { changes[key] = .some(nil) }
            return .setMany(
                version: try mapErrors(domain) { () throws(PrefsStoreError) in
                    try store.setMany(changes, in: domain, origin: origin, expectedSequence: expectedVersion)
                })
        case .remove(let wireDomain, let key, let expectedVersion):
            let domain = try Self.domainID(wireDomain)
            return .remove(
                version: try mapErrors(domain) { () throws(PrefsStoreError) in
                    try store.set(nil, forKey: key, in: domain, origin: origin, expectedSequence: expectedVersion)
                })
        case .readDomain(let wireDomain):
            let domain = try Self.domainID(wireDomain)
            let exists = try mapErrors(domain) { () throws(PrefsStoreError) in try store.persistentDomain(domain) }
            guard exists != nil else { throw Self.domainNotFound(wireDomain) }
            let snapshot = store.snapshot(of: domain)
            return .readDomain(values: snapshot.values, version: snapshot.sequence)
        case .writeDomain(let wireDomain, let values, let expectedVersion):
            let domain = try Self.domainID(wireDomain)
            return .writeDomain(
                version: try mapErrors(domain) { () throws(PrefsStoreError) in
                    try store.setPersistentDomain(
                        values, for: domain, origin: origin, expectedSequence: expectedVersion)
                })
        case .removeDomain(let wireDomain, let expectedVersion):
            let domain = try Self.domainID(wireDomain)
            let version = try mapErrors(domain) { () throws(PrefsStoreError) -> UInt64? in
                if domain.scope.isWritable, try store.persistentDomain(domain) == nil { return nil }
                return try store.removePersistentDomain(domain, origin: origin, expectedSequence: expectedVersion)
            }
            guard let version else { throw Self.domainNotFound(wireDomain) }
            return .removeDomain(version: version)
        case .listDomains(let scope, let byHost):
            let storeScope: DomainScope =
                switch scope {
                case .user: byHost ? .byHost : .user
                case .system: .system
                case .forced: .forced
                }
            let names = try mapErrors(nil) { () throws(PrefsStoreError) in try store.domainNames(scope: storeScope) }
            return .listDomains(names.map(\.rawValue).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        case .synchronize:
            try mapErrors(nil) { () throws(PrefsStoreError) in try store.synchronize() }
            return .synchronize
        case .hello, .subscribe, .unsubscribe:
            throw WireError(.internal, "operation \(operation.name.rawValue) is handled by the connection")
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
                message.contains("(\($0.rawValue) =") || message.contains($0.rawValue)
            }
            return WireError(.limitExceeded, message, limit: limit, path: error.path)
        case .versionConflict:
            let current = domain.map { store.snapshot(of: $0).sequence }
            return WireError(.versionConflict, message, currentVersion: current)
        case .encodingFailed:
            return WireError(.badRequest, message, field: "value")
        default:
            return WireError(.storeUnavailable, message, path: error.path)
        }
    }

    // MARK: - Mapping parameters

    /// The store's domain for a wire domain, after checking its name.
    static func domainID(_ domain: WireDomain) throws(WireError) -> DomainID {
        let name = try domainName(domain.name, field: "domain")
        switch domain.scope {
        case .user: return DomainID(name, scope: domain.byHost ? .byHost : .user)
        case .system: return DomainID(name, scope: .system)
        case .forced: return DomainID(name, scope: .forced)
        }
    }

    /// The wire domain of a store domain (a shipped domain reads as its user domain's name in the user scope).
    static func wireDomain(_ domain: DomainID) -> WireDomain {
        switch domain.scope {
        case .user, .shipped: WireDomain(domain.name.rawValue)
        case .byHost: WireDomain(domain.name.rawValue, byHost: true)
        case .system: WireDomain(domain.name.rawValue, scope: .system)
        case .forced: WireDomain(domain.name.rawValue, scope: .forced)
        }
    }

    /// The store's search list for a wire one.
    static func searchList(_ list: WireSearchList) throws(WireError) -> SearchList {
        let app = try domainName(list.app, field: "app")
        var suites: [DomainName] = []
        for (index, suite) in list.suites.enumerated() {
            suites.append(try domainName(suite, field: "suites[\(index)]"))
        }
        return SearchList(domain: app, suites: suites)
    }

    private static func domainName(_ name: String, field: String) throws(WireError) -> DomainName {
        do {
            return try DomainName(name)
        } catch {
            throw WireError(.invalidName, "field `\(field)`: \(error.message)", field: field)
        }
    }

    private static func domainNotFound(_ domain: WireDomain) -> WireError {
        WireError(.notFound, "domain \(domain) does not exist")
    }

    /// The wire form of a resolution.
    static func resolution(_ resolution: Resolution, app: DomainName) -> WireResolution {
        func source(_ layer: Layer, path: String?) -> WireSource {
            switch layer {
            case .arguments: return WireSource(layer: .argument, domain: app.rawValue)
            case .registered: return WireSource(layer: .registration, domain: app.rawValue)
            case .domain(let id):
                let wireLayer: WireLayer
                switch id.scope {
                case .forced: wireLayer = .forced
                case .system: wireLayer = .system
                case .shipped: wireLayer = .registration
                case .user, .byHost:
                    wireLayer = id.name == app ? .app : id.name.isGlobal ? .global : .suite
                }
                return WireSource(layer: wireLayer, domain: id.name.rawValue, byHost: id.scope == .byHost, path: path)
            }
        }
        let found = resolution.winner.map {
            WireResolution.Entry(value: $0.value, source: source($0.layer, path: $0.path))
        }
        let shadowed = resolution.shadowed.map {
            WireResolution.Entry(value: $0.value, source: source($0.layer, path: $0.path))
        }
        let skipped = resolution.skipped.map { layer -> WireResolution.Skipped in
            var path: String?
            if case .domain = layer.layer { path = layer.error.path }
            return WireResolution.Skipped(source: source(layer.layer, path: path), reason: layer.error.description)
        }
        return WireResolution(found: found, shadowed: shadowed, skipped: skipped)
    }

    /// The wire origin of a store change.
    static func origin(_ origin: ChangeOrigin) -> WireOrigin {
        switch origin {
        case .client(let pid, let uid): WireOrigin(.client, pid: pid, uid: uid)
        case .thisProcess: WireOrigin(.client)
        case .otherProcess(let pid): WireOrigin(.file, pid: pid)
        case .external: WireOrigin(.file)
        }
    }
}
