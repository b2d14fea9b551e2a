// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The TLS connections an attacker (or a mistake) would offer, each served by `openssl s_server` with certificates
/// the test's own CA signed, so that exactly one thing is wrong: `defaults fleet` refuses each, naming the reason
/// `openssl s_client` gives for the same server, and none of them hangs.
extension FleetTLSTests {
    /// `openssl s_server` on a loopback port of its own, answering HTTP (`-www`) once the handshake is done.
    final class TLSServer: Sendable {
        let port: Int
        let address: String
        private let process: SpawnedProcess

        init(
            _ certificates: TestCertificates, certificate: String, address: String = "127.0.0.1",
            extra: [String] = []
        ) throws {
            port = try freeLoopbackPorts(1)[0]
            self.address = address
            process = try SpawnedProcess(
                TestCertificates.openssl,
                [
                    "s_server", "-accept", "\(address):\(port)", "-cert", certificate, "-key", certificates.serverKey,
                    "-www", "-quiet",
                ] + extra,
                environment: [:], logDirectory: certificates.directory.path)
            try waitUntilListening(address: address, port: port, process: process)
        }

        /// The `https://` endpoint, reached at `address` (by default the one it listens on).
        func endpoint(at address: String? = nil) -> String { "https://\(address ?? self.address):\(port)" }
    }

    /// A server that accepts TCP connections and then does what `behaviour` says: `silent` never answers the
    /// client's hello, `closes` reads the first bytes of it and closes.
    final class BrokenServer: Sendable {
        enum Behaviour: String { case silent, closes }
        let port: Int
        private let process: SpawnedProcess

        init(_ behaviour: Behaviour, in directory: TemporaryDirectory) throws {
            port = try freeLoopbackPorts(1)[0]
            let script = """
                import socket, sys, time
                server = socket.socket()
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind(("127.0.0.1", \(port)))
                server.listen(16)
                held = []
                while True:
                    connection, _ = server.accept()
                    if "\(behaviour.rawValue)" == "closes":
                        connection.recv(5)
                        connection.close()
                    else:
                        held.append(connection)
                """
            process = try SpawnedProcess(
                "/usr/bin/python3", ["-c", script], environment: [:], logDirectory: directory.path)
            try waitUntilListening(address: "127.0.0.1", port: port, process: process)
        }

        var endpoint: String { "https://127.0.0.1:\(port)" }
    }

    /// What `openssl s_client` says of the server's certificate: the text of its `verify error:num=N:<text>` line.
    static func clientVerdict(_ certificates: TestCertificates, _ endpoint: String, crl: String? = nil) throws -> String
    {
        let target = String(endpoint.dropFirst("https://".count))
        let result = try BuiltProduct(path: TestCertificates.openssl).run(
            [
                "s_client", "-connect", target, "-CAfile", certificates.caFile, "-verify_return_error", "-verify_ip",
                String(target.split(separator: ":")[0]),
            ] + (crl.map { ["-CRL", $0, "-crl_check"] } ?? []))
        let verdict =
            result.standardOutput.firstMatch(of: /verify error:num=\d+:([^\n]+)/)
            ?? result.standardError.firstMatch(of: /verify error:num=\d+:([^\n]+)/)
        return try #require(verdict.map { String($0.1) }, "s_client gave no verdict: \(result)")
    }

    /// Runs `defaults fleet list` against `endpoint` with the test's CA and client certificate.
    static func list(_ certificates: TestCertificates, _ endpoint: String) throws -> BuiltProduct.Result {
        try fleet(
            [endpoint], ca: certificates.caFile, certificate: certificates.clientCertificate,
            key: certificates.clientKey, ["list"])
    }

    @Test(arguments: [
        ("expired", "20200101000000Z", "20200102000000Z", "serverAuth", "certificate has expired", "validity dates"),
        ("not-yet-valid", "20990101000000Z", "20990102000000Z", "serverAuth", "certificate is not yet valid", "clock"),
        (
            "client-only", "20200101000000Z", "20990101000000Z", "clientAuth", "unsuitable certificate purpose",
            "serverAuth"
        ),
    ])
    func aServerCertificateTheCASignedButThatIsNotValidForThisServerIsRefused(
        name: String, notBefore: String, notAfter: String, usage: String, reason: String, hint: String
    ) throws {
        let certificates = try TestCertificates()
        let certificate = try certificates.makeServerCertificate(
            name, notBefore: notBefore, notAfter: notAfter, extendedKeyUsage: usage)
        let server = try TLSServer(certificates, certificate: certificate)
        #expect(try Self.clientVerdict(certificates, server.endpoint()) == reason)

        let result = try Self.list(certificates, server.endpoint())
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardError.contains(
                "the TLS handshake with etcd at \(server.endpoint()) failed: certificate verify failed: \(reason)"),
            "\(result)")
        #expect(result.standardError.contains(hint), "\(result)")
    }

    @Test func aRevokedServerCertificateIsRefusedWhenTheRevocationListIsGiven() throws {
        let certificates = try TestCertificates()
        let certificate = try certificates.makeServerCertificate(
            "revoked", notBefore: "20200101000000Z", notAfter: "20990101000000Z")
        let unrevoked = try certificates.makeRevocationList("revoked", revoking: false)
        let revoked = try certificates.makeRevocationList("revoked", revoking: true)
        let server = try TLSServer(certificates, certificate: certificate)
        #expect(try Self.clientVerdict(certificates, server.endpoint(), crl: revoked) == "certificate revoked")
        func list(crl: String?) throws -> BuiltProduct.Result {
            try Self.fleet(
                [server.endpoint()], ca: certificates.caFile, crl: crl, certificate: certificates.clientCertificate,
                key: certificates.clientKey, ["list"])
        }

        let refused = try list(crl: revoked)
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.standardError.contains(
                "the TLS handshake with etcd at \(server.endpoint()) failed: certificate verify failed: certificate "
                    + "revoked (checked against the revocation list file: its CA revoked the member's certificate"),
            "\(refused)")
        // The list from before the revocation, and no list at all, let the handshake through (the server is not
        // etcd, so what follows it fails otherwise).
        for crl in [unrevoked, nil] {
            let accepted = try list(crl: crl)
            #expect(!accepted.standardError.contains("TLS handshake"), "\(accepted)")
        }
        // A list that another CA (of the same name) signed is no list of the member's CA: refused, not taken for
        // "not revoked".
        let other = try TestCertificates()
        _ = try other.makeServerCertificate("other", notBefore: "20200101000000Z", notAfter: "20990101000000Z")
        let foreign = try list(crl: try other.makeRevocationList("other", revoking: false))
        #expect(
            foreign.standardError.contains(
                "certificate verify failed: CRL signature failure (checked against the revocation list file"),
            "\(foreign)")
        // A file that holds no list is refused before any connection.
        let notAList = try list(crl: certificates.caFile)
        #expect(notAList.status == 1, "\(notAList)")
        #expect(
            notAList.standardError.contains(
                "the TLS revocation list file \(certificates.caFile) holds no PEM certificate revocation list"),
            "\(notAList)")
    }

    @Test func aCertificateForAnotherAddressIsRefused() throws {
        let certificates = try TestCertificates()
        // The certificate names 127.0.0.1; the server listens on every loopback address and is reached at another.
        let server = try TLSServer(certificates, certificate: certificates.serverCertificate, address: "0.0.0.0")
        let elsewhere = server.endpoint(at: "127.0.0.2")
        #expect(try Self.clientVerdict(certificates, elsewhere) == "IP address mismatch")

        let result = try Self.list(certificates, elsewhere)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardError.contains(
                "the TLS handshake with etcd at \(elsewhere) failed: certificate verify failed: IP address mismatch "
                    + "(the member's certificate does not name 127.0.0.2 in its subjectAltName)"), "\(result)")
        // At the address it names, the same server is accepted as far as TLS goes (it is not etcd, so what follows
        // the handshake fails otherwise).
        let right = try Self.list(certificates, server.endpoint(at: "127.0.0.1"))
        #expect(!right.standardError.contains("TLS handshake"), "\(right)")
    }

    @Test func aServerThatOffersOnlyTLS11IsRefused() throws {
        let certificates = try TestCertificates()
        // OpenSSL 3 allows TLS 1.1 only at security level 0; a downgrade attacker would offer nothing better.
        let server = try TLSServer(
            certificates, certificate: certificates.serverCertificate,
            extra: ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
        let result = try Self.list(certificates, server.endpoint())
        #expect(result.status == 1, "\(result)")
        #expect(result.standardError.contains("etcd at \(server.endpoint())"), "\(result)")
        #expect(
            result.standardError.contains(
                "refused the TLS handshake: tlsv1 alert protocol version (the member offers no TLS version this client "
                    + "accepts: 1.2 or later)"), "\(result)")
    }

    @Test func aServerThatClosesOrFallsSilentDuringTheHandshakeFailsWithinTheRequestTimeout() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-tls-broken")
        let certificates = try TestCertificates()

        let closing = try BrokenServer(.closes, in: directory)
        let closed = try Self.list(certificates, closing.endpoint)
        #expect(closed.status == 1, "\(closed)")
        #expect(
            closed.standardError.contains("etcd at \(closing.endpoint) closed the connection during the TLS handshake"),
            "\(closed)")

        let silent = try BrokenServer(.silent, in: directory)
        let start = ContinuousClock.now
        let unanswered = try Self.list(certificates, silent.endpoint)
        let elapsed = ContinuousClock.now - start
        #expect(unanswered.status == 1, "\(unanswered)")
        #expect(unanswered.standardError.contains("etcd at \(silent.endpoint)"), "\(unanswered)")
        #expect(elapsed < .seconds(15), "took \(elapsed)")
    }
}

/// Waits until something accepts TCP connections at `address` (`0.0.0.0`: loopback) and `port`.
private func waitUntilListening(address: String, port: Int, process: SpawnedProcess) throws {
    let target = address == "0.0.0.0" ? "127.0.0.1" : address
    try waitUntil("a server listening on \(target):\(port): \(process.standardError)") {
        guard process.isRunning else { throw TestFailure("the server exited: \(process.standardError)") }
        return canConnect(to: target, port: port)
    }
}

/// Whether a TCP connection to `address`:`port` is accepted now.
private func canConnect(to address: String, port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_addr.s_addr = inet_addr(address)
    socketAddress.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &socketAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
