// SPDX-License-Identifier: Apache-2.0
package import PrefsDomain

// The one mapping between the domain vocabulary (PrefsDomain) and the protocol's, used by the daemon and by its
// clients: domains, listing scopes, search lists, origins and resolutions.

extension WireDomain {
    /// The wire form of a store domain.
    /// - Throws: ``WireError`` with code `notFound` for a shipped domain: `prefsd` does not serve the shipped
    ///   registration defaults (a client reads their files itself).
    package init(_ domain: DomainID) throws(WireError) {
        switch domain.scope {
        case .user: self.init(domain.name.rawValue)
        case .byHost: self.init(domain.name.rawValue, byHost: true)
        case .system: self.init(domain.name.rawValue, scope: .system)
        case .forced: self.init(domain.name.rawValue, scope: .forced)
        case .fleetForced: self.init(domain.name.rawValue, scope: .fleetForced)
        case .fleetDefault: self.init(domain.name.rawValue, scope: .fleetDefault)
        case .shipped:
            throw WireError(.notFound, "prefsd does not serve the shipped registration domain \(domain.name)")
        }
    }

    /// The store domain this wire domain names.
    /// - Throws: ``WireError`` with code `invalidName` (field `domain`) when the name is not a valid domain name.
    package func domainID() throws(WireError) -> DomainID {
        let domainName: DomainName
        do {
            domainName = try DomainName(name)
        } catch {
            throw WireError(.invalidName, "field `domain`: \(error.message)", field: "domain")
        }
        switch scope {
        case .user: return DomainID(domainName, scope: byHost ? .byHost : .user)
        case .system: return DomainID(domainName, scope: .system)
        case .forced: return DomainID(domainName, scope: .forced)
        case .fleetForced: return DomainID(domainName, scope: .fleetForced)
        case .fleetDefault: return DomainID(domainName, scope: .fleetDefault)
        }
    }
}

extension WireDomain.Scope {
    /// The `listDomains` parameters that list the domains of `scope`.
    /// - Throws: ``WireError`` with code `notFound` for the shipped scope, which `prefsd` does not serve.
    package static func listing(_ scope: DomainScope) throws(WireError) -> (scope: WireDomain.Scope, byHost: Bool) {
        switch scope {
        case .user: (.user, false)
        case .byHost: (.user, true)
        case .system: (.system, false)
        case .forced: (.forced, false)
        case .fleetForced: (.fleetForced, false)
        case .fleetDefault: (.fleetDefault, false)
        case .shipped: throw WireError(.notFound, "prefsd does not list the shipped registration domains")
        }
    }

    /// The domain scope a `listDomains` request with this scope lists.
    package func domainScope(byHost: Bool) -> DomainScope {
        switch self {
        case .user: byHost ? .byHost : .user
        case .system: .system
        case .forced: .forced
        case .fleetForced: .fleetForced
        case .fleetDefault: .fleetDefault
        }
    }
}

extension WireSearchList {
    /// The wire form of an application's search list (its domain and suites; the rest is the daemon's default).
    package init(_ list: SearchList) {
        self.init(app: list.domain.rawValue, suites: list.suites.map(\.rawValue))
    }

    /// The search list this wire one names.
    /// - Throws: ``WireError`` with code `invalidName`, naming the field (`app`, `suites[i]`) that is not a valid
    ///   domain name.
    package func searchList() throws(WireError) -> SearchList {
        let appName = try Self.domainName(app, field: "app")
        var suiteNames: [DomainName] = []
        for (index, suite) in suites.enumerated() {
            suiteNames.append(try Self.domainName(suite, field: "suites[\(index)]"))
        }
        return SearchList(domain: appName, suites: suiteNames)
    }

    private static func domainName(_ name: String, field: String) throws(WireError) -> DomainName {
        do {
            return try DomainName(name)
        } catch {
            throw WireError(.invalidName, "field `\(field)`: \(error.message)", field: field)
        }
    }
}

extension WireOrigin {
    /// The wire form of a change's origin.
    package init(_ origin: ChangeOrigin) {
        switch origin {
        case .client(let pid, let uid): self.init(.client, pid: pid, uid: uid)
        case .thisProcess: self.init(.client)
        case .otherProcess(let pid): self.init(.file, pid: pid)
        case .external: self.init(.file)
        }
    }

    /// The store's origin for a change the daemon reported.
    package var changeOrigin: ChangeOrigin {
        switch (kind, pid, uid) {
        case (.client, let pid?, let uid?): .client(pid: pid, uid: uid)
        case (.file, let pid?, _): .otherProcess(pid: pid)
        default: .external
        }
    }
}

extension WireResolution {
    /// The wire form of a resolution through an application's search list.
    package init(_ resolution: Resolution, app: DomainName) {
        func source(_ layer: Layer, path: String?, fleetSource: FleetSource? = nil) -> WireSource {
            switch layer {
            case .arguments: return WireSource(layer: .argument, domain: app.rawValue)
            case .registered: return WireSource(layer: .registration, domain: app.rawValue)
            case .domain(let id):
                let wireLayer: WireLayer
                switch id.scope {
                case .forced: wireLayer = .forced
                case .fleetForced: wireLayer = .fleetForced
                case .fleetDefault: wireLayer = .fleetDefault
                case .system: wireLayer = .system
                case .shipped: wireLayer = .registration
                case .user, .byHost:
                    wireLayer = id.name == app ? .app : id.name.isGlobal ? .global : .suite
                }
                return WireSource(
                    layer: wireLayer, domain: id.name.rawValue, byHost: id.scope == .byHost, path: path,
                    fleetKey: fleetSource?.key, fleetRevision: fleetSource?.revision)
            }
        }
        let found = resolution.winner.map {
            WireResolution.Entry(value: $0.value, source: source($0.layer, path: $0.path, fleetSource: $0.fleetSource))
        }
        let shadowed = resolution.shadowed.map {
            WireResolution.Entry(value: $0.value, source: source($0.layer, path: $0.path, fleetSource: $0.fleetSource))
        }
        let skipped = resolution.skipped.map { layer -> WireResolution.Skipped in
            var path: String?
            if case .domain = layer.layer { path = layer.error.path }
            return WireResolution.Skipped(source: source(layer.layer, path: path), reason: layer.error.description)
        }
        self.init(found: found, shadowed: shadowed, skipped: skipped)
    }

    /// The store's resolution of `key` that this wire resolution describes.
    package func resolution(of key: String) -> Resolution {
        func layer(_ source: WireSource) -> Layer {
            switch source.layer {
            case .argument: return .arguments
            case .registration where source.path == nil: return .registered
            default: break
            }
            guard let name = try? DomainName(source.domain) else { return .registered }
            let scope: DomainScope =
                switch source.layer {
                case .forced: .forced
                case .fleetForced: .fleetForced
                case .fleetDefault: .fleetDefault
                case .system: .system
                case .registration: .shipped
                case .app, .suite, .global, .argument: source.byHost ? .byHost : .user
                }
            return .domain(DomainID(name, scope: scope))
        }
        func candidate(_ entry: Entry) -> Resolution.Candidate {
            var fleetSource: FleetSource?
            if let key = entry.source.fleetKey, let revision = entry.source.fleetRevision {
                fleetSource = FleetSource(key: key, revision: revision)
            }
            return Resolution.Candidate(
                layer: layer(entry.source), path: entry.source.path, value: entry.value, fleetSource: fleetSource)
        }
        return Resolution(
            key: key, winner: found.map(candidate), shadowed: shadowed.map(candidate),
            skipped: skipped.map {
                Resolution.SkippedLayer(
                    layer: layer($0.source), error: PrefsStoreError(.corruptFile, $0.reason, path: $0.source.path))
            })
    }
}
