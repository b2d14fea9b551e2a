// SPDX-License-Identifier: Apache-2.0
/// The files TLS to etcd uses (docs/FLEET.md, "Transport"): prefsd's `FleetCAFile`, `FleetCRLFile`,
/// `FleetCertificateFile` and `FleetKeyFile`, and `defaults fleet`'s `PREFERENCES_FLEET_CA_FILE`,
/// `PREFERENCES_FLEET_CRL_FILE`, `PREFERENCES_FLEET_CERTIFICATE_FILE` and `PREFERENCES_FLEET_KEY_FILE`.
///
/// ``EtcdTLSContext`` reads them once, when a client is configured.
package struct EtcdTLSConfiguration: Sendable, Hashable {
    /// The CA certificates (PEM) that sign the members' certificates; `nil` for the system's CA certificates.
    package var caFile: String?
    /// Certificate revocation lists (PEM) of the CAs that issue the members' certificates, which are then checked
    /// against them; `nil` to check none.
    package var crlFile: String?
    /// The client certificate (PEM), followed by its intermediate CAs if any; `nil` for none.
    package var certificateFile: String?
    /// The client certificate's private key (PEM, unencrypted), readable by its owner only; given with
    /// ``certificateFile``.
    package var keyFile: String?

    package init(caFile: String? = nil, crlFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil)
    {
        self.caFile = caFile
        self.crlFile = crlFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// Whether no file is named: the system's CA certificates, no revocation list, no client certificate.
    package var isEmpty: Bool { caFile == nil && crlFile == nil && certificateFile == nil && keyFile == nil }
}
