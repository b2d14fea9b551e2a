// SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tmpfs of a few kilobytes mounted on a directory, to run out of space (or be remounted read-only) for real.
/// Unmounted when the value is released.
///
/// Mounting needs root (`CAP_SYS_ADMIN`); tests that use it are enabled by ``isAvailable``.
public final class SmallFileSystem: @unchecked Sendable {
    /// The mount point.
    public let path: String
    private var isMounted = true
    /// What holds the mount point (its temporary directory), released only after the unmount.
    private let owner: AnyObject?

    /// Whether this process may mount a tmpfs (tried once, on a temp directory).
    public static let isAvailable: Bool = {
        guard let directory = try? TemporaryDirectory(prefix: "prefs-mount-probe") else { return false }
        guard let mounted = try? SmallFileSystem(at: directory.path, kilobytes: 16, owner: directory) else {
            return false
        }
        _ = mounted
        return true
    }()

    /// Mounts a tmpfs of `kilobytes` on `path` (created if missing).
    /// - Parameter owner: What removes the mount point when released (its `TemporaryDirectory`): kept until the
    ///   file system is unmounted.
    public init(at path: String, kilobytes: Int, owner: AnyObject? = nil) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.path = path
        self.owner = owner
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0 else {
            throw TestFailure("mount tmpfs on \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { unmount() }

    /// Fills the free space with a file of its own (`filler`), so that the next write that needs a block fails with
    /// `ENOSPC`.
    public func fill() throws {
        let descriptor = open(fillerPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TestFailure("open filler: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x55, count: 4096)
        while true {
            let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            // A short write fills the last block; the next one fails with ENOSPC.
            if written < 0 {
                if errno == EINTR { continue }
                guard errno == ENOSPC else { throw TestFailure("filling: \(String(cString: strerror(errno)))") }
                return
            }
        }
    }

    /// The file ``fill()`` writes.
    public var fillerPath: String { path + "/filler" }

    /// Removes the filler and waits until its space is free again.
    ///
    /// A process that another thread spawns while ``fill()`` has the filler open gets a copy of the descriptor, which
    /// it holds until its `exec`; the blocks return only when that copy is closed too. On a loaded machine that can
    /// be after the next write, which would then fail for want of space.
    public func makeRoom() throws {
        var status = stat()
        guard lstat(fillerPath, &status) == 0 else {
            throw TestFailure("stat filler: \(String(cString: strerror(errno)))")
        }
        try FileManager.default.removeItem(atPath: fillerPath)
        // Tests write little meanwhile: half the filler's size free means its blocks are back.
        let deadline = ContinuousClock.now + .seconds(30)
        while freeBytes < Int(status.st_blocks) * 512 / 2 {
            guard ContinuousClock.now < deadline else { throw TestFailure("the filler's space did not return") }
            usleep(1_000)
        }
    }

    /// The bytes free on the file system.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bfree) * Int(info.f_frsize)
    }

    /// Remounts read-only (`EROFS` for every write).
    public func remountReadOnly() throws {
        guard mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
            throw TestFailure("remount \(path) read-only: \(String(cString: strerror(errno)))")
        }
    }

    /// Remounts read-write.
    public func remountReadWrite() throws {
        guard mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT), nil) == 0 else {
            throw TestFailure("remount \(path) read-write: \(String(cString: strerror(errno)))")
        }
    }

    /// Unmounts (lazily, so that a descriptor a test left open does not keep the mount).
    public func unmount() {
        guard isMounted else { return }
        isMounted = false
        umount2(path, Int32(MNT_DETACH))
    }
}
