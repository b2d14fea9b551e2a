// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsFleet
import PrefsTestSupport
import Testing

/// The TLS files prefsd's `FleetCAFile`, `FleetCertificateFile` and `FleetKeyFile` and `defaults fleet`'s
/// `PREFERENCES_FLEET_*_FILE` variables name, loaded into an OpenSSL context: each file that cannot be used is named
/// with the reason, and the endpoints' schemes must agree with the files.
@Suite struct EtcdTLSContextTests {
    let certificates = try! TestCertificates()

    /// Writes `bytes` to a file named `name` beside the certificates, with `mode`.
    func file(_ name: String, _ bytes: [UInt8], mode: Int = 0o600) throws -> String {
        let path = certificates.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func contents(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path)))
    }

    func refusal(_ configuration: EtcdTLSConfiguration) throws -> String {
        let error = try #require(throws: EtcdError.self) { try EtcdTLSContext(configuration) }
        #expect(error.code == .invalidArgument)
        return error.message
    }

    @Test func usableFilesMakeAContext() throws {
        let full = EtcdTLSConfiguration(
            caFile: certificates.caFile, certificateFile: certificates.clientCertificate,
            keyFile: certificates.clientKey)
        #expect(try EtcdTLSContext(full).configuration == full)
        #expect(try EtcdTLSContext(EtcdTLSConfiguration(caFile: certificates.caFile)).configuration.keyFile == nil)
        // Several CAs in one file, and the system's CAs when none is named.
        let bundle = try file("bundle.pem", contents(certificates.otherCAFile) + contents(certificates.caFile))
        _ = try EtcdTLSContext(EtcdTLSConfiguration(caFile: bundle))
        _ = try EtcdTLSContext(EtcdTLSConfiguration())
    }

    @Test func aRenewedCertificateAtTheSamePathHasAnotherFingerprint() throws {
        // The client certificate and key copied to paths of their own, then renewed in place (another certificate
        // and key the same CA signed), as a certificate manager renews them before a reload.
        let certificate = try file("host.pem", contents(certificates.clientCertificate))
        let key = try file("host.key", contents(certificates.clientKey))
        let configuration = EtcdTLSConfiguration(
            caFile: certificates.caFile, certificateFile: certificate, keyFile: key)
        let first = try EtcdTLSContext(configuration)
        #expect(try EtcdTLSContext(configuration).fingerprint == first.fingerprint)
        _ = try file("host.pem", contents(certificates.serverCertificate))
        _ = try file("host.key", contents(certificates.serverKey))
        let renewed = try EtcdTLSContext(configuration)
        #expect(renewed.configuration == first.configuration)
        #expect(renewed.fingerprint != first.fingerprint)
    }

    @Test func filesThatCannotBeUsedAreNamedWithTheReason() throws {
        let key = certificates.clientKey
        let certificate = certificates.clientCertificate
        let missing = certificates.file("absent.pem")
        #expect(try refusal(.init(caFile: missing)).contains("cannot read the TLS CA file: cannot open \(missing)"))
        #expect(try refusal(.init(caFile: key)).contains("the TLS CA file \(key) holds no PEM certificate"))
        let pem = try contents(certificates.caFile)
        let damaged = try file("damaged.pem", pem + Array(pem.prefix(pem.count / 2)))
        #expect(try refusal(.init(caFile: damaged)).contains("\(damaged) is damaged after certificate 1"))
        #expect(
            try refusal(.init(certificateFile: key, keyFile: key)).contains(
                "the TLS certificate file \(key) holds no PEM certificate"))
        #expect(
            try refusal(.init(certificateFile: certificate, keyFile: certificates.strangerKey)).contains(
                "the key in \(certificates.strangerKey) is not the key of the certificate in \(certificate)"))
        #expect(
            try refusal(.init(certificateFile: certificate)).contains(
                "a TLS client certificate and its key are given together"))
        #expect(
            try refusal(.init(keyFile: key)).contains("a TLS client certificate and its key are given together"))
    }

    @Test func anEncryptedKeyIsRefusedWithoutAskingForItsPassphrase() throws {
        let encrypted = certificates.file("encrypted.key")
        let made = try BuiltProduct(path: TestCertificates.openssl).run([
            "pkey", "-in", certificates.clientKey, "-aes128", "-passout", "pass:secret", "-out", encrypted,
        ])
        #expect(made.status == 0, "\(made)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: encrypted)
        let message = try refusal(.init(certificateFile: certificates.clientCertificate, keyFile: encrypted))
        #expect(message.contains("the TLS key file \(encrypted) holds no unencrypted PEM private key"), "\(message)")
    }

    @Test(arguments: [0o640, 0o604, 0o620, 0o660, 0o644])
    func keyFilesOpenToItsGroupOrOthersAreRefused(mode: Int) throws {
        let key = try file("open.key", contents(certificates.clientKey), mode: mode)
        let message = try refusal(.init(certificateFile: certificates.clientCertificate, keyFile: key))
        #expect(
            message.contains(
                "the TLS key file \(key) is open to its group or to others (mode \(String(mode, radix: 8)))"),
            "\(message)")
    }

    @Test func endpointsAreAllPlainOrAllTLSAndTLSFilesNeedTLS() throws {
        let secure = [try EtcdEndpoint("https://127.0.0.1:2379"), try EtcdEndpoint("https://127.0.0.1:2380")]
        let plain = [try EtcdEndpoint("http://127.0.0.1:2379")]
        let files = EtcdTLSConfiguration(caFile: certificates.caFile)
        #expect(try EtcdTLSContext.forEndpoints(plain, configuration: .init()) == nil)
        #expect(try EtcdTLSContext.forEndpoints(secure, configuration: files)?.configuration == files)
        #expect(try EtcdTLSContext.forEndpoints(secure, configuration: .init()) != nil)
        let mixed = try #require(throws: EtcdError.self) {
            try EtcdTLSContext.forEndpoints(secure + plain, configuration: files)
        }
        #expect(mixed.message.contains("mix https:// (https://127.0.0.1:2379) and http:// (http://127.0.0.1:2379)"))
        let filesWithoutTLS = try #require(throws: EtcdError.self) {
            try EtcdTLSContext.forEndpoints(plain, configuration: files)
        }
        #expect(filesWithoutTLS.message.contains("TLS files are given but the etcd endpoints are http://"))
    }
}
