// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// One key's change in one domain.
///
/// On the wire: the domain fields (`domain`, `byHost`, `scope`), `key`, `old` (absent when the key was
/// added), `new` (absent when the key was removed) and `sequence` (the domain's sequence number of this
/// change). In an effective subscription, `old` and `new` are effective values and the domain is the layer
/// whose change moved them.
public struct WireChange: Sendable, Hashable {
    /// The domain changed.
    public var domain: WireDomain
    /// The key changed.
    public var key: String
    /// The value before the change; `nil` when the key was added.
    public var old: PlistValue?
    /// The value after the change; `nil` when the key was removed.
    public var new: PlistValue?
    /// The domain's sequence number of this change.
    public var sequence: UInt64

    /// Creates a change.
    /// - Parameters:
    ///   - domain: The domain changed.
    ///   - key: The key changed.
    ///   - old: The value before, or `nil` when added.
    ///   - new: The value after, or `nil` when removed.
    ///   - sequence: The domain's sequence number of the change.
    public init(domain: WireDomain, key: String, old: PlistValue?, new: PlistValue?, sequence: UInt64) {
        self.domain = domain
        self.key = key
        self.old = old
        self.new = new
        self.sequence = sequence
    }

    func encode(into dictionary: inout PlistDictionary) {
        domain.encode(into: &dictionary)
        dictionary["key"] = .string(key)
        dictionary.setIfPresent("old", old)
        dictionary.setIfPresent("new", new)
        dictionary["sequence"] = .unsigned(sequence)
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireChange {
        WireChange(
            domain: try WireDomain.decode(from: &fields), key: try fields.string("key"),
            old: fields.optionalValue("old"), new: fields.optionalValue("new"), sequence: try fields.uint64("sequence"))
    }
}
