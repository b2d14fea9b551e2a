// SPDX-License-Identifier: Apache-2.0
import PrefsStore

// The one mapping between the store's domains and the protocol's, used by the daemon and by its clients.

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
