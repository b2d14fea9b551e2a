// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The limits a server enforces; `hello` reports them, and the frame decoder applies the frame limits.
public struct WireLimits: Sendable, Hashable {
    /// The largest frame payload, in bytes, in either direction.
    public var maxFrameBytes: Int
    /// The most property-list objects one frame may decode to, counting every reference.
    public var maxFrameObjects: Int
    /// The deepest nesting of arrays and dictionaries in a stored value.
    ///
    /// A frame may nest ``WireFrame/envelopeDepth`` levels deeper, for the message around the value.
    public var maxDepth: Int
    /// The largest domain, in bytes of its encoded property list.
    public var maxDomainBytes: Int
    /// The longest key, in UTF-8 bytes.
    public var maxKeyBytes: Int
    /// The most client connections the server serves at once.
    public var maxConnections: Int
    /// The most subscriptions one connection may hold.
    public var maxSubscriptions: Int
    /// The most pending changes queued for one connection before its subscriptions fall back to resync.
    public var subscriptionQueueLength: Int
    /// The most suite domains one search list may name.
    public var maxSuites: Int
    /// The most bytes the server buffers for frames still arriving, all connections together; the connection whose
    /// bytes would go beyond it is closed.
    public var maxBufferedFrameBytes: Int

    /// Creates limits; every value must be at least 1.
    /// - Parameters:
    ///   - maxFrameBytes: The largest frame payload, in bytes.
    ///   - maxFrameObjects: The most objects one frame may decode to.
    ///   - maxDepth: The deepest nesting of a stored value.
    ///   - maxDomainBytes: The largest domain, in encoded bytes.
    ///   - maxKeyBytes: The longest key, in UTF-8 bytes.
    ///   - maxConnections: The most connections at once.
    ///   - maxSubscriptions: The most subscriptions per connection.
    ///   - subscriptionQueueLength: The most pending changes per connection.
    ///   - maxSuites: The most suite domains in one search list.
    ///   - maxBufferedFrameBytes: The most bytes of incomplete frames, all connections together.
    public init(
        maxFrameBytes: Int, maxFrameObjects: Int, maxDepth: Int, maxDomainBytes: Int, maxKeyBytes: Int,
        maxConnections: Int, maxSubscriptions: Int, subscriptionQueueLength: Int,
        maxSuites: Int = 64, maxBufferedFrameBytes: Int = 64 << 20
    ) {
        self.maxFrameBytes = maxFrameBytes
        self.maxFrameObjects = maxFrameObjects
        self.maxDepth = maxDepth
        self.maxDomainBytes = maxDomainBytes
        self.maxKeyBytes = maxKeyBytes
        self.maxConnections = maxConnections
        self.maxSubscriptions = maxSubscriptions
        self.subscriptionQueueLength = subscriptionQueueLength
        self.maxSuites = maxSuites
        self.maxBufferedFrameBytes = maxBufferedFrameBytes
    }

    /// The defaults: 16 MiB frames of up to 1 Mi objects, depth 64, 4 MiB domains, 1 KiB keys, 256
    /// connections, 256 subscriptions per connection, 1024 pending changes per connection, 64 suites per search
    /// list, 64 MiB of incomplete frames in all.
    ///
    /// A frame must be able to carry the largest domain (`readDomain`, resync snapshots), so
    /// `maxFrameBytes` stays well above `maxDomainBytes`.
    public static let `default` = WireLimits(
        maxFrameBytes: 16 << 20, maxFrameObjects: 1 << 20, maxDepth: 64, maxDomainBytes: 4 << 20,
        maxKeyBytes: 1024, maxConnections: 256, maxSubscriptions: 256, subscriptionQueueLength: 1024,
        maxSuites: 64, maxBufferedFrameBytes: 64 << 20)

    /// The value of one limit, by name.
    public subscript(limit: WireLimit) -> Int {
        get {
            switch limit {
            case .maxFrameBytes: maxFrameBytes
            case .maxFrameObjects: maxFrameObjects
            case .maxDepth: maxDepth
            case .maxDomainBytes: maxDomainBytes
            case .maxKeyBytes: maxKeyBytes
            case .maxConnections: maxConnections
            case .maxSubscriptions: maxSubscriptions
            case .subscriptionQueueLength: subscriptionQueueLength
            case .maxSuites: maxSuites
            case .maxBufferedFrameBytes: maxBufferedFrameBytes
            }
        }
        set {
            switch limit {
            case .maxFrameBytes: maxFrameBytes = newValue
            case .maxFrameObjects: maxFrameObjects = newValue
            case .maxDepth: maxDepth = newValue
            case .maxDomainBytes: maxDomainBytes = newValue
            case .maxKeyBytes: maxKeyBytes = newValue
            case .maxConnections: maxConnections = newValue
            case .maxSubscriptions: maxSubscriptions = newValue
            case .subscriptionQueueLength: subscriptionQueueLength = newValue
            case .maxSuites: maxSuites = newValue
            case .maxBufferedFrameBytes: maxBufferedFrameBytes = newValue
            }
        }
    }

    /// The bounds the frame decoder hands to the binary property-list reader.
    var frameDecodingLimits: PlistLimits {
        let (depth, overflow) = maxDepth.addingReportingOverflow(WireFrame.envelopeDepth)
        var limits = PlistLimits(
            maxInputBytes: maxFrameBytes, maxDepth: overflow ? Int.max : depth, maxObjectCount: maxFrameObjects)
        // Identifiers and versions range over 64 bits: a wider number is refused, never cut to its low half.
        limits.truncatesWideIntegers = false
        return limits
    }
}

extension WireLimits {
    /// The limits as the `limits` dictionary of a `hello` reply: each ``WireLimit`` name with its value.
    public var dictionary: PlistDictionary {
        var result: PlistDictionary = [:]
        for limit in WireLimit.allCases {
            result[limit.rawValue] = .integer(PlistInteger(Int64(self[limit])))
        }
        return result
    }

    /// Reads the `limits` dictionary of a `hello` reply.
    ///
    /// The set of limits is open, unlike other dictionaries of the protocol: a name this version does not know is
    /// skipped, and a known one the server does not report keeps its default, so that a server that announces a
    /// new limit still talks to older clients.
    /// - Parameters:
    ///   - dictionary: ``WireLimit`` names, each with a positive integer.
    ///   - path: Where the dictionary sits in its message, for error messages.
    /// - Throws: ``WireError`` `badRequest` naming a mistyped or out-of-range limit.
    public init(dictionary: PlistDictionary, path: String = "limits") throws(WireError) {
        var fields = WireFields(dictionary, path: path)
        var limits = WireLimits.default
        for limit in WireLimit.allCases {
            if let value = try fields.optionalInt64(limit.rawValue, in: 1...Int64(Int.max)) {
                limits[limit] = Int(value)
            }
        }
        self = limits
    }
}
