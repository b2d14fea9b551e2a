// SPDX-License-Identifier: Apache-2.0
/// An OpenSSL client context (`SSL_CTX`) built from an ``EtcdTLSConfiguration``: the trusted CAs and the client
/// certificate, loaded once and shared by every connection of the clients that use it.
///
/// Sendable because OpenSSL allows an `SSL_CTX` to be shared between threads once set up, and nothing changes it
/// after ``init(_:)``; each connection makes its own `SSL` from it (``TLSClientHandler``).
package final class EtcdTLSContext: @unchecked Sendable {
    /// The files it was built from.
    package let configuration: EtcdTLSConfiguration
    /// The `SSL_CTX`.
    let context: OpaquePointer
    /// A digest of the files' contents as read (64-bit FNV-1a): a reload compares it to tell renewed certificates
    /// at the same paths from unchanged ones.
    package let fingerprint: UInt64

    /// The largest certificate or key file read: the system's whole CA bundle is about 200 KB.
    static let maxFileBytes = 4 << 20

    /// Reads the files and builds the context: TLS 1.2 at least, the server's certificate verified against the CA
    /// file (or the system's CA certificates), the revocation lists when given, and the endpoint's host name or
    /// address.
    /// - Throws: ``EtcdError`` with code `invalidArgument`, naming the file: missing or unreadable, not PEM, a key
    ///   that is encrypted or not the certificate's, a key file open to its group or to others (as for a password
    ///   file), or a certificate without its key or a key without its certificate.
    package init(_ configuration: EtcdTLSConfiguration) throws(EtcdError) {
        guard (configuration.certificateFile == nil) == (configuration.keyFile == nil) else {
            throw EtcdError(
                .invalidArgument, "a TLS client certificate and its key are given together, or neither is given")
        }
        func read(_ path: String?, _ what: String, isSecret: Bool) throws(EtcdError) -> OpenSSL.PEMFile? {
            guard let path else { return nil }
            let bytes = try EtcdFile.read(path, what: what, maxBytes: Self.maxFileBytes, isSecret: isSecret)
            return OpenSSL.PEMFile(path: path, bytes: bytes)
        }
        let trusted = try read(configuration.caFile, "TLS CA file", isSecret: false)
        let revocations = try read(configuration.crlFile, "TLS revocation list file", isSecret: false)
        let certificate = try read(configuration.certificateFile, "TLS certificate file", isSecret: false)
        let key = try read(configuration.keyFile, "TLS key file", isSecret: true)
        self.configuration = configuration
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in [trusted, revocations, certificate, key] {
            for byte in file?.bytes ?? [] { digest = (digest ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            digest = (digest ^ 0xff) &* 0x0000_0100_0000_01b3  // Where one file ends and the next begins.
        }
        self.fingerprint = digest
        self.context = try OpenSSL.makeClientContext(
            trusted: trusted, revocations: revocations, certificate: certificate, key: key)
    }

    deinit {
        OpenSSL.freeContext(context)
    }

    /// The context for `https://` endpoints when no TLS files are configured: the system's CA certificates, no
    /// client certificate; built on first use, once per process.
    static let systemDefault = Result { () throws(EtcdError) in try EtcdTLSContext(EtcdTLSConfiguration()) }

    /// The context for `endpoints`: `nil` for `http://` ones, else built from `configuration`.
    ///
    /// Every endpoint must have the same scheme: a cluster is reached over TLS or not, and a plain member in a TLS
    /// list would get the password and the token in the clear. TLS files with `http://` endpoints are refused for the
    /// same reason: whoever configured a certificate meant TLS.
    /// - Throws: ``EtcdError`` with code `invalidArgument`, naming the problem.
    package static func forEndpoints(
        _ endpoints: [EtcdEndpoint], configuration: EtcdTLSConfiguration
    ) throws(EtcdError) -> EtcdTLSContext? {
        let secure = endpoints.filter(\.isSecure)
        if !secure.isEmpty, secure.count != endpoints.count {
            throw EtcdError(
                .invalidArgument,
                "the etcd endpoints mix https:// (\(secure[0])) and http:// "
                    + "(\(endpoints.first { !$0.isSecure }!)); a cluster is reached over TLS or not")
        }
        guard !secure.isEmpty else {
            guard configuration.isEmpty else {
                throw EtcdError(
                    .invalidArgument,
                    "TLS files are given but the etcd endpoints are http:// (\(endpoints[0])); use https:// URLs")
            }
            return nil
        }
        return try EtcdTLSContext(configuration)
    }
}

extension EtcdTLSContext: Equatable {
    /// Contexts built from the same files are equal (settings compare so).
    package static func == (lhs: EtcdTLSContext, rhs: EtcdTLSContext) -> Bool {
        lhs.configuration == rhs.configuration
    }
}
