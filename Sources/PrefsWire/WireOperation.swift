// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// An operation a client asks the server to perform, with its parameters.
///
/// Every write (`set`, `setMany`, `remove`, `writeDomain`, `removeDomain`) takes an optional
/// `expectedVersion`: when given, the server applies the write only if the domain's version (the sequence
/// number of its latest change) equals it, and answers `versionConflict` otherwise.
public enum WireOperation: Sendable, Hashable {
    /// Negotiates the protocol version; must be the first request on a connection.
    case hello(WireHello)
    /// Reads one key of one domain. On the wire: domain fields, `key`.
    case get(WireDomain, key: String)
    /// Resolves one key through an application's search list, with provenance. On the wire: `app`, `suites`,
    /// `key`.
    case getEffective(WireSearchList, key: String)
    /// Stores one value. On the wire: domain fields, `key`, `value`, `expectedVersion`.
    case set(WireDomain, key: String, value: PlistValue, expectedVersion: UInt64?)
    /// Stores and removes several keys of one domain atomically, producing one event batch. On the wire:
    /// domain fields, `values` (dictionary), `removeKeys` (array of strings), `expectedVersion`.
    case setMany(WireDomain, values: PlistDictionary, removeKeys: [String], expectedVersion: UInt64?)
    /// Removes one key. On the wire: domain fields, `key`, `expectedVersion`.
    case remove(WireDomain, key: String, expectedVersion: UInt64?)
    /// Reads every key of one domain. On the wire: domain fields.
    case readDomain(WireDomain)
    /// Replaces every key of one domain. On the wire: domain fields, `values`, `expectedVersion`.
    case writeDomain(WireDomain, values: PlistDictionary, expectedVersion: UInt64?)
    /// Deletes one domain. On the wire: domain fields, `expectedVersion`.
    case removeDomain(WireDomain, expectedVersion: UInt64?)
    /// Lists the domain names of one layer. On the wire: `scope`, `byHost`.
    case listDomains(scope: WireDomain.Scope, byHost: Bool)
    /// Writes every changed domain durably and reads external changes in. No parameters.
    case synchronize
    /// Starts a subscription. On the wire: the filter's fields (see ``WireSubscriptionFilter``).
    case subscribe(WireSubscriptionFilter)
    /// Ends a subscription. On the wire: `subscription`.
    case unsubscribe(subscription: UInt64)
    /// Reports the daemon's fleet state (docs/FLEET.md). No parameters.
    case fleetStatus

    /// The name of an operation, as the `op` field spells it.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        /// `hello`
        case hello
        /// `get`
        case get
        /// `getEffective`
        case getEffective
        /// `set`
        case set
        /// `setMany`
        case setMany
        /// `remove`
        case remove
        /// `readDomain`
        case readDomain
        /// `writeDomain`
        case writeDomain
        /// `removeDomain`
        case removeDomain
        /// `listDomains`
        case listDomains
        /// `synchronize`
        case synchronize
        /// `subscribe`
        case subscribe
        /// `unsubscribe`
        case unsubscribe
        /// `fleetStatus`
        case fleetStatus
    }

    /// The operation's name.
    public var name: Name {
        switch self {
        case .hello: .hello
        case .get: .get
        case .getEffective: .getEffective
        case .set: .set
        case .setMany: .setMany
        case .remove: .remove
        case .readDomain: .readDomain
        case .writeDomain: .writeDomain
        case .removeDomain: .removeDomain
        case .listDomains: .listDomains
        case .synchronize: .synchronize
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .fleetStatus: .fleetStatus
        }
    }

    /// The domain a single-domain operation addresses; `nil` for the others.
    public var domain: WireDomain? {
        switch self {
        case .get(let domain, _), .set(let domain, _, _, _), .setMany(let domain, _, _, _),
            .remove(let domain, _, _), .readDomain(let domain), .writeDomain(let domain, _, _),
            .removeDomain(let domain, _):
            domain
        case .subscribe(let filter):
            if case .domain(let domain) = filter.target { domain } else { nil }
        case .hello, .getEffective, .listDomains, .synchronize, .unsubscribe, .fleetStatus:
            nil
        }
    }

    /// Whether the operation changes stored values.
    public var isWrite: Bool {
        switch self {
        case .set, .setMany, .remove, .writeDomain, .removeDomain: true
        case .hello, .get, .getEffective, .readDomain, .listDomains, .synchronize, .subscribe, .unsubscribe,
            .fleetStatus:
            false
        }
    }

    /// Adds the operation's parameter fields (everything but `id` and `op`) to a message.
    func encodeParameters(into dictionary: inout PlistDictionary) {
        switch self {
        case .hello(let hello):
            hello.encode(into: &dictionary)
        case .get(let domain, let key):
            domain.encode(into: &dictionary)
            dictionary["key"] = .string(key)
        case .getEffective(let searchList, let key):
            searchList.encode(into: &dictionary)
            dictionary["key"] = .string(key)
        case .set(let domain, let key, let value, let expectedVersion):
            domain.encode(into: &dictionary)
            dictionary["key"] = .string(key)
            dictionary["value"] = value
            dictionary.setIfPresent("expectedVersion", expectedVersion.map(PlistValue.unsigned))
        case .setMany(let domain, let values, let removeKeys, let expectedVersion):
            domain.encode(into: &dictionary)
            if !values.isEmpty { dictionary["values"] = .dictionary(values) }
            if !removeKeys.isEmpty { dictionary["removeKeys"] = .strings(removeKeys) }
            dictionary.setIfPresent("expectedVersion", expectedVersion.map(PlistValue.unsigned))
        case .remove(let domain, let key, let expectedVersion):
            domain.encode(into: &dictionary)
            dictionary["key"] = .string(key)
            dictionary.setIfPresent("expectedVersion", expectedVersion.map(PlistValue.unsigned))
        case .readDomain(let domain):
            domain.encode(into: &dictionary)
        case .writeDomain(let domain, let values, let expectedVersion):
            domain.encode(into: &dictionary)
            dictionary["values"] = .dictionary(values)
            dictionary.setIfPresent("expectedVersion", expectedVersion.map(PlistValue.unsigned))
        case .removeDomain(let domain, let expectedVersion):
            domain.encode(into: &dictionary)
            dictionary.setIfPresent("expectedVersion", expectedVersion.map(PlistValue.unsigned))
        case .listDomains(let scope, let byHost):
            if scope != .user { dictionary["scope"] = .string(scope.rawValue) }
            if byHost { dictionary["byHost"] = .bool(true) }
        case .synchronize, .fleetStatus:
            break
        case .subscribe(let filter):
            filter.encode(into: &dictionary)
        case .unsubscribe(let subscription):
            dictionary["subscription"] = .unsigned(subscription)
        }
    }

    /// Reads the parameter fields of operation `name`; the caller has read `id` and `op` and calls `finish()`.
    static func decodeParameters(_ name: Name, from fields: inout WireFields) throws(WireError) -> WireOperation {
        switch name {
        case .hello:
            return .hello(try WireHello.decode(from: &fields))
        case .get:
            return .get(try WireDomain.decode(from: &fields), key: try fields.string("key"))
        case .getEffective:
            return .getEffective(try WireSearchList.decode(from: &fields), key: try fields.string("key"))
        case .set:
            return .set(
                try WireDomain.decode(from: &fields), key: try fields.string("key"), value: try fields.value("value"),
                expectedVersion: try fields.optionalUInt64("expectedVersion"))
        case .setMany:
            let domain = try WireDomain.decode(from: &fields)
            let values = try fields.optionalDictionary("values") ?? [:]
            let removeKeys = try fields.optionalStringArray("removeKeys") ?? []
            if let index = removeKeys.firstIndex(where: { values[$0] != nil }) {
                throw WireError.badField(
                    "\(fields.path(of: "removeKeys"))[\(index)]",
                    "names key \"\(removeKeys[index])\", which `values` also sets")
            }
            return .setMany(
                domain, values: values, removeKeys: removeKeys,
                expectedVersion: try fields.optionalUInt64("expectedVersion"))
        case .remove:
            return .remove(
                try WireDomain.decode(from: &fields), key: try fields.string("key"),
                expectedVersion: try fields.optionalUInt64("expectedVersion"))
        case .readDomain:
            return .readDomain(try WireDomain.decode(from: &fields))
        case .writeDomain:
            return .writeDomain(
                try WireDomain.decode(from: &fields), values: try fields.dictionary("values"),
                expectedVersion: try fields.optionalUInt64("expectedVersion"))
        case .removeDomain:
            return .removeDomain(
                try WireDomain.decode(from: &fields), expectedVersion: try fields.optionalUInt64("expectedVersion"))
        case .listDomains:
            let (byHost, scope) = try WireDomain.decodeByHostAndScope(from: &fields)
            return .listDomains(scope: scope, byHost: byHost)
        case .synchronize:
            return .synchronize
        case .subscribe:
            return .subscribe(try WireSubscriptionFilter.decode(from: &fields))
        case .unsubscribe:
            return .unsubscribe(subscription: try fields.uint64("subscription"))
        case .fleetStatus:
            return .fleetStatus
        }
    }
}
