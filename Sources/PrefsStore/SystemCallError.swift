/// A failed system call: which call, on which path, and the `errno` it set.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, such as `open` or `rename`.
    public var operation: String
    /// The path the call worked on, when there is one.
    public var path: String?
    /// The `errno` value the call set.
    public var errno: Int32
    /// The C library's text for ``errno`` (`strerror`).
    public var reason: String

    /// `rename(/path): No space left on device`.
    public var description: String {
        guard let path else { return "\(operation): \(reason)" }
        return "\(operation)(\(path)): \(reason)"
    }
}
