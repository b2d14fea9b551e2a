// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

/// The daemon's own socket (when systemd did not pass one): its directory checked or created 0700, a lock file
/// that makes one daemon the owner of the path, a stale socket of a dead daemon reclaimed, and the socket bound
/// 0600 under a restrictive umask (never `chmod`ed afterwards).
///
/// The lock is held for the daemon's lifetime; ``release()`` removes the socket and releases the lock when it stops.
final class SocketListener: Sendable {
    /// The socket's path.
    let path: String
    /// The locked lock file, `<dir>/socket.lock` for `<dir>/socket`.
    private let lockDescriptor: Int32
    private let lockPath: String

    private init(path: String, lockDescriptor: Int32, lockPath: String) {
        self.path = path
        self.lockDescriptor = lockDescriptor
        self.lockPath = lockPath
    }

    /// The umask the socket is bound under: owner read and write only (0600).
    static let socketMask: UInt32 = 0o177

    /// Prepares `path` for binding: checks it, creates and checks its directory, takes the lock, and removes a
    /// stale socket.
    /// - Parameter path: An absolute path of at most 107 bytes; its directory is created if missing (its parent
    ///   must exist).
    /// - Throws: ``PrefsDaemonError``: `bindFailed` for a relative or too long path; `unsafeSocketDirectory` when the
    ///   directory is not a directory owned by this user with mode 0700; `socketInUse` when another daemon holds
    ///   the lock or answers on the socket, or the path is something other than a socket;
    ///   `systemCallFailed` when a call fails.
    static func prepare(path: String) throws(PrefsDaemonError) -> SocketListener {
        guard path.hasPrefix("/") else {
            throw PrefsDaemonError(.bindFailed, "socket path \(path) is not absolute", path: path)
        }
        guard path.utf8.count <= DaemonSystem.maxSocketPathBytes else {
            throw PrefsDaemonError(
                .bindFailed,
                "socket path \(path) is \(path.utf8.count) bytes long; Unix sockets allow "
                    + "\(DaemonSystem.maxSocketPathBytes)",
                path: path)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard !name.isEmpty, name != ".", name != ".." else {
            throw PrefsDaemonError(.bindFailed, "socket path \(path) does not name a file", path: path)
        }
        let directory = String(path.dropLast(name.utf8.count + 1))
        let directoryPath = directory.isEmpty ? "/" : directory
        try prepareDirectory(directoryPath)

        let lockPath = path + ".lock"
        let lock: Int32?
        do {
            lock = try DaemonSystem.lockFileSoon(lockPath)
        } catch {
            throw PrefsDaemonError(
                .systemCallFailed, "cannot take the lock of socket \(path)", path: lockPath, cause: error)
        }
        guard let lock else {
            throw PrefsDaemonError(
                .socketInUse, "another prefsd serves \(path) (it holds \(lockPath))", path: path)
        }
        let listener = SocketListener(path: path, lockDescriptor: lock, lockPath: lockPath)
        do throws(PrefsDaemonError) {
            try listener.reclaimStaleSocket()
        } catch {
            POSIX.closeDescriptor(lock)
            throw error
        }
        return listener
    }

    /// Checks the socket's directory, creating it 0700 when missing.
    private static func prepareDirectory(_ directory: String) throws(PrefsDaemonError) {
        let status: FileStatus?
        do {
            if try DaemonSystem.status(of: directory) == nil {
                try DaemonSystem.makeDirectory(directory, mode: 0o700)
            }
            status = try DaemonSystem.status(of: directory)
        } catch {
            throw PrefsDaemonError(
                .systemCallFailed, "cannot create the socket directory \(directory)", path: directory, cause: error)
        }
        guard let status, status.kind == .directory else {
            throw PrefsDaemonError(
                .unsafeSocketDirectory,
                "socket directory \(directory) is not a directory (a symbolic link is not followed)", path: directory)
        }
        let user = POSIX.userID
        guard status.ownerID == user else {
            throw PrefsDaemonError(
                .unsafeSocketDirectory,
                "socket directory \(directory) belongs to uid \(status.ownerID), not to uid \(user) running prefsd",
                path: directory)
        }
        guard status.permissions & 0o077 == 0 else {
            throw PrefsDaemonError(
                .unsafeSocketDirectory,
                "socket directory \(directory) has mode \(String(status.permissions, radix: 8)); it must be 0700 "
                    + "(only its owner may enter it)",
                path: directory)
        }
    }

    /// Removes a socket left by a daemon that died; refuses anything else at the path.
    private func reclaimStaleSocket() throws(PrefsDaemonError) {
        let status: FileStatus?
        do {
            status = try DaemonSystem.status(of: path)
        } catch {
            throw PrefsDaemonError(.systemCallFailed, "cannot examine \(path)", path: path, cause: error)
        }
        guard let status else { return }
        guard status.kind == .socket else {
            throw PrefsDaemonError(
                .socketInUse, "\(path) exists and is not a socket; prefsd does not remove it", path: path)
        }
        if DaemonSystem.socketAnswers(path) {
            throw PrefsDaemonError(.socketInUse, "another process answers on \(path)", path: path)
        }
        do {
            try DaemonSystem.unlinkFile(path)
        } catch {
            throw PrefsDaemonError(
                .systemCallFailed, "cannot remove the stale socket \(path)", path: path, cause: error)
        }
    }

    /// Removes the socket, then releases the lock (in that order, so a new daemon never finds our socket).
    ///
    /// The lock file stays: removing it would let two daemons lock two different files of the same name.
    func release() {
        try? DaemonSystem.unlinkFile(path)
        POSIX.closeDescriptor(lockDescriptor)
    }
}
