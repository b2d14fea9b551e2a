#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C calls of the client, in one place.
enum ClientSystem {
    /// The user id of this process.
    static var userID: UInt32 { UInt32(getuid()) }

    /// The process id of this process.
    static var processID: Int32 { getpid() }

    /// An environment variable, or `nil` when unset.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Whether a directory exists.
    static func directoryExists(_ path: String) -> Bool {
        var info = stat()
        var result: Int32
        repeat { result = stat(path, &info) } while result != 0 && errno == EINTR
        return result == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
