import PrefsPlist

/// A domain's (or view's) values with the sequence number of the last change they include.
public struct StoreSnapshot: Sendable, Hashable {
    /// The values.
    public var values: [String: PlistValue]
    /// The sequence number of the last change included; events with higher numbers come after.
    public var sequence: UInt64
}
