// SPDX-License-Identifier: Apache-2.0
import PrefsDaemon
import PrefsPOSIX
import PrefsPlist
import PrefsStore
import Testing

/// prefsd's roaming settings (`FleetRoamingDomains`, `FleetRoamingUser`): malformed ones are ignored with a warning
/// naming the setting, and a name that cannot be an etcd path segment turns roaming off rather than roaming under a
/// name the user did not mean. Roaming itself is tested against a real etcd in FleetTests.
@Suite struct FleetRoamingSettingsTests {
    static let endpoints: PlistValue = "http://127.0.0.1:2379"

    @Test func domainsRoamUnderTheGivenNameOrTheLoginName() throws {
        let named = try #require(
            DaemonSettings(values: [
                "FleetEndpoints": Self.endpoints, "FleetRoamingDomains": ["com.example.Editor", "NSGlobalDomain"],
                "FleetRoamingUser": "ada",
            ]).fleet)
        #expect(named.roamingDomains == [try DomainName("com.example.Editor"), .global])
        #expect(named.roamingUser == "ada")

        let single = try #require(
            DaemonSettings(values: ["FleetEndpoints": Self.endpoints, "FleetRoamingDomains": "com.example.Editor"])
                .fleet)
        #expect(single.roamingDomains == [try DomainName("com.example.Editor")])
        #expect(single.roamingUser == POSIX.userNameOfCurrentUser())

        #expect(try #require(DaemonSettings(values: ["FleetEndpoints": Self.endpoints]).fleet).roamingDomains.isEmpty)
    }

    @Test(
        arguments: [
            (
                ["FleetRoamingDomains": ["com.example.Editor", "../escape", 7]] as PlistDictionary,
                ["com.example.Editor"],
                "setting FleetRoamingDomains of domain prefsd: ../escape is not a domain name; ignored"
            ),
            (
                ["FleetRoamingDomains": ["com.example.Editor"], "FleetRoamingUser": "../bob"], [],
                "setting FleetRoamingUser of domain prefsd must be a name of 1-128 bytes"
            ),
            (
                ["FleetRoamingDomains": ["com.example.Editor"], "FleetRoamingUser": 7], [],
                "setting FleetRoamingUser of domain prefsd must be a name of 1-128 bytes"
            ),
        ] as [(PlistDictionary, [String], String)])
    func malformedSettingsAreIgnoredWithAWarning(values: PlistDictionary, roaming: [String], warning: String) throws {
        var all = values
        all["FleetEndpoints"] = Self.endpoints
        let settings = DaemonSettings(values: all)
        let fleet = try #require(settings.fleet, "a roaming setting never keeps the host out of the fleet")
        #expect(fleet.roamingDomains.map(\.rawValue) == roaming)
        #expect(settings.warnings.contains { $0.contains(warning) }, "\(settings.warnings)")
    }
}
