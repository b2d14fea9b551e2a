// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The answer of `getEffective`: the value the search list resolves a key to, where it came from, what it
/// shadows, and which layers were skipped because their file could not be read.
///
/// On the wire (flat in the reply): `value` and `source` (both absent when no layer holds the key),
/// `shadowed` (array of `{value, source}`, highest layer first; absent when empty) and `skipped` (array of
/// `{source, reason}`; absent when empty).
public struct WireResolution: Sendable, Hashable {
    /// A value and the layer that stores it.
    public struct Entry: Sendable, Hashable {
        /// The value.
        public var value: PlistValue
        /// Where it is stored.
        public var source: WireSource

        /// Creates an entry.
        /// - Parameters:
        ///   - value: The value.
        ///   - source: Where it is stored.
        public init(value: PlistValue, source: WireSource) {
            self.value = value
            self.source = source
        }
    }

    /// A layer that was not searched because its file is corrupt or unreadable.
    public struct Skipped: Sendable, Hashable {
        /// The layer and its file.
        public var source: WireSource
        /// Why it was skipped, e.g. the parse error with its line.
        public var reason: String

        /// Creates a skipped layer.
        /// - Parameters:
        ///   - source: The layer and its file.
        ///   - reason: Why it was skipped.
        public init(source: WireSource, reason: String) {
            self.source = source
            self.reason = reason
        }
    }

    /// The effective value and its source; `nil` when no layer holds the key.
    public var found: Entry?
    /// The values below the effective one, highest layer first.
    public var shadowed: [Entry]
    /// The layers skipped because their file could not be read.
    public var skipped: [Skipped]

    /// Creates a resolution.
    /// - Parameters:
    ///   - found: The effective value and its source, or `nil` when no layer holds the key.
    ///   - shadowed: The values below it, highest layer first.
    ///   - skipped: The layers skipped because their file could not be read.
    public init(found: Entry?, shadowed: [Entry] = [], skipped: [Skipped] = []) {
        self.found = found
        self.shadowed = shadowed
        self.skipped = skipped
    }

    func encode(into dictionary: inout PlistDictionary) {
        if let found {
            dictionary["value"] = found.value
            dictionary["source"] = .dictionary(found.source.dictionary)
        }
        if !shadowed.isEmpty {
            dictionary["shadowed"] = .array(
                shadowed.map { .dictionary(["value": $0.value, "source": .dictionary($0.source.dictionary)]) })
        }
        if !skipped.isEmpty {
            dictionary["skipped"] = .array(
                skipped.map {
                    .dictionary(["source": .dictionary($0.source.dictionary), "reason": .string($0.reason)])
                })
        }
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireResolution {
        let value = fields.optionalValue("value")
        let sourceDictionary = try fields.optionalDictionary("source")
        var found: Entry?
        switch (value, sourceDictionary) {
        case (.some(let value), .some(let dictionary)):
            found = Entry(value: value, source: try WireSource(dictionary: dictionary, path: fields.path(of: "source")))
        case (.some, nil):
            throw WireError.badField(fields.path(of: "source"), "is missing (a `value` needs its source)")
        case (nil, .some):
            throw WireError.badField(fields.path(of: "value"), "is missing (a `source` needs its value)")
        case (nil, nil):
            found = nil
        }
        var shadowed: [Entry] = []
        for (dictionary, path) in try fields.optionalDictionaryArray("shadowed") ?? [] {
            var entry = WireFields(dictionary, path: path)
            let value = try entry.value("value")
            let source = try WireSource(dictionary: try entry.dictionary("source"), path: entry.path(of: "source"))
            try entry.finish()
            shadowed.append(Entry(value: value, source: source))
        }
        var skipped: [Skipped] = []
        for (dictionary, path) in try fields.optionalDictionaryArray("skipped") ?? [] {
            var entry = WireFields(dictionary, path: path)
            let source = try WireSource(dictionary: try entry.dictionary("source"), path: entry.path(of: "source"))
            let reason = try entry.string("reason")
            try entry.finish()
            skipped.append(Skipped(source: source, reason: reason))
        }
        return WireResolution(found: found, shadowed: shadowed, skipped: skipped)
    }
}
