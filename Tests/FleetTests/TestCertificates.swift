// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

/// Certificates made for one test with the `openssl` command, in a temporary directory: a CA, a server certificate
/// for 127.0.0.1 and a client certificate signed by it, and an unrelated CA with a client certificate of its own.
/// Keys are P-256 (quick to make) and readable by their owner only.
final class TestCertificates: Sendable {
    static let openssl = "/usr/bin/openssl"

    let directory: TemporaryDirectory

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.openssl) else {
            throw TestFailure("\(Self.openssl) is missing: install openssl (scripts/install-deps.sh)")
        }
        directory = try TemporaryDirectory(prefix: "fleet-tls")
        // The configuration is ours, so that the system's openssl.cnf adds no extension of its own.
        let configuration = """
            [req]
            distinguished_name = name
            prompt = no
            [name]
            [ca]
            basicConstraints = critical, CA:true
            keyUsage = critical, keyCertSign, cRLSign
            [server]
            subjectAltName = IP:127.0.0.1
            extendedKeyUsage = serverAuth, clientAuth
            [client]
            extendedKeyUsage = clientAuth
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: file("openssl.cnf")))
        try makeCA("ca", "Fleet Test CA")
        try makeCA("other-ca", "Unrelated CA")
        // etcd's gateway dials etcd's gRPC server with the server certificate as its client certificate, so the
        // server certificate serves both ways.
        try makeCertificate("server", "etcd", extensions: "server", signer: "ca", serial: 2)
        try makeCertificate("client", "fleet-client", extensions: "client", signer: "ca", serial: 3)
        try makeCertificate("stranger", "fleet-client", extensions: "client", signer: "other-ca", serial: 4)
    }

    func file(_ name: String) -> String { directory.file(name) }

    /// The CA that signed the server's and the client's certificates.
    var caFile: String { file("ca.pem") }
    /// A CA that signed neither; it signed ``strangerCertificate``.
    var otherCAFile: String { file("other-ca.pem") }
    var serverCertificate: String { file("server.pem") }
    var serverKey: String { file("server.key") }
    var clientCertificate: String { file("client.pem") }
    var clientKey: String { file("client.key") }
    /// A client certificate that the other CA signed.
    var strangerCertificate: String { file("stranger.pem") }
    var strangerKey: String { file("stranger.key") }

    private func makeCA(_ name: String, _ commonName: String) throws {
        try run([
            "req", "-x509", "-config", file("openssl.cnf"), "-extensions", "ca", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", file("\(name).key"), "-out", file("\(name).pem"),
            "-days", "2", "-subj", "/CN=\(commonName)",
        ])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file("\(name).key"))
    }

    private func makeCertificate(
        _ name: String, _ commonName: String, extensions: String, signer: String, serial: Int
    ) throws {
        try run([
            "req", "-new", "-config", file("openssl.cnf"), "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", file("\(name).key"), "-out", file("\(name).csr"), "-subj", "/CN=\(commonName)",
        ])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file("\(name).key"))
        try run([
            "x509", "-req", "-in", file("\(name).csr"), "-CA", file("\(signer).pem"), "-CAkey", file("\(signer).key"),
            "-set_serial",
            "\(serial)", "-days", "2", "-extfile", file("openssl.cnf"), "-extensions", extensions, "-out",
            file("\(name).pem"),
        ])
    }

    func run(_ arguments: [String]) throws {
        let result = try BuiltProduct(path: Self.openssl).run(arguments)
        guard result.status == 0 else { throw TestFailure("openssl \(arguments.joined(separator: " ")): \(result)") }
    }
}
