// SPDX-License-Identifier: Apache-2.0
/// The layers an application's lookups walk, highest priority first; the first layer holding a key wins.
///
/// For domain `A` with suites `S…` the order is (DESIGN §3):
/// 1. forced `A`, forced global, then the fleet's forced `A` and global (docs/FLEET.md)
/// 2. the argument domain (only with ``includesArguments``)
/// 3. `A` by-host, `A`
/// 4. each suite, by-host then plain, in the order given
/// 5. global by-host, global
/// 6. system `A`, system global, then the fleet's defaults for `A` and global
/// 7. registered defaults, then the shipped defaults of `A`, each suite, and global
///
/// By-host layers are left out without ``includesByHost``; global ones without ``includesGlobal``.
public struct SearchList: Hashable, Sendable, CustomStringConvertible {
    /// The application's own domain.
    public var domain: DomainName
    /// Suite domains searched after the application's own, in this order.
    public var suites: [DomainName]
    /// Whether the by-host (`-currentHost`) layers are searched.
    public var includesByHost: Bool
    /// Whether the volatile argument domain is searched.
    public var includesArguments: Bool
    /// Whether the global domain's layers are searched.
    public var includesGlobal: Bool

    /// Creates a search list.
    /// - Parameters:
    ///   - domain: The application's own domain.
    ///   - suites: Suite domains, searched in this order after the application's own.
    ///   - includesByHost: Whether by-host layers are searched.
    ///   - includesArguments: Whether the argument domain is searched (an application opts in).
    ///   - includesGlobal: Whether the global domain's layers are searched.
    public init(
        domain: DomainName, suites: [DomainName] = [], includesByHost: Bool = true, includesArguments: Bool = false,
        includesGlobal: Bool = true
    ) {
        self.domain = domain
        self.suites = suites
        self.includesByHost = includesByHost
        self.includesArguments = includesArguments
        self.includesGlobal = includesGlobal
    }

    /// The layers in lookup order; a domain named twice (a suite equal to the application, say) appears once.
    public var layers: [Layer] {
        var layers: [Layer] = []
        var seen = Set<Layer>()
        func add(_ layer: Layer) {
            if seen.insert(layer).inserted { layers.append(layer) }
        }
        func add(_ name: DomainName, _ scope: DomainScope) {
            if name.isGlobal && !includesGlobal { return }
            if scope == .byHost && !includesByHost { return }
            add(.domain(DomainID(name, scope: scope)))
        }
        add(domain, .forced)
        add(.global, .forced)
        add(domain, .fleetForced)
        add(.global, .fleetForced)
        if includesArguments { add(.arguments) }
        for name in [domain] + suites + [.global] {
            add(name, .byHost)
            add(name, .user)
        }
        add(domain, .system)
        add(.global, .system)
        add(domain, .fleetDefault)
        add(.global, .fleetDefault)
        add(.registered)
        for name in [domain] + suites + [.global] { add(name, .shipped) }
        return layers
    }

    /// The persistent domains among ``layers``.
    public var domains: [DomainID] {
        layers.compactMap { if case .domain(let id) = $0 { id } else { nil } }
    }

    /// `com.example.App + [suite] + global`.
    public var description: String {
        var text = domain.rawValue
        if !suites.isEmpty { text += " + [" + suites.map(\.rawValue).joined(separator: ", ") + "]" }
        if includesGlobal && !domain.isGlobal { text += " + global" }
        return text
    }
}
