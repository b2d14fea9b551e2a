// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// One key of one domain changed: its old and new value (`nil` when absent), in order, and by whom.
///
/// Events fire only on a real change: setting a key to the value it already has fires nothing.
public struct ChangeEvent: Sendable, Hashable, CustomStringConvertible {
    /// The domain that changed; for effective (search-list) observation, the search list's own domain.
    public var domain: DomainID
    /// The key that changed.
    public var key: String
    /// The value before the change, or `nil` when the key was absent.
    public var oldValue: PlistValue?
    /// The value after the change, or `nil` when the key was removed.
    public var newValue: PlistValue?
    /// The domain's change counter after this change; for effective observation, the search list's.
    ///
    /// Counters start at 0 when the store loads a domain and grow by one per event, so a snapshot taken with
    /// sequence `n` includes every event up to `n` and none after.
    public var sequence: UInt64
    /// Who made the change.
    public var origin: ChangeOrigin
    /// For effective observation: the persistent domain whose change moved the effective value, and that domain's
    /// own sequence number of the change; `nil` for domain observation and for changes of the volatile layers.
    public var layer: (domain: DomainID, sequence: UInt64)? {
        get { layerDomain.map { ($0, layerSequence) } }
        set {
            layerDomain = newValue?.domain
            layerSequence = newValue?.sequence ?? 0
        }
    }
    private var layerDomain: DomainID?
    private var layerSequence: UInt64 = 0

    /// Creates an event.
    /// - Parameters:
    ///   - domain: The domain that changed.
    ///   - key: The key that changed.
    ///   - oldValue: The value before, or `nil`.
    ///   - newValue: The value after, or `nil`.
    ///   - sequence: The change counter after this change.
    ///   - origin: Who made the change.
    public init(
        domain: DomainID, key: String, oldValue: PlistValue?, newValue: PlistValue?, sequence: UInt64,
        origin: ChangeOrigin
    ) {
        self.domain = domain
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.sequence = sequence
        self.origin = origin
    }

    /// `#12 com.example.App key: old -> new (this process)`.
    public var description: String {
        "#\(sequence) \(domain) \(key): \(oldValue?.defaultsDescription ?? "absent") -> "
            + "\(newValue?.defaultsDescription ?? "absent") (\(origin))"
    }
}
