// SPDX-License-Identifier: Apache-2.0
/// The name of one limit a server enforces, as `hello` reports it and as `limitExceeded` errors name it.
public enum WireLimit: String, Sendable, Hashable, CaseIterable {
    /// The largest frame payload, in bytes, in either direction.
    case maxFrameBytes
    /// The most property-list objects one frame may decode to, counting every reference.
    case maxFrameObjects
    /// The deepest nesting of arrays and dictionaries in a stored value.
    case maxDepth
    /// The largest domain, in bytes of its encoded property list.
    case maxDomainBytes
    /// The longest key, in UTF-8 bytes.
    case maxKeyBytes
    /// The most client connections the server serves at once.
    case maxConnections
    /// The most subscriptions one connection may hold.
    case maxSubscriptions
    /// The most pending changes queued for one connection before its subscriptions fall back to resync.
    case subscriptionQueueLength
    /// The most suite domains one search list may name (`getEffective`, an `app` subscription).
    case maxSuites
    /// The most bytes of frames that have begun to arrive but are not complete, all connections together.
    case maxBufferedFrameBytes
}
