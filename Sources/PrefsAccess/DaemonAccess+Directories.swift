// SPDX-License-Identifier: Apache-2.0
import PrefsClient
import PrefsPOSIX
package import PrefsStore

extension DaemonAccess {
    /// Whether the daemon this access talks to serves the directories `paths` names (the command's environment:
    /// `PREFERENCES_HOME`, `PREFERENCES_SYSTEM_DIR`, `PREFERENCES_DOMAINS_DIR`), told by the claim the serving
    /// daemon holds in the Preferences directory (``DaemonClaim``), the daemon's pid (`SO_PEERCRED`) and its socket.
    ///
    /// prefsd answers from its own directories, whatever the client's environment says; where they differ, this
    /// keeps one warning for ``takeDiagnostics()`` naming both, so that the difference is never silent.
    /// - Parameter paths: The directories the caller means.
    package func noteDirectoryMismatch(with paths: StorePaths) {
        guard let warning = directoryMismatch(with: paths) else { return }
        report(StoreDiagnostic(severity: .warning, domain: nil, error: PrefsStoreError(.unavailable, warning)))
    }

    /// The sentence ``noteDirectoryMismatch(with:)`` reports, or `nil` when the daemon serves `paths`.
    func directoryMismatch(with paths: StorePaths) -> String? {
        guard let daemon = (try? client())?.daemonProcessID else { return nil }
        let directory = paths.preferencesDirectory
        let advice =
            "its answers come from its own directories; start it with the same variables, or run with "
            + "PREFERENCES_DAEMON=off"
        guard let claim = Self.liveClaim(in: directory) else {
            // No running prefsd claims the directory: the one answering serves another. (A daemon on a directory it
            // cannot write serves it without a claim: that cannot be told apart, so it goes unsaid.)
            guard POSIX.isDirectory(directory), POSIX.writeAccessError(directory) == nil else { return nil }
            return "prefsd on \(socketPath) (pid \(daemon)) does not serve \(directory) (PREFERENCES_HOME): no "
                + "prefsd has claimed it; \(advice)"
        }
        // Under socket activation the pid `SO_PEERCRED` gives is the service manager's, which called listen(): the
        // claim's socket, this one, says the same daemon serves it.
        guard claim.processID == daemon || Self.sameSocket(claim.socketPath, socketPath) else {
            return "prefsd on \(socketPath) (pid \(daemon)) does not serve \(directory) (PREFERENCES_HOME): prefsd "
                + "pid \(claim.processID) on \(claim.socketPath) does; \(advice)"
        }
        var differences: [String] = []
        if claim.systemDirectory != paths.systemDirectory {
            differences.append(
                "its system layer is \(claim.systemDirectory ?? "none"), not \(paths.systemDirectory ?? "none") "
                    + "(PREFERENCES_SYSTEM_DIR)")
        }
        if claim.shippedDirectory != paths.shippedDirectory {
            differences.append(
                "its shipped defaults are \(claim.shippedDirectory ?? "none"), not "
                    + "\(paths.shippedDirectory ?? "none") (PREFERENCES_DOMAINS_DIR)")
        }
        guard !differences.isEmpty else { return nil }
        return "prefsd on \(socketPath) serves \(directory), but " + differences.joined(separator: " and ") + "; "
            + advice
    }

    /// Whether two paths name one socket: the same text, or the same file once links are resolved.
    private static func sameSocket(_ claimed: String, _ used: String) -> Bool {
        if claimed == used { return true }
        guard let claimedPath = try? POSIX.canonicalPath(claimed), let usedPath = try? POSIX.canonicalPath(used) else {
            return false
        }
        return claimedPath == usedPath
    }

    /// The claim of a running prefsd in `directory`: its record, when the process it names runs as prefsd (a dead
    /// daemon's record stays in the file).
    private static func liveClaim(in directory: String) -> DaemonClaim? {
        guard let bytes = try? POSIX.readFile(DaemonClaim.path(in: directory), maxBytes: 4096),
            let claim = DaemonClaim(text: String(decoding: bytes, as: UTF8.self)),
            let name = try? POSIX.readFile("/proc/\(claim.processID)/comm", maxBytes: 64)
        else { return nil }
        return String(decoding: name, as: UTF8.self).hasPrefix("prefsd") ? claim : nil
    }
}
