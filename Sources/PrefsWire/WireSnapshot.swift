// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The values a subscription watches at one moment, with the sequence number of every domain they were read
/// from, taken atomically: an event whose sequence number is at or below its domain's number here is already
/// part of the snapshot.
///
/// On the wire (flat in the `subscribe` reply and the `resync` event): `values` (dictionary of the watched
/// keys) and `sequences` (array of `{domain, byHost, scope, sequence}`; one entry for a domain subscription,
/// one per searched domain for an effective one).
public struct WireSnapshot: Sendable, Hashable {
    /// One domain's sequence number at the moment of the snapshot.
    public struct DomainSequence: Sendable, Hashable {
        /// The domain.
        public var domain: WireDomain
        /// The sequence number of the domain's latest change included in the snapshot.
        public var sequence: UInt64

        /// Creates a domain sequence.
        /// - Parameters:
        ///   - domain: The domain.
        ///   - sequence: The sequence number of its latest change in the snapshot.
        public init(domain: WireDomain, sequence: UInt64) {
            self.domain = domain
            self.sequence = sequence
        }
    }

    /// The watched keys and their values (effective values, for an effective subscription).
    public var values: PlistDictionary
    /// The sequence number of each domain the values were read from.
    public var sequences: [DomainSequence]

    /// Creates a snapshot.
    /// - Parameters:
    ///   - values: The watched keys and their values.
    ///   - sequences: The sequence number of each domain read.
    public init(values: PlistDictionary, sequences: [DomainSequence]) {
        self.values = values
        self.sequences = sequences
    }

    /// The sequence number recorded for `domain`, if the snapshot read it.
    public func sequence(of domain: WireDomain) -> UInt64? {
        sequences.first { $0.domain == domain }?.sequence
    }

    func encode(into dictionary: inout PlistDictionary) {
        dictionary["values"] = .dictionary(values)
        dictionary["sequences"] = .array(
            sequences.map { entry in
                var fields: PlistDictionary = ["sequence": .unsigned(entry.sequence)]
                entry.domain.encode(into: &fields)
                return .dictionary(fields)
            })
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireSnapshot {
        let values = try fields.dictionary("values")
        var sequences: [DomainSequence] = []
        for (dictionary, path) in try fields.dictionaryArray("sequences") {
            var entry = WireFields(dictionary, path: path)
            let domain = try WireDomain.decode(from: &entry)
            let sequence = try entry.uint64("sequence")
            try entry.finish()
            sequences.append(DomainSequence(domain: domain, sequence: sequence))
        }
        return WireSnapshot(values: values, sequences: sequences)
    }
}
