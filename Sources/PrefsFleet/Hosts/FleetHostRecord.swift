// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// One host's entry in the fleet's registry (docs/FLEET.md, "Hosts"): `<prefix>hosts/<machine-id>`, a JSON object
/// that the host's prefsd puts on a lease it keeps alive, so that a host that dies or is cut off leaves the registry
/// when its lease expires.
///
/// Two revisions describe how far a host is: ``appliedRevision``, up to which it holds every managed change (its
/// cache), and ``policyRevision``, the newest managed change it knows of (the revision of the last change it saw
/// to any managed key, its own or another host's). A host is behind revision `r` when its applied revision is below
/// `r`; the fleet's policy revision is the newest that any host or any managed key shows.
package struct FleetHostRecord: Sendable, Hashable {
    /// The host's machine id, from its key.
    package var machineID: String
    /// The host's name (`FleetHostName`, else its host name).
    package var name: String
    /// Its groups, the first winning.
    package var groups: [String]
    /// The version of its prefsd.
    package var version: String
    /// How its prefsd stands with etcd: `connecting`, `connected` or `offline`.
    package var state: String
    /// The revision up to which the host holds every managed change.
    package var appliedRevision: Int64
    /// The newest managed change the host knows of.
    package var policyRevision: Int64
    /// When the host first knew of ``policyRevision``, in seconds since 1970.
    package var policyDate: Double?
    /// The last failure talking to etcd, one sentence.
    package var lastError: String?
    /// When it happened, in seconds since 1970.
    package var lastErrorDate: Double?
    /// How many managed values the host refused since its prefsd started.
    package var refusedValues: UInt64
    /// When this prefsd registered, in seconds since 1970.
    package var registeredDate: Double

    package init(
        machineID: String, name: String, groups: [String], version: String, state: String, appliedRevision: Int64,
        policyRevision: Int64, policyDate: Double?, lastError: String?, lastErrorDate: Double?, refusedValues: UInt64,
        registeredDate: Double
    ) {
        self.machineID = machineID
        self.name = name
        self.groups = groups
        self.version = version
        self.state = state
        self.appliedRevision = appliedRevision
        self.policyRevision = policyRevision
        self.policyDate = policyDate
        self.lastError = lastError
        self.lastErrorDate = lastErrorDate
        self.refusedValues = refusedValues
        self.registeredDate = registeredDate
    }

    /// The record as the registry stores it: a JSON object (the machine id is in the key).
    package var jsonValue: PlistValue {
        var object: PlistDictionary = [
            "name": .string(name), "groups": .array(groups.map(PlistValue.string)), "version": .string(version),
            "state": .string(state), "appliedRevision": .integer(PlistInteger(appliedRevision)),
            "policyRevision": .integer(PlistInteger(policyRevision)),
            "refusedValues": .integer(PlistInteger(refusedValues)), "registeredAt": .real(registeredDate),
        ]
        if let policyDate { object["policyAt"] = .real(policyDate) }
        if let lastError { object["lastError"] = .string(lastError) }
        if let lastErrorDate { object["lastErrorAt"] = .real(lastErrorDate) }
        return .dictionary(object)
    }

    /// The bytes put in etcd.
    package var encoded: [UInt8] {
        // Strings, integers and finite reals only: always encodable.
        (try? PlistSerialization.encodeJSON(jsonValue, pretty: false)) ?? Array("{}".utf8)
    }

    /// Reads a record from the registry.
    /// - Parameters:
    ///   - bytes: The key's value.
    ///   - machineID: The machine id its key names.
    /// - Throws: ``EtcdError`` with code `malformedResponse` naming the field when the value is not a host record.
    package init(json bytes: [UInt8], machineID: String) throws(EtcdError) {
        let object: PlistDictionary
        do {
            guard case .dictionary(let decoded) = try PlistSerialization.decode(bytes, format: .json).value else {
                throw EtcdError(.malformedResponse, "the host record of \(machineID) is not a JSON object")
            }
            object = decoded
        } catch let error as EtcdError {
            throw error
        } catch {
            throw EtcdError(.malformedResponse, "the host record of \(machineID) is not JSON: \(error)")
        }
        func field(_ name: String) -> EtcdError {
            EtcdError(.malformedResponse, "the host record of \(machineID) has no valid \(name)")
        }
        func integer(_ name: String) throws(EtcdError) -> Int64 {
            guard case .integer(let value)? = object[name], let number = value.int64Value, number >= 0 else {
                throw field(name)
            }
            return number
        }
        func date(_ name: String) -> Double? {
            switch object[name] {
            case .real(let seconds)?: seconds
            case .integer(let seconds)?: seconds.doubleValue
            default: nil
            }
        }
        guard case .string(let name)? = object["name"] else { throw field("name") }
        guard case .string(let state)? = object["state"] else { throw field("state") }
        self.init(
            machineID: machineID, name: name,
            groups: (object["groups"]?.arrayValue ?? []).compactMap(\.stringValue),
            version: object["version"]?.stringValue ?? "unknown", state: state,
            appliedRevision: try integer("appliedRevision"), policyRevision: try integer("policyRevision"),
            policyDate: date("policyAt"), lastError: object["lastError"]?.stringValue,
            lastErrorDate: date("lastErrorAt"), refusedValues: UInt64(try integer("refusedValues")),
            registeredDate: date("registeredAt") ?? 0)
    }
}
