// SPDX-License-Identifier: Apache-2.0
import PrefsDomain

/// Bounds on what one domain may hold, enforced when a value is set and when a file is read or written.
///
/// A refused `set` throws ``/PrefsDomain/PrefsStoreError`` with code `.limitExceeded` and a message that names the limit.
public struct StoreLimits: Hashable, Sendable {
    /// The longest key accepted, in UTF-8 bytes.
    public var maxKeyBytes: Int
    /// The largest domain accepted, in bytes of its encoded file.
    public var maxDomainBytes: Int
    /// The deepest nesting of arrays and dictionaries accepted in a value (a scalar has depth 0).
    public var maxDepth: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maxKeyBytes: The longest key accepted, in UTF-8 bytes.
    ///   - maxDomainBytes: The largest encoded domain accepted, in bytes.
    ///   - maxDepth: The deepest nesting accepted in a value.
    public init(maxKeyBytes: Int, maxDomainBytes: Int, maxDepth: Int) {
        self.maxKeyBytes = maxKeyBytes
        self.maxDomainBytes = maxDomainBytes
        self.maxDepth = maxDepth
    }

    /// Keys up to 1 KiB, domains up to 4 MiB (the size at which macOS refuses a domain), depth 64.
    public static let `default` = StoreLimits(maxKeyBytes: 1024, maxDomainBytes: 4 << 20, maxDepth: 64)
}
