// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

/// Reads the files the etcd client is configured with (a password, TLS certificates and keys), with the checks they
/// share: an existing regular file (a symbolic link is followed), not larger than a limit, and for a secret, kept
/// from its group and from others.
enum EtcdFile {
    /// Reads a whole file.
    ///
    /// A secret (a password, a private key) that its group or other users may read or write is refused, as ssh refuses
    /// such a key: whoever can read it can be this host to etcd.
    /// - Parameters:
    ///   - path: The file.
    ///   - what: What it is, for messages: `etcd password file`, `TLS key file`.
    ///   - maxBytes: The largest size accepted.
    ///   - isSecret: Whether mode `& 077` must be 0.
    /// - Returns: The bytes.
    /// - Throws: ``EtcdError`` with code `invalidArgument`, naming the file and the problem.
    static func read(_ path: String, what: String, maxBytes: Int, isSecret: Bool) throws(EtcdError) -> [UInt8] {
        let contents: FileContents
        do {
            contents = try POSIX.readFile(path, maxBytes: maxBytes, regularFileOnly: true, followsSymbolicLinks: true)
        } catch {
            throw EtcdError(.invalidArgument, "cannot read the \(what): \(error.message)")
        }
        let mode = contents.status.permissions & 0o777
        guard !isSecret || mode & 0o077 == 0 else {
            throw EtcdError(
                .invalidArgument,
                "the \(what) \(path) is open to its group or to others (mode \(String(mode, radix: 8))); "
                    + "it must be readable by its owner only (chmod 600)")
        }
        guard let bytes = contents.bytes else {
            throw EtcdError(.invalidArgument, "the \(what) \(path) is larger than \(maxBytes) bytes")
        }
        return bytes
    }
}
