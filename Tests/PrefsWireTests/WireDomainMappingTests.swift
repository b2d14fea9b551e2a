// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Testing

@testable import PrefsWire

/// The one mapping between the domain vocabulary and the protocol (WireDomain+Domain.swift), which the daemon and
/// its clients both use: each direction undoes the other.
@Suite struct WireDomainMappingTests {
    static let servedScopes = DomainScope.allCases.filter { $0 != .shipped }

    @Test(arguments: servedScopes)
    func domainsRoundTrip(scope: DomainScope) throws {
        let domain = DomainID(try DomainName("com.example.App"), scope: scope)
        #expect(try WireDomain(domain).domainID() == domain)
    }

    @Test func shippedDomainsAreNotServed() throws {
        let shipped = DomainID(try DomainName("com.example.App"), scope: .shipped)
        let error = #expect(throws: WireError.self) { try WireDomain(shipped) }
        #expect(error?.code == .notFound)
        let listing = #expect(throws: WireError.self) { try WireDomain.Scope.listing(.shipped) }
        #expect(listing?.code == .notFound)
    }

    @Test func anInvalidWireNameNamesItsField() {
        let error = #expect(throws: WireError.self) { try WireDomain("../etc").domainID() }
        #expect(error?.code == .invalidName)
        #expect(error?.field == "domain")
    }

    @Test(arguments: servedScopes)
    func listingScopesRoundTrip(scope: DomainScope) throws {
        let listing = try WireDomain.Scope.listing(scope)
        #expect(listing.scope.domainScope(byHost: listing.byHost) == scope)
    }

    @Test func searchListsRoundTripAndNameTheBadField() throws {
        let list = SearchList(domain: try DomainName("com.example.App"), suites: [try DomainName("group.example")])
        #expect(try WireSearchList(list).searchList() == list)
        let badApp = #expect(throws: WireError.self) { try WireSearchList(app: "").searchList() }
        #expect(badApp?.field == "app")
        let badSuite = #expect(throws: WireError.self) {
            try WireSearchList(app: "com.example.App", suites: ["ok", "no/slash"]).searchList()
        }
        #expect(badSuite?.field == "suites[1]")
    }

    @Test(arguments: [
        ChangeOrigin.client(pid: 12, uid: 1000), .otherProcess(pid: 34), .external,
    ])
    func originsRoundTrip(origin: ChangeOrigin) {
        #expect(WireOrigin(origin).changeOrigin == origin)
    }

    @Test func thisProcessIsAClientWithoutIdentityOnTheWire() {
        #expect(WireOrigin(.thisProcess).kind == .client)
        #expect(WireOrigin(.thisProcess).changeOrigin == .external)
    }

    @Test func resolutionsRoundTripLayerByLayer() throws {
        let app = try DomainName("com.example.App")
        let suite = try DomainName("group.example")
        let winner = Resolution.Candidate(
            layer: .domain(DomainID(app, scope: .fleetForced)), path: "/cache/forced/com.example.App.plist",
            value: .integer(1),
            fleetSource: FleetSource(key: "/preferences/managed/all/forced/com.example.App", revision: 7))
        let shadowed: [Resolution.Candidate] = [
            Resolution.Candidate(layer: .arguments, path: nil, value: .integer(2)),
            Resolution.Candidate(
                layer: .domain(DomainID(app, scope: .byHost)), path: "/p/ByHost/a.plist", value: .integer(3)),
            Resolution.Candidate(layer: .domain(DomainID(suite)), path: "/p/group.example.plist", value: .integer(4)),
            Resolution.Candidate(layer: .domain(.global), path: "/p/.GlobalPreferences.plist", value: .integer(5)),
            Resolution.Candidate(layer: .domain(DomainID(app, scope: .system)), path: "/s/a.plist", value: .integer(6)),
            Resolution.Candidate(layer: .registered, path: nil, value: .integer(8)),
            Resolution.Candidate(
                layer: .domain(DomainID(app, scope: .shipped)), path: "/d/a.plist", value: .integer(9)),
        ]
        let skipped = [
            Resolution.SkippedLayer(
                layer: .domain(DomainID(app)),
                error: PrefsStoreError(.corruptFile, "not a property list", path: "/p/com.example.App.plist"))
        ]
        let resolution = Resolution(key: "k", winner: winner, shadowed: shadowed, skipped: skipped)
        let back = WireResolution(resolution, app: app).resolution(of: "k")
        #expect(back.winner == winner)
        #expect(back.shadowed == shadowed)
        #expect(back.skipped.map(\.layer) == skipped.map(\.layer))
        #expect(back.skipped.first?.error.code == .corruptFile)
        #expect(back.skipped.first?.error.path == "/p/com.example.App.plist")
    }
}
