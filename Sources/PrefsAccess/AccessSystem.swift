#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C library calls of the access layer.
enum AccessSystem {
    /// An environment variable's value, or `nil` when it is unset.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

}
