// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The successful result of an operation, one case per operation.
///
/// Every write returns the domain's `version` afterwards: the sequence number of its latest change (unchanged
/// when the write changed nothing). A client passes it back as `expectedVersion` for compare-and-set.
public enum WireResult: Sendable, Hashable {
    /// `hello`: the negotiated version, the server and its limits.
    case hello(WireHelloResult)
    /// `get`: the value (absent when the domain does not hold the key) and the domain's version. On the wire:
    /// `value` (optional), `version`.
    case get(value: PlistValue?, version: UInt64)
    /// `getEffective`: the resolution with provenance.
    case getEffective(WireResolution)
    /// `set`: the domain's version after the write. On the wire: `version`.
    case set(version: UInt64)
    /// `setMany`: the domain's version after the batch. On the wire: `version`.
    case setMany(version: UInt64)
    /// `remove`: the domain's version after the removal. On the wire: `version`.
    case remove(version: UInt64)
    /// `readDomain`: every key and the domain's version. On the wire: `values`, `version`.
    case readDomain(values: PlistDictionary, version: UInt64)
    /// `writeDomain`: the domain's version after the write. On the wire: `version`.
    case writeDomain(version: UInt64)
    /// `removeDomain`: the domain's version after the removal. On the wire: `version`.
    case removeDomain(version: UInt64)
    /// `listDomains`: the domain names, sorted. On the wire: `domains` (array of strings).
    case listDomains([String])
    /// `synchronize`: no fields.
    case synchronize
    /// `subscribe`: the subscription's identifier and the snapshot taken atomically with it. On the wire:
    /// `subscription`, `values`, `sequences`.
    case subscribe(subscription: UInt64, snapshot: WireSnapshot)
    /// `unsubscribe`: no fields.
    case unsubscribe
    /// `fleetStatus`: `nil` when the daemon is in no fleet. On the wire: `inFleet` (boolean), and when it is true
    /// the fields of ``WireFleetStatus``.
    case fleetStatus(WireFleetStatus?)

    /// The operation this result answers.
    public var operation: WireOperation.Name {
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

    /// Adds the result's fields (everything but `id` and `op`) to a reply.
    func encodeFields(into dictionary: inout PlistDictionary) {
        switch self {
        case .hello(let hello):
            hello.encode(into: &dictionary)
        case .get(let value, let version):
            dictionary.setIfPresent("value", value)
            dictionary["version"] = .unsigned(version)
        case .getEffective(let resolution):
            resolution.encode(into: &dictionary)
        case .set(let version), .setMany(let version), .remove(let version), .writeDomain(let version),
            .removeDomain(let version):
            dictionary["version"] = .unsigned(version)
        case .readDomain(let values, let version):
            dictionary["values"] = .dictionary(values)
            dictionary["version"] = .unsigned(version)
        case .listDomains(let names):
            dictionary["domains"] = .strings(names)
        case .synchronize, .unsubscribe:
            break
        case .subscribe(let subscription, let snapshot):
            dictionary["subscription"] = .unsigned(subscription)
            snapshot.encode(into: &dictionary)
        case .fleetStatus(let status):
            dictionary["inFleet"] = .bool(status != nil)
            status?.encode(into: &dictionary)
        }
    }

    /// Reads the result fields of a reply to operation `name`; the caller calls `finish()`.
    static func decodeFields(_ name: WireOperation.Name, from fields: inout WireFields) throws(WireError) -> WireResult
    {
        switch name {
        case .hello:
            return .hello(try WireHelloResult.decode(from: &fields))
        case .get:
            return .get(value: fields.optionalValue("value"), version: try fields.uint64("version"))
        case .getEffective:
            return .getEffective(try WireResolution.decode(from: &fields))
        case .set:
            return .set(version: try fields.uint64("version"))
        case .setMany:
            return .setMany(version: try fields.uint64("version"))
        case .remove:
            return .remove(version: try fields.uint64("version"))
        case .readDomain:
            return .readDomain(values: try fields.dictionary("values"), version: try fields.uint64("version"))
        case .writeDomain:
            return .writeDomain(version: try fields.uint64("version"))
        case .removeDomain:
            return .removeDomain(version: try fields.uint64("version"))
        case .listDomains:
            guard let names = try fields.optionalStringArray("domains") else {
                throw WireError.badField(fields.path(of: "domains"), "is missing")
            }
            return .listDomains(names)
        case .synchronize:
            return .synchronize
        case .subscribe:
            return .subscribe(
                subscription: try fields.uint64("subscription"), snapshot: try WireSnapshot.decode(from: &fields))
        case .unsubscribe:
            return .unsubscribe
        case .fleetStatus:
            guard let inFleet = try fields.optionalBool("inFleet") else {
                throw WireError.badField(fields.path(of: "inFleet"), "is missing")
            }
            return .fleetStatus(inFleet ? try WireFleetStatus.decode(from: &fields) : nil)
        }
    }
}
