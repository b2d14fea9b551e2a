// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// What a subscription watches: one domain, or the effective values of an application's search list; in
/// either case all keys, one key, or the keys with a prefix.
///
/// On the wire: either the domain fields (`domain`, `byHost`, `scope`) or the search-list fields (`app`,
/// `suites`), plus at most one of `key` and `keyPrefix`.
public struct WireSubscriptionFilter: Sendable, Hashable {
    /// The values a subscription watches.
    public enum Target: Sendable, Hashable {
        /// The stored values of one domain.
        case domain(WireDomain)
        /// The effective values (first hit in the search list) for an application.
        case effective(WireSearchList)
    }

    /// Which keys a subscription watches.
    public enum Keys: Sendable, Hashable {
        /// Every key.
        case all
        /// One key.
        case key(String)
        /// Every key whose Unicode scalars start with the prefix's (as Python's `str.startswith` compares; unlike
        /// `String.hasPrefix`, a prefix may end inside a character).
        case prefix(String)

        /// Whether `key` is watched.
        public func matches(_ key: String) -> Bool {
            switch self {
            case .all: true
            case .key(let watched): key == watched
            case .prefix(let prefix): key.unicodeScalars.starts(with: prefix.unicodeScalars)
            }
        }
    }

    /// The values watched.
    public var target: Target
    /// The keys watched.
    public var keys: Keys

    /// Creates a filter.
    /// - Parameters:
    ///   - target: The domain or search list.
    ///   - keys: The keys.
    public init(_ target: Target, keys: Keys = .all) {
        self.target = target
        self.keys = keys
    }

    func encode(into dictionary: inout PlistDictionary) {
        switch target {
        case .domain(let domain): domain.encode(into: &dictionary)
        case .effective(let searchList): searchList.encode(into: &dictionary)
        }
        switch keys {
        case .all: break
        case .key(let key): dictionary["key"] = .string(key)
        case .prefix(let prefix): dictionary["keyPrefix"] = .string(prefix)
        }
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireSubscriptionFilter {
        let target: Target
        switch (fields.contains("domain"), fields.contains("app")) {
        case (true, true):
            throw WireError.badField(fields.path(of: "app"), "cannot be combined with `domain`: subscribe to one")
        case (true, false):
            target = .domain(try WireDomain.decode(from: &fields))
        case (false, true):
            target = .effective(try WireSearchList.decode(from: &fields))
        case (false, false):
            throw WireError.badField(
                fields.path(of: "domain"), "is missing (give `domain`, or `app` for effective values)")
        }
        let key = try fields.optionalString("key")
        let prefix = try fields.optionalString("keyPrefix")
        switch (key, prefix) {
        case (.some, .some):
            throw WireError.badField(fields.path(of: "keyPrefix"), "cannot be combined with `key`")
        case (.some(let key), nil): return WireSubscriptionFilter(target, keys: .key(key))
        case (nil, .some(let prefix)): return WireSubscriptionFilter(target, keys: .prefix(prefix))
        case (nil, nil): return WireSubscriptionFilter(target, keys: .all)
        }
    }
}
