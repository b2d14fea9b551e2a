// SPDX-License-Identifier: Apache-2.0
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// FIFOs, device nodes and the kind of file at a path, for tests of commands that write a path a user names.
public enum SpecialFiles {
    /// What `lstat` says a path is: `regular`, `directory`, `link`, `fifo`, `character device`, `block device`,
    /// `socket`, or `missing`.
    public static func kind(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "missing" }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return "regular"
        case S_IFDIR: return "directory"
        case S_IFLNK: return "link"
        case S_IFIFO: return "fifo"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFSOCK: return "socket"
        default: return "other"
        }
    }

    /// Creates a FIFO.
    public static func makeFIFO(_ path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): \(String(cString: strerror(errno)))") }
    }

    /// Creates a character device with `/dev/null`'s numbers (1, 3; `0x103` in glibc's encoding); needs `CAP_MKNOD`.
    public static func makeNullDevice(_ path: String) throws {
        guard mknod(path, S_IFCHR | 0o666, dev_t(0x103)) == 0 else {
            throw TestFailure("mknod \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether this process may create device nodes (tried once, in a temp directory).
    public static let canMakeDevices: Bool = {
        guard let directory = try? TemporaryDirectory(prefix: "prefs-mknod-probe") else { return false }
        return (try? makeNullDevice(directory.file("null"))) != nil
    }()

    /// The device numbers of a device node.
    public static func deviceNumbers(_ path: String) -> (major: UInt32, minor: UInt32)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        // glibc's encoding of dev_t (the major/minor macros are not visible to Swift).
        let device = UInt64(info.st_rdev)
        let major = UInt32(truncatingIfNeeded: ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff)))
        let minor = UInt32(truncatingIfNeeded: (device & 0xff) | ((device >> 12) & ~UInt64(0xff)))
        return (major, minor)
    }
}

/// Reads a FIFO to its end on a thread of its own, as a consumer at the other end of a pipe would.
///
/// The FIFO is opened at once without blocking, so the reader holds that FIFO even if the path is replaced later;
/// `poll` reports it readable only once a writer has come (Linux does not report a hang-up before the first writer).
public final class FIFOReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data: Data?

    /// Opens `path` for reading and starts reading it; gives up after `timeout` without a writer.
    public init(_ path: String, timeout: Duration = .seconds(20)) throws {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        let deadline = ContinuousClock.now + timeout
        Thread.detachNewThread { [self] in
            defer {
                close(descriptor)
                done.signal()
            }
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    received.append(contentsOf: buffer[0..<count])
                } else if count == 0 {
                    data = received  // the writer closed its end
                    return
                } else if errno != EAGAIN && errno != EINTR {
                    return
                }
            }
        }
    }

    /// What was read once the writer closed its end, or `nil` when no writer came before the timeout.
    public func finish() -> Data? {
        done.wait()
        return data
    }
}
