// SPDX-License-Identifier: Apache-2.0
/// A user name and password for etcd's authentication (`/v3/auth/authenticate`), with the reading of a password
/// file that prefsd's `FleetPasswordFile` and `defaults fleet`'s `PREFERENCES_FLEET_PASSWORD_FILE` share.
package struct EtcdCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The etcd user.
    package var user: String
    /// The user's password.
    package var password: String

    /// The largest password file read: a password, not a document.
    static let maxPasswordFileBytes = 4096

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The user name only: a password never reaches a log.
    package var description: String { "etcd user \(user)" }

    /// Reads a password file: one line, its trailing line break dropped.
    ///
    /// The file must be the caller's own business: a file that its group or other users may read or write is
    /// refused (as ssh refuses such a key), and so are a missing file, anything but a regular file, an empty one and
    /// one larger than 4 KiB.
    /// - Parameter path: The file.
    /// - Returns: The password.
    /// - Throws: ``EtcdError`` with code `invalidArgument`, naming the file and the problem.
    package static func readPassword(fromFile path: String) throws(EtcdError) -> String {
        var bytes = try EtcdFile.read(path, what: "etcd password file", maxBytes: maxPasswordFileBytes, isSecret: true)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw EtcdError(.invalidArgument, "the etcd password file \(path) is empty") }
        guard let password = String(validating: bytes, as: UTF8.self), !password.contains("\n") else {
            throw EtcdError(
                .invalidArgument, "the etcd password file \(path) must hold one line of UTF-8 text: the password")
        }
        return password
    }
}
