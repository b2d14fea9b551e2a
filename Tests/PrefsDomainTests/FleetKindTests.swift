// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsDomain

/// A fleet kind is one of the two fleet scopes, and only those have one.
@Suite struct FleetKindTests {
    @Test(arguments: DomainScope.allCases)
    func fleetScopesHaveTheirKind(_ scope: DomainScope) {
        #expect((FleetKind(scope) != nil) == scope.isFleet)
        if let kind = FleetKind(scope) { #expect(kind.scope == scope) }
    }

    @Test func everyKindIsAFleetScope() {
        #expect(FleetKind.allCases.map(\.scope) == [.fleetForced, .fleetDefault])
    }
}
