// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// TLS client certificates and etcd authentication together, on a real member: etcd 3.4's JSON gateway refuses every
/// request that presents a certificate with a Common Name once authentication is on, so such a certificate is refused
/// with what to do, and a certificate without one (the host named in subjectAltName) works with a user and password.
extension FleetTLSTests {
    @Test func withAuthenticationACertificateWithACommonNameIsRefusedAndOneWithoutWorks() throws {
        let certificates = try TestCertificates()
        let cluster = try EtcdCluster(size: 1, certificates: certificates)
        try cluster.enableAuthentication(host: ("host1", "host-secret"), admin: ("admin", "admin-secret"))
        let secrets = try TemporaryDirectory(prefix: "fleet-secrets")
        let hostPassword = try FleetClusterTests.passwordFile(in: secrets, "host1", "host-secret")
        let adminPassword = try FleetClusterTests.passwordFile(in: secrets, "admin", "admin-secret")
        let nameless = try certificates.makeClientCertificateWithoutCommonName()
        let refusal = "its JSON gateway takes no client certificate with a Common Name while authentication is enabled"

        // The test's usual client certificate has CN=fleet-client: refused, saying what to do.
        let named = try Self.fleet(
            cluster.endpoints, ca: certificates.caFile, certificate: certificates.clientCertificate,
            key: certificates.clientKey, user: "admin", passwordFile: adminPassword,
            ["write", "-forced", app, "Theme", "dark"])
        #expect(named.status == 1, "\(named)")
        #expect(named.standardError.contains(refusal), "\(named)")
        #expect(named.standardError.contains("without a Common Name"), "\(named)")
        let namedHost = try FleetHost(
            settings: Self.settings(
                cluster, ca: certificates.caFile, certificate: certificates.clientCertificate,
                key: certificates.clientKey,
                extra: ["FleetUser": "host1", "FleetPasswordFile": .string(hostPassword)]))
        try namedHost.start()
        try waitUntil("the refusal in the host's status: \(namedHost.log)") {
            try FleetClusterTests.status(of: namedHost).contains(refusal)
        }

        // The certificate without a Common Name and the same users: the administrator writes, the host mirrors.
        let written = try Self.fleet(
            cluster.endpoints, ca: certificates.caFile, certificate: nameless.certificate, key: nameless.key,
            user: "admin", passwordFile: adminPassword, ["write", "-forced", app, "Theme", "dark"])
        #expect(written.status == 0, "\(written)")
        let host = try FleetHost(
            settings: Self.settings(
                cluster, ca: certificates.caFile, certificate: nameless.certificate, key: nameless.key,
                extra: ["FleetUser": "host1", "FleetPasswordFile": .string(hostPassword)]))
        try host.start()
        try host.waitForCached("forced", app, "Theme", "dark")
        try waitUntil("host status connected") {
            try FleetClusterTests.status(of: host).hasPrefix("state: connected\n")
        }

        // The host's user still may not write, over TLS as without it.
        let denied = try Self.fleet(
            cluster.endpoints, ca: certificates.caFile, certificate: nameless.certificate, key: nameless.key,
            user: "host1", passwordFile: hostPassword, ["write", "-forced", app, "Theme", "light"])
        #expect(denied.status == 1, "\(denied)")
        #expect(denied.standardError.contains("permission denied"), "\(denied)")
    }
}

extension FleetTLSTests {
    @Test func roamingDomainsRoamOverTLSWithTheHostsCertificate() throws {
        let certificates = try TestCertificates()
        let cluster = try EtcdCluster(size: 1, certificates: certificates)
        let tls = Self.settings(
            cluster, ca: certificates.caFile, certificate: certificates.clientCertificate, key: certificates.clientKey)
        let roaming = FleetClusterTests.roamingSettings(cluster.endpoints, extra: tls)
        let laptop = try FleetHost(settings: roaming)
        let desktop = try FleetHost(settings: roaming)
        try laptop.start()
        try desktop.start()
        // The member serves only TLS with client certificates: the roaming client must present the host's.
        try FleetClusterTests.edit(laptop, ["write", FleetClusterTests.editor, "Font", "Mono"])
        try FleetClusterTests.waitForRoamed([desktop], ["Font": "Mono"])
        #expect(!laptop.log.contains("TLS handshake"), "\(laptop.log)")
    }
}
