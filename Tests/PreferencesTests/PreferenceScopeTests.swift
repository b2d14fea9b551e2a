// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import Testing

@testable import Preferences

/// The facade's scopes are the store's, by name: a scope added to one and not the other fails here.
@Suite struct PreferenceScopeTests {
    @Test func everyStoreScopeHasTheFacadesNameAndBack() {
        #expect(PreferenceScope.allCases.map(\.rawValue) == DomainScope.allCases.map(\.rawValue))
        for scope in DomainScope.allCases {
            #expect(PreferenceScope(scope).storeScope == scope)
            #expect(PreferenceScope(scope).rawValue == scope.rawValue)
        }
    }
}
