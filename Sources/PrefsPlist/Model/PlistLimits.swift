// SPDX-License-Identifier: Apache-2.0
/// Bounds every reader enforces, so hostile input fails fast with an error naming the limit.
public struct PlistLimits: Sendable, Hashable {
    /// The largest input accepted, in bytes.
    public var maxInputBytes: Int
    /// The deepest nesting of arrays and dictionaries accepted.
    public var maxDepth: Int
    /// The most objects (values of any kind, containers included) accepted in one document.
    public var maxObjectCount: Int
    /// Whether a binary integer of 16 bytes whose value needs more than 64 bits is read as its low 64 bits
    /// (CoreFoundation's rule, the default) or refused as malformed (for a protocol, where a number silently
    /// changed is worse than an error).
    public var truncatesWideIntegers = true

    /// Creates limits.
    /// - Parameters:
    ///   - maxInputBytes: The largest input accepted, in bytes.
    ///   - maxDepth: The deepest nesting accepted.
    ///   - maxObjectCount: The most objects accepted.
    public init(maxInputBytes: Int, maxDepth: Int, maxObjectCount: Int) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxObjectCount = maxObjectCount
    }

    /// Generous limits for files: 256 MiB, depth 250, 16 million objects.
    ///
    /// The depth is the same for every format: libxml2 refuses elements nested more than 256 deep without
    /// `XML_PARSE_HUGE` (which stays off), and the `<plist>` wrapper and root take two of those levels.
    public static let `default` = PlistLimits(maxInputBytes: 256 << 20, maxDepth: 250, maxObjectCount: 16 << 20)
}
