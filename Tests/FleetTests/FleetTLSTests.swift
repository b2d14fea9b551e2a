// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// TLS to a real etcd member that serves only `https://` and requires a client certificate signed by its CA
/// (`--client-cert-auth`), with certificates made for each test: a host and `defaults fleet` that have the CA and a
/// client certificate work; a missing certificate, an unrelated CA, a wrong name, a key file open to others and plain
/// HTTP to the TLS port each fail, and say why.
@Suite(.timeLimit(.minutes(3))) struct FleetTLSTests {
    let app = "com.example.App"

    /// Runs `defaults fleet …` against `endpoints` with these TLS files (`nil`: the variable is not set).
    static func fleet(
        _ endpoints: [String], ca: String?, crl: String? = nil, certificate: String?, key: String?,
        user: String? = nil, passwordFile: String? = nil, _ arguments: [String]
    ) throws -> BuiltProduct.Result {
        var environment = ["PREFERENCES_FLEET_ENDPOINTS": endpoints.joined(separator: ",")]
        if let crl { environment["PREFERENCES_FLEET_CRL_FILE"] = crl }
        if let user { environment["PREFERENCES_FLEET_USER"] = user }
        if let passwordFile { environment["PREFERENCES_FLEET_PASSWORD_FILE"] = passwordFile }
        if let ca { environment["PREFERENCES_FLEET_CA_FILE"] = ca }
        if let certificate { environment["PREFERENCES_FLEET_CERTIFICATE_FILE"] = certificate }
        if let key { environment["PREFERENCES_FLEET_KEY_FILE"] = key }
        return try FleetHost.defaults.run(["fleet"] + arguments, environment: environment)
    }

    /// Runs `defaults fleet …` with the CA and the client certificate that the cluster accepts.
    static func fleet(_ cluster: EtcdCluster, _ arguments: [String]) throws -> BuiltProduct.Result {
        let certificates = try #require(cluster.certificates)
        return try fleet(
            cluster.endpoints, ca: certificates.caFile, certificate: certificates.clientCertificate,
            key: certificates.clientKey, arguments)
    }

    /// prefsd settings that join the cluster over TLS with these files.
    static func settings(
        _ cluster: EtcdCluster, ca: String?, certificate: String?, key: String?, extra: PlistDictionary = [:]
    ) -> PlistDictionary {
        var files = extra
        if let ca { files["FleetCAFile"] = .string(ca) }
        if let certificate { files["FleetCertificateFile"] = .string(certificate) }
        if let key { files["FleetKeyFile"] = .string(key) }
        return FleetHost.settings(cluster, extra: files)
    }

    @Test func aHostJoinedOverTLSMirrorsWhatAnAdministratorWroteOverTLS() throws {
        let certificates = try TestCertificates()
        let cluster = try EtcdCluster(size: 1, certificates: certificates)
        let endpoint = cluster.endpoints[0]
        #expect(endpoint.hasPrefix("https://"))
        let host = try FleetHost(
            settings: Self.settings(
                cluster, ca: certificates.caFile, certificate: certificates.clientCertificate,
                key: certificates.clientKey))
        try host.start()

        // The host's first read and its watch go over TLS (the member serves nothing else), and so do the
        // administrator's transaction and read.
        let written = try Self.fleet(cluster, ["write", "-forced", app, "Theme", "dark"])
        #expect(written.status == 0, "\(written)")
        try host.waitForCached("forced", app, "Theme", "dark")
        try waitUntil("the host's status: connected to \(endpoint)") {
            let status = try FleetClusterTests.status(of: host)
            return status.hasPrefix("state: connected\n") && status.contains("\nendpoint: \(endpoint)\n")
        }
        let again = try Self.fleet(cluster, ["write", "-forced", app, "Theme", "light"])
        #expect(again.status == 0, "\(again)")
        try host.waitForCached("forced", app, "Theme", "light")
        let read = try Self.fleet(cluster, ["read", "-forced", app, "Theme"])
        #expect(read.status == 0 && read.standardOutput == "light\n", "\(read)")
        #expect(!host.log.contains("TLS"), "\(host.log)")
    }

    @Test func aClientWithoutAnAcceptedCertificateIsRefusedWithAClearMessage() throws {
        let certificates = try TestCertificates()
        let cluster = try EtcdCluster(size: 1, certificates: certificates)
        let endpoint = cluster.endpoints[0]

        // No client certificate at all, and one that another CA signed: etcd refuses the handshake.
        let anonymous = try Self.fleet(
            cluster.endpoints, ca: certificates.caFile, certificate: nil, key: nil, ["read", "-forced", app])
        #expect(anonymous.status == 1, "\(anonymous)")
        #expect(anonymous.standardError.contains("etcd at \(endpoint) refused the TLS handshake: "), "\(anonymous)")
        #expect(anonymous.standardError.contains("alert"), "\(anonymous)")
        let stranger = try Self.fleet(
            cluster.endpoints, ca: certificates.caFile, certificate: certificates.strangerCertificate,
            key: certificates.strangerKey, ["read", "-forced", app])
        #expect(stranger.status == 1, "\(stranger)")
        #expect(stranger.standardError.contains("etcd at \(endpoint) refused the TLS handshake: "), "\(stranger)")

        // The same command with the accepted certificate gets through, so the refusals were about the certificate.
        let accepted = try Self.fleet(cluster, ["write", "-forced", app, "Theme", "dark"])
        #expect(accepted.status == 0, "\(accepted)")

        // A host without a certificate mirrors nothing and reports the refusal in its status.
        let host = try FleetHost(settings: Self.settings(cluster, ca: certificates.caFile, certificate: nil, key: nil))
        try host.start()
        try waitUntil("the refusal in the host's status") {
            try FleetClusterTests.status(of: host).contains("refused the TLS handshake")
        }
        #expect(host.cached("forced", app)?["Theme"] == nil)
    }

    @Test func aCAThatDidNotSignTheMembersCertificateFailsVerification() throws {
        let certificates = try TestCertificates()
        let cluster = try EtcdCluster(size: 1, certificates: certificates)
        let endpoint = cluster.endpoints[0]
        let client = (certificates.clientCertificate, certificates.clientKey)

        let unrelated = try Self.fleet(
            cluster.endpoints, ca: certificates.otherCAFile, certificate: client.0, key: client.1,
            ["read", "-forced", app])
        #expect(unrelated.status == 1, "\(unrelated)")
        #expect(
            unrelated.standardError.contains(
                "the TLS handshake with etcd at \(endpoint) failed: certificate verify failed: unable to get local "
                    + "issuer certificate"), "\(unrelated)")

        // Without a CA file the system's CAs are trusted, and none of them signed the test CA.
        let system = try Self.fleet(cluster.endpoints, ca: nil, certificate: client.0, key: client.1, ["list"])
        #expect(system.status == 1, "\(system)")
        #expect(system.standardError.contains("certificate verify failed: "), "\(system)")

        // The right CA, but a name the certificate does not hold (it names IP 127.0.0.1): the name is checked too.
        let byName = "https://localhost:\(cluster.clientPorts[0])"
        let mismatch = try Self.fleet([byName], ca: certificates.caFile, certificate: client.0, key: client.1, ["list"])
        #expect(mismatch.status == 1, "\(mismatch)")
        #expect(
            mismatch.standardError.contains("etcd at \(byName) failed: certificate verify failed: hostname mismatch"),
            "\(mismatch)")

        // The right CA and the address: accepted.
        let right = try Self.fleet(cluster, ["list"])
        #expect(right.status == 0, "\(right)")
    }

    @Test func keyFilesOpenToOthersAreRefused() throws {
        let certificates = try TestCertificates()
        let loose = certificates.file("loose.key")
        try FileManager.default.copyItem(atPath: certificates.clientKey, toPath: loose)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: loose)
        // Nothing listens there: the key is refused before any connection.
        let endpoint = "https://127.0.0.1:\(try freeLoopbackPorts(1)[0])"

        let refused = try Self.fleet(
            [endpoint], ca: certificates.caFile, certificate: certificates.clientCertificate, key: loose,
            ["read", "-forced", app])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.standardError.contains("the TLS key file \(loose) is open to its group or to others (mode 640)"),
            "\(refused)")

        // The same key readable by its owner only passes the check and fails later, at the connection.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: loose)
        let owned = try Self.fleet(
            [endpoint], ca: certificates.caFile, certificate: certificates.clientCertificate, key: loose,
            ["read", "-forced", app])
        #expect(owned.status == 1, "\(owned)")
        #expect(!owned.standardError.contains("key file"), "\(owned)")
        #expect(owned.standardError.contains("no etcd endpoint answered"), "\(owned)")

        // prefsd refuses to join with it, says why, and opens no connection.
        try FileManager.default.setAttributes([.posixPermissions: 0o604], ofItemAtPath: loose)
        let host = try FleetHost(
            settings: [
                "FleetEndpoints": .string(endpoint), "FleetCAFile": .string(certificates.caFile),
                "FleetCertificateFile": .string(certificates.clientCertificate), "FleetKeyFile": .string(loose),
            ])
        try host.start()
        try waitUntil("the refusal of the key file: \(host.log)") {
            host.log.contains("the TLS key file \(loose) is open to its group or to others (mode 604)")
        }
        #expect(try FleetClusterTests.status(of: host).hasPrefix("state: not in a fleet"))
    }

    @Test func plainHTTPToTheTLSPortFailsWithinTheRequestTimeout() throws {
        let certificates = try TestCertificates()
        let cluster = try EtcdCluster(size: 1, certificates: certificates)
        let plain = "http://127.0.0.1:\(cluster.clientPorts[0])"

        // etcd drops a plain connection to its TLS port without a word; the client gives up within its request
        // timeout (5 s) and says what may be wrong.
        let start = ContinuousClock.now
        let result = try Self.fleet([plain], ca: nil, certificate: nil, key: nil, ["read", "-forced", app])
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 1, "\(result)")
        // It closes or resets the connection, depending on whether the request was read yet.
        #expect(
            result.standardError.contains("etcd at \(plain) closed the connection before answering /v3/kv/range")
                || result.standardError.contains("etcd at \(plain) broke before it answered /v3/kv/range"),
            "\(result)")
        #expect(result.standardError.contains("(if the member serves TLS, its endpoint is https://)"), "\(result)")
        #expect(elapsed < .seconds(15), "took \(elapsed)")

        // The other way round: a plain member closes the connection at the client's hello.
        let plainCluster = try EtcdCluster(size: 1)
        let secure = "https://127.0.0.1:\(plainCluster.clientPorts[0])"
        let reversedStart = ContinuousClock.now
        let reversed = try Self.fleet([secure], ca: certificates.caFile, certificate: nil, key: nil, ["list"])
        let reversedElapsed = ContinuousClock.now - reversedStart
        #expect(reversed.status == 1, "\(reversed)")
        #expect(
            reversed.standardError.contains("etcd at \(secure) closed the connection during the TLS handshake"),
            "\(reversed)")
        #expect(reversed.standardError.contains("its endpoint is http://"), "\(reversed)")
        #expect(reversedElapsed < .seconds(15), "took \(reversedElapsed)")
    }
}
