// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
import PrefsStore

/// The claim of one Preferences directory by one prefsd, whatever socket it serves: prefsd is the single writer of
/// its directory's files, and a second daemon on another socket would write them beside it, each with a cache the
/// other does not see.
///
/// The claim is an `flock` on `<prefs>/.locks/.prefsd` (``DaemonClaim``), held for the daemon's lifetime and
/// released by the kernel when it exits, however it exits. The file holds the holder's pid, socket and layers
/// (``DaemonClaim``), so that a refused daemon can name the holder, and a client can tell whether the daemon it talks
/// to serves the directories the client means. The descriptor kept is read-only, so
/// that the daemon does not keep its file system from being remounted read-only.
final class DirectoryLock: Sendable {
    /// The locked file's descriptor, kept open for the daemon's lifetime.
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Claims the Preferences directory of `paths` for this daemon, creating it (and `.locks` in it) 0700 when missing.
    /// - Parameters:
    ///   - paths: The directories this daemon serves; the claim records its system and shipped layers.
    ///   - socketPath: The socket this daemon serves, written in the claim for a refused daemon to name.
    /// - Throws: ``PrefsDaemonError``: `directoryInUse` naming the other daemon's pid and socket;
    ///   `systemCallFailed` when the directory or the file cannot be made, except as below.
    /// - Returns: The claim, or `nil` when the directory is read-only or not the user's to write (`EROFS`,
    ///   `EACCES`): no daemon can write it then, so two serving its reads do no harm, and prefsd serves on.
    static func claim(_ paths: StorePaths, socketPath: String) throws(PrefsDaemonError) -> DirectoryLock? {
        let preferencesDirectory = paths.preferencesDirectory
        let lockPath = DaemonClaim.path(in: preferencesDirectory)
        let lock: Int32?
        do {
            try DaemonSystem.makeDirectories(preferencesDirectory + "/.locks")
            // Read-only: a file open for writing would keep the file system from being remounted read-only.
            lock = try DaemonSystem.lockFileSoon(lockPath, readOnly: true)
        } catch {
            if DaemonSystem.isNotWritable(error) { return nil }
            throw PrefsDaemonError(
                .systemCallFailed, "cannot claim the Preferences directory \(preferencesDirectory)", path: lockPath,
                cause: error)
        }
        guard let lock else {
            throw PrefsDaemonError(
                .directoryInUse,
                "another prefsd (\(holder(of: lockPath))) serves the Preferences directory \(preferencesDirectory); "
                    + "one prefsd writes one directory: stop it, or give this one another PREFERENCES_HOME",
                path: lockPath)
        }
        let record = DaemonClaim(
            processID: POSIX.processID, socketPath: socketPath, systemDirectory: paths.systemDirectory,
            shippedDirectory: paths.shippedDirectory
        ).text
        do {
            try DaemonSystem.replaceContents(of: lockPath, with: Array(record.utf8))
        } catch {
            POSIX.closeDescriptor(lock)
            throw PrefsDaemonError(
                .systemCallFailed, "cannot claim the Preferences directory \(preferencesDirectory)", path: lockPath,
                cause: error)
        }
        return DirectoryLock(descriptor: lock)
    }

    /// Gives up the claim; the kernel does as much when the process exits.
    func release() {
        POSIX.closeDescriptor(descriptor)
    }

    /// `pid N on <socket>` from the holder's record, or what is known when the record cannot be read.
    private static func holder(of lockPath: String) -> String {
        guard let bytes = try? POSIX.readFile(lockPath, maxBytes: 4096),
            let claim = DaemonClaim(text: String(decoding: bytes, as: UTF8.self))
        else { return "pid unknown" }
        return "pid \(claim.processID) on \(claim.socketPath)"
    }
}
