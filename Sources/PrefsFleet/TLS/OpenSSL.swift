// SPDX-License-Identifier: Apache-2.0
internal import CPrefsOpenSSL

/// Every call into OpenSSL (the system's libssl and libcrypto, OpenSSL 3, loaded with the first context) that this
/// module makes: the client context with its trusted CAs and client certificate, and one TLS connection over two
/// memory BIOs.
///
/// Keeping them in one place keeps C types out of the rest of the module: the rest sees `OpaquePointer`s it hands back
/// and Swift values. OpenSSL reports failures on a per-thread error queue; every function here empties it before the
/// calls that may fail and reads it right after a failure, so that no reason is lost and none leaks into the next
/// connection served on the same event loop thread.
enum OpenSSL {
    /// A PEM file read whole: its path (for messages) and its bytes.
    struct PEMFile {
        var path: String
        var bytes: [UInt8]
    }

    // MARK: Context

    /// Creates a client context: TLS 1.2 at least, the server's certificate verified against `trusted` (or the
    /// system's CA paths) and, when given, checked against certificate revocation lists, and the client certificate
    /// and its key when given.
    /// - Parameters:
    ///   - trusted: CA certificates, PEM; `nil` for the system's (`SSL_CTX_set_default_verify_paths`).
    ///   - revocations: Certificate revocation lists, PEM, of the CAs that issue the servers' certificates; `nil` to
    ///     check none.
    ///   - certificate: The client certificate, PEM, with its intermediate CAs after it, if any.
    ///   - key: The client certificate's private key, PEM, unencrypted.
    /// - Returns: The `SSL_CTX`, which ``freeContext(_:)`` frees.
    /// - Throws: ``EtcdError`` with code `invalidArgument`, naming the file that cannot be used and why, or
    ///   `unavailable` when libssl.so.3 cannot be loaded.
    static func makeClientContext(
        trusted: PEMFile?, revocations: PEMFile?, certificate: PEMFile?, key: PEMFile?
    ) throws(EtcdError) -> OpaquePointer {
        try load()
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw EtcdError(.invalidArgument, "cannot create a TLS context: \(takeErrors())")
        }
        var made = false
        defer { if !made { SSL_CTX_free(context) } }
        guard CPrefsOpenSSL_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw EtcdError(.invalidArgument, "cannot require TLS 1.2: \(takeErrors())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let trusted {
            try addTrustedCertificates(trusted, to: context)
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            throw EtcdError(.invalidArgument, "cannot use the system's CA certificates: \(takeErrors())")
        }
        if let revocations { try checkRevocations(revocations, in: context) }
        if let certificate, let key { try useCertificate(certificate, key: key, in: context) }
        made = true
        return context
    }

    /// Adds the revocation lists in `file` to the context's store and has the server's certificate checked against
    /// them (`X509_V_FLAG_CRL_CHECK`: the leaf; a leaf whose issuer has no list there is refused, `unable to get
    /// certificate CRL`, since a list that was meant to be there and is not must not pass as "not revoked").
    private static func checkRevocations(_ file: PEMFile, in context: OpaquePointer) throws(EtcdError) {
        let bio = try memoryBIO(file)
        defer { BIO_free(bio) }
        let store = SSL_CTX_get_cert_store(context)
        var count = 0
        while let list = PEM_read_bio_X509_CRL(bio, nil, nil, nil) {
            defer { X509_CRL_free(list) }
            guard X509_STORE_add_crl(store, list) == 1 else {
                throw EtcdError(
                    .invalidArgument, "cannot use revocation list \(count + 1) of \(file.path): \(takeErrors())")
            }
            count += 1
        }
        guard count > 0 else {
            throw EtcdError(
                .invalidArgument,
                "the TLS revocation list file \(file.path) holds no PEM certificate revocation list: \(takeErrors())")
        }
        try expectEndOfFile(file, after: "revocation list \(count)")
        guard X509_STORE_set_flags(store, UInt(X509_V_FLAG_CRL_CHECK)) == 1 else {
            throw EtcdError(.invalidArgument, "cannot check revocation lists: \(takeErrors())")
        }
    }

    /// Loads libssl, which nothing links (CPrefsOpenSSL's openssl.c): a context comes first in every use of TLS,
    /// so a daemon whose fleet is reached over plain http:// never loads it.
    private static func load() throws(EtcdError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard CPrefsOpenSSL_load(&reason, reason.count) == 1 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw EtcdError(.unavailable, "TLS to etcd needs OpenSSL 3: \(text)")
        }
    }

    /// Frees a context from ``makeClientContext(trusted:revocations:certificate:key:)`` (connections hold their own reference).
    static func freeContext(_ context: OpaquePointer) {
        SSL_CTX_free(context)
    }

    private static func addTrustedCertificates(_ file: PEMFile, to context: OpaquePointer) throws(EtcdError) {
        let bio = try memoryBIO(file)
        defer { BIO_free(bio) }
        let store = SSL_CTX_get_cert_store(context)
        var count = 0
        while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
            defer { X509_free(certificate) }
            guard X509_STORE_add_cert(store, certificate) == 1 else {
                throw EtcdError(
                    .invalidArgument, "cannot trust certificate \(count + 1) of \(file.path): \(takeErrors())")
            }
            count += 1
        }
        guard count > 0 else {
            throw EtcdError(.invalidArgument, "the TLS CA file \(file.path) holds no PEM certificate: \(takeErrors())")
        }
        try expectEndOfFile(file, after: "certificate \(count)")
    }

    private static func useCertificate(
        _ certificate: PEMFile, key: PEMFile, in context: OpaquePointer
    ) throws(EtcdError) {
        let certificateBIO = try memoryBIO(certificate)
        defer { BIO_free(certificateBIO) }
        guard let leaf = PEM_read_bio_X509_AUX(certificateBIO, nil, nil, nil) else {
            throw EtcdError(
                .invalidArgument,
                "the TLS certificate file \(certificate.path) holds no PEM certificate: \(takeErrors())")
        }
        defer { X509_free(leaf) }
        guard SSL_CTX_use_certificate(context, leaf) == 1 else {
            throw EtcdError(
                .invalidArgument, "cannot use the certificate in \(certificate.path): \(takeErrors())")
        }
        // What follows the certificate is its chain of intermediate CAs, sent with it.
        var count = 1
        while let intermediate = PEM_read_bio_X509(certificateBIO, nil, nil, nil) {
            guard CPrefsOpenSSL_SSL_CTX_add_extra_chain_cert(context, intermediate) == 1 else {
                X509_free(intermediate)
                throw EtcdError(
                    .invalidArgument,
                    "cannot use certificate \(count + 1) of \(certificate.path) as an intermediate CA: \(takeErrors())")
            }
            count += 1
        }
        try expectEndOfFile(certificate, after: "certificate \(count)")

        let keyBIO = try memoryBIO(key)
        defer { BIO_free(keyBIO) }
        // Without a callback OpenSSL would ask for a passphrase on the terminal, and prefsd has none.
        guard let privateKey = PEM_read_bio_PrivateKey(keyBIO, nil, { _, _, _, _ in 0 }, nil) else {
            throw EtcdError(
                .invalidArgument,
                "the TLS key file \(key.path) holds no unencrypted PEM private key: \(takeErrors())")
        }
        defer { EVP_PKEY_free(privateKey) }
        guard SSL_CTX_use_PrivateKey(context, privateKey) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw EtcdError(
                .invalidArgument,
                "the key in \(key.path) is not the key of the certificate in \(certificate.path): \(takeErrors())")
        }
    }

    /// A memory BIO holding a copy of the file's bytes, which the caller frees.
    private static func memoryBIO(_ file: PEMFile) throws(EtcdError) -> OpaquePointer {
        ERR_clear_error()
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw EtcdError(.invalidArgument, "cannot buffer \(file.path): \(takeErrors())")
        }
        guard file.bytes.isEmpty || BIO_write(bio, file.bytes, Int32(clamping: file.bytes.count)) == file.bytes.count
        else {
            BIO_free(bio)
            throw EtcdError(.invalidArgument, "cannot buffer \(file.path): \(takeErrors())")
        }
        return bio
    }

    /// Checks that the read that ended a loop over PEM blocks failed at the end of the file (PEM's "no start line"),
    /// not on a damaged block.
    private static func expectEndOfFile(_ file: PEMFile, after what: String) throws(EtcdError) {
        let last = ERR_peek_last_error()
        let reasons = takeErrors()
        if last != 0, ERR_GET_LIB(last) != ERR_LIB_PEM || ERR_GET_REASON(last) != PEM_R_NO_START_LINE {
            throw EtcdError(.invalidArgument, "\(file.path) is damaged after \(what): \(reasons)")
        }
    }

    // MARK: Connection

    /// Why a TLS operation failed, as OpenSSL tells it.
    struct Failure: Error {
        /// OpenSSL's reasons, oldest first (`certificate verify failed`, `tlsv13 alert certificate required`).
        var reason: String
        /// The certificate verification's error (`unable to get local issuer certificate`), when verification
        /// failed.
        var verifyError: String?
        /// What kind of verification failure it was, for the hint that goes with it.
        var verifyKind: VerifyKind = .other
        /// Whether the server sent a fatal alert: it refused us.
        var alertReceived: Bool
    }

    /// Kinds of certificate verification failure, each with its own likely cause.
    enum VerifyKind {
        /// No trusted CA signed the chain (or the chain is incomplete).
        case issuer
        /// Outside its validity dates: expired, not yet valid (or this machine's clock is wrong).
        case dates
        /// It does not name the host name or address connected to.
        case name
        /// It is not for a TLS server (its extended key usage lacks serverAuth).
        case purpose
        /// Its CA revoked it, or no revocation list of its CA was given (with ``EtcdTLSConfiguration/crlFile``).
        case revocation
        /// Anything else (a bad signature, a malformed certificate).
        case other

        init(_ code: Int) {
            switch Int32(truncatingIfNeeded: code) {
            case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
                X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
                X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
                self = .issuer
            case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
                self = .dates
            case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
                self = .name
            case X509_V_ERR_INVALID_PURPOSE:
                self = .purpose
            case X509_V_ERR_CERT_REVOKED, X509_V_ERR_UNABLE_TO_GET_CRL, X509_V_ERR_CRL_HAS_EXPIRED,
                X509_V_ERR_CRL_NOT_YET_VALID, X509_V_ERR_CRL_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER,
                X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE:
                self = .revocation
            default:
                self = .other
            }
        }
    }

    /// What a read of plaintext gave.
    enum ReadOutcome {
        /// That many bytes.
        case read(Int)
        /// Nothing until more ciphertext arrives.
        case wantsMore
        /// The server closed the session (`close_notify`).
        case closed
        /// The session failed.
        case failed(Failure)
    }

    /// How far a handshake got.
    enum HandshakeProgress {
        /// Done: plaintext may flow.
        case done
        /// Waiting for the server's next flight.
        case wantsMore
        /// Failed.
        case failed(Failure)
    }

    /// One client connection's TLS state: an `SSL` that reads ciphertext from one memory BIO and writes it to
    /// another, so that the channel, not OpenSSL, does the socket I/O. Used on one thread at a time (its channel's
    /// event loop).
    final class Connection {
        private let ssl: OpaquePointer
        /// Ciphertext from the server, which ``feed(_:)`` appends to.
        private let input: OpaquePointer
        /// Ciphertext for the server, which ``takeOutput(into:)`` drains.
        private let output: OpaquePointer

        /// Creates the client side of a connection to `host` (a name, or an IP address literal).
        ///
        /// The server's certificate must name `host`: as an IP address (`subjectAltName` `IP:`) for an address,
        /// else as a DNS name, which also goes in the handshake's server name indication (SNI allows names only).
        /// - Throws: ``EtcdError`` with code `tlsFailed` when OpenSSL cannot create it (memory).
        init(context: OpaquePointer, host: String) throws(EtcdError) {
            ERR_clear_error()
            guard let ssl = SSL_new(context) else {
                throw EtcdError(.tlsFailed, "cannot create a TLS connection: \(takeErrors())")
            }
            guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
                SSL_free(ssl)
                throw EtcdError(.tlsFailed, "cannot create a TLS connection's buffers: \(takeErrors())")
            }
            SSL_set_bio(ssl, input, output)  // The SSL owns both from here on.
            self.ssl = ssl
            self.input = input
            self.output = output
            SSL_set_connect_state(ssl)
            let parameters = SSL_get0_param(ssl)
            if X509_VERIFY_PARAM_set1_ip_asc(parameters, host) != 1 {
                ERR_clear_error()  // Not an address: a name.
                guard X509_VERIFY_PARAM_set1_host(parameters, host, 0) == 1,
                    CPrefsOpenSSL_SSL_set_tlsext_host_name(ssl, host) == 1
                else {
                    throw EtcdError(.tlsFailed, "cannot verify the host name \(host): \(takeErrors())")
                }
            }
        }

        deinit {
            SSL_free(ssl)
        }

        /// Appends ciphertext that arrived from the server.
        func feed(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            // A memory BIO grows to take everything.
            _ = BIO_write(input, base, Int32(bytes.count))
        }

        /// Takes the handshake as far as the ciphertext fed so far allows.
        func handshake() -> HandshakeProgress {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 { return .done }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wantsMore
            default: return .failed(failure())
            }
        }

        /// Decrypts at most `buffer.count` bytes of plaintext.
        func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return .read(0) }
            ERR_clear_error()
            let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
            if count > 0 { return .read(Int(count)) }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wantsMore
            case SSL_ERROR_ZERO_RETURN: return .closed
            default: return .failed(failure())
            }
        }

        /// Encrypts plaintext into the output; the memory BIO takes all of it at once.
        func write(_ bytes: UnsafeRawBufferPointer) -> Failure? {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
            ERR_clear_error()
            let count = SSL_write(ssl, base, Int32(clamping: bytes.count))
            if count == bytes.count { return nil }
            return count > 0 ? Failure(reason: "a partial write", alertReceived: false) : failure()
        }

        /// Queues a `close_notify` alert in the output.
        func shutdown() {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }

        /// How many bytes of ciphertext wait to be sent.
        var pendingOutput: Int { Int(BIO_ctrl_pending(output)) }

        /// Moves waiting ciphertext into `buffer`.
        /// - Returns: How many bytes were moved.
        func takeOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
            return max(0, Int(BIO_read(output, base, Int32(clamping: buffer.count))))
        }

        /// The failure of the call just made: the queue's reasons, the verification's error and whether the server
        /// sent an alert (OpenSSL files a received alert as reason 1000 + the alert's number).
        private func failure() -> Failure {
            let last = ERR_peek_last_error()
            let alertReceived =
                last != 0 && ERR_GET_LIB(last) == ERR_LIB_SSL && ERR_GET_REASON(last) >= SSL_AD_REASON_OFFSET
            let reasons = takeErrors()
            let verification = SSL_get_verify_result(ssl)
            let verifyError =
                verification == X509_V_OK ? nil : String(cString: X509_verify_cert_error_string(verification))
            return Failure(
                reason: reasons.isEmpty ? "the TLS library gave no reason" : reasons, verifyError: verifyError,
                verifyKind: VerifyKind(Int(verification)), alertReceived: alertReceived)
        }
    }

    // MARK: Errors

    /// Empties this thread's error queue, returning its reasons, oldest first, joined by `; ` (empty when none).
    private static func takeErrors() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if let text = ERR_reason_error_string(code) {
                reasons.append(String(cString: text))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        var unique: [String] = []
        for reason in reasons where !unique.contains(reason) { unique.append(reason) }
        return unique.joined(separator: "; ")
    }
}
