// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

/// The certificates an attacker or a careless administrator would present, made on demand with `openssl ca` (which,
/// unlike `openssl x509 -req`, takes the validity dates), all signed by the test's own CA so that only the one flaw
/// named is wrong.
extension TestCertificates {
    /// A server certificate for `address` signed by the test's CA, valid from `notBefore` to `notAfter`
    /// (`YYYYMMDDHHMMSSZ`), with the server's key; returns the certificate's path.
    func makeServerCertificate(
        _ name: String, address: String = "127.0.0.1", notBefore: String, notAfter: String,
        extendedKeyUsage: String = "serverAuth"
    ) throws -> String {
        let authority = file("authority-\(name)")
        try FileManager.default.createDirectory(atPath: authority, withIntermediateDirectories: true)
        let configuration = """
            [ca]
            default_ca = test
            [test]
            database = \(authority)/index.txt
            new_certs_dir = \(authority)
            serial = \(authority)/serial
            default_md = sha256
            policy = anything
            unique_subject = no
            default_crl_days = 2
            crlnumber = \(authority)/crlnumber
            [anything]
            commonName = optional
            [server]
            subjectAltName = IP:\(address)
            extendedKeyUsage = \(extendedKeyUsage)
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: "\(authority)/ca.cnf"))
        try Data().write(to: URL(fileURLWithPath: "\(authority)/index.txt"))
        try Data("1000\n".utf8).write(to: URL(fileURLWithPath: "\(authority)/serial"))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: "\(authority)/crlnumber"))
        try run([
            "req", "-new", "-config", file("openssl.cnf"), "-key", serverKey, "-out", "\(authority)/request.csr",
            "-subj", "/CN=etcd",
        ])
        let certificate = file("\(name).pem")
        try run([
            "ca", "-batch", "-config", "\(authority)/ca.cnf", "-cert", caFile, "-keyfile", file("ca.key"), "-in",
            "\(authority)/request.csr", "-out", certificate, "-startdate", notBefore, "-enddate", notAfter,
            "-extensions", "server", "-notext",
        ])
        return certificate
    }

    /// The test CA's certificate revocation list after revoking the certificates ``makeServerCertificate(_:address:notBefore:notAfter:extendedKeyUsage:)``
    /// made under `name` if `revoking` (else a list revoking nothing); returns the list's path (PEM).
    func makeRevocationList(_ name: String, revoking: Bool) throws -> String {
        let authority = file("authority-\(name)")
        if revoking {
            try run([
                "ca", "-config", "\(authority)/ca.cnf", "-cert", caFile, "-keyfile", file("ca.key"), "-revoke",
                file("\(name).pem"),
            ])
        }
        let list = file("\(name)-\(revoking ? "revoked" : "none").crl.pem")
        try run([
            "ca", "-config", "\(authority)/ca.cnf", "-cert", caFile, "-keyfile", file("ca.key"), "-gencrl", "-out",
            list,
        ])
        return list
    }

    /// A client certificate signed by the test's CA whose subject has no Common Name (an organization only; the host
    /// is named in subjectAltName): what etcd 3.4's JSON gateway accepts while authentication is enabled. Returns the
    /// certificate's and its key's paths.
    func makeClientCertificateWithoutCommonName() throws -> (certificate: String, key: String) {
        let extensions = file("nameless.cnf")
        try Data("[client]\nextendedKeyUsage = clientAuth\nsubjectAltName = DNS:fleet-host\n".utf8).write(
            to: URL(fileURLWithPath: extensions))
        let key = file("nameless.key")
        try run([
            "req", "-new", "-config", file("openssl.cnf"), "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", key, "-out", file("nameless.csr"), "-subj", "/O=Fleet hosts",
        ])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try run([
            "x509", "-req", "-in", file("nameless.csr"), "-CA", caFile, "-CAkey", file("ca.key"), "-set_serial", "9",
            "-days", "2", "-extfile", extensions, "-extensions", "client", "-out", file("nameless.pem"),
        ])
        return (file("nameless.pem"), key)
    }
}
