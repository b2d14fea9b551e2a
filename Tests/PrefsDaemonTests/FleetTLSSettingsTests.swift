// SPDX-License-Identifier: Apache-2.0
import PrefsDaemon
import PrefsFleet
import PrefsPlist
import Testing

/// prefsd's fleet TLS settings (`FleetCAFile`, `FleetCRLFile`, `FleetCertificateFile`, `FleetKeyFile`): the ones that cannot be used
/// refuse the fleet, with the reason. Files that can be used are tested against a real etcd in FleetTests.
@Suite struct FleetTLSSettingsTests {
    static let secure: PlistValue = .array(["https://127.0.0.1:2379", "https://127.0.0.1:2380"])

    @Test func httpsEndpointsWithoutFilesTrustTheSystemsCAs() throws {
        let settings = DaemonSettings(values: ["FleetEndpoints": Self.secure])
        #expect(settings.fleetErrors.isEmpty)
        let fleet = try #require(settings.fleet)
        #expect(fleet.endpoints.allSatisfy { $0.isSecure })
        #expect(try #require(fleet.tls).configuration.isEmpty)
        #expect(DaemonSettings(values: ["FleetEndpoints": "http://127.0.0.1:2379"]).fleet?.tls == nil)
    }

    @Test(
        arguments: [
            (
                ["FleetEndpoints": secure, "FleetCertificateFile": "/etc/host.pem"],
                "settings FleetCertificateFile and FleetKeyFile of domain prefsd go together"
            ),
            (
                ["FleetEndpoints": secure, "FleetKeyFile": "/etc/host.key"],
                "settings FleetCertificateFile and FleetKeyFile of domain prefsd go together"
            ),
            (["FleetEndpoints": secure, "FleetCAFile": 7], "setting FleetCAFile of domain prefsd must be a file path"),
            (
                ["FleetEndpoints": secure, "FleetCAFile": "/nonexistent/ca.pem"],
                "fleet TLS settings of domain prefsd: cannot read the TLS CA file: cannot open /nonexistent/ca.pem"
            ),
            (
                ["FleetEndpoints": secure, "FleetCRLFile": "/nonexistent/ca.crl"],
                "fleet TLS settings of domain prefsd: cannot read the TLS revocation list file: cannot open "
                    + "/nonexistent/ca.crl"
            ),
            (
                ["FleetEndpoints": "http://127.0.0.1:2379", "FleetCRLFile": "/etc/ca.crl"],
                "TLS files are given but the etcd endpoints are http://"
            ),
            (
                ["FleetEndpoints": "https://127.0.0.1:2379, http://127.0.0.1:2380"],
                "fleet TLS settings of domain prefsd: the etcd endpoints mix https://"
            ),
            (
                ["FleetEndpoints": "http://127.0.0.1:2379", "FleetCAFile": "/etc/ca.pem"],
                "TLS files are given but the etcd endpoints are http://"
            ),
        ] as [(PlistDictionary, String)])
    func unusableSettingsRefuseTheFleet(values: PlistDictionary, reason: String) {
        let settings = DaemonSettings(values: values)
        #expect(settings.fleet == nil)
        #expect(settings.fleetErrors.count == 1)
        #expect(settings.fleetErrors.first?.contains(reason) == true, "\(settings.fleetErrors)")
        #expect(settings.fleetErrors.first?.hasSuffix("; no fleet is joined") == true, "\(settings.fleetErrors)")
    }
}
