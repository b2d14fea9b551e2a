// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// One roaming user domain as etcd holds it: every key with its value (or a tombstone when it was removed), when it
/// was changed and by which host (docs/FLEET.md, "Roaming user domains").
///
/// The stamps are what lets two machines that edited the domain apart be merged key by key, each key taking its
/// newest value; the tombstones are what keeps a removal from being undone by a machine that still has the key.
///
/// In etcd it is a binary property list:
///
/// ```
/// {Format = 1; Keys = {<key> = {Value = <value>; Modified = <date>; Host = <machine-id>}; <removed key> =
/// {Removed = true; Modified = <date>; Host = <machine-id>}}}
/// ```
package struct RoamingDocument: Sendable, Hashable {
    /// One key's last change.
    package struct Entry: Sendable, Hashable {
        /// The value, or `nil` when the change removed the key.
        package var value: PlistValue?
        /// When the change was made (the host's clock).
        package var modified: PlistDate
        /// The machine id of the host that made it.
        package var host: String

        package init(value: PlistValue?, modified: PlistDate, host: String) {
            self.value = value
            self.modified = modified
            self.host = host
        }

        /// Whether this change is newer than `other`: by date, then by host (so that two changes stamped alike are
        /// ordered the same way on every host).
        package func isNewer(than other: Entry) -> Bool {
            if modified != other.modified { return modified > other.modified }
            return host > other.host
        }
    }

    /// The keys, removed ones included.
    package var entries: [String: Entry]

    package init(entries: [String: Entry] = [:]) {
        self.entries = entries
    }

    /// The values of the keys that are present: what the local domain holds.
    package var values: PlistDictionary {
        var values = PlistDictionary()
        for (key, entry) in entries {
            if let value = entry.value { values[key] = value }
        }
        return values
    }

    /// The document without the tombstones older than `cutoff`: a removal older than that has reached every host
    /// that was online since (docs/FLEET.md says what a host offline for longer does).
    package func droppingTombstones(before cutoff: PlistDate) -> RoamingDocument {
        RoamingDocument(entries: entries.filter { $0.value.value != nil || $0.value.modified >= cutoff })
    }

    /// The document as etcd stores it.
    /// - Throws: ``EtcdError`` with code `invalidArgument` when a value cannot be encoded.
    package func encoded() throws(EtcdError) -> [UInt8] {
        do {
            return try PlistSerialization.encode(fileValue, format: .binary)
        } catch {
            throw EtcdError(.invalidArgument, "cannot encode a roaming domain: \(error)")
        }
    }

    /// The document as a property list (the etcd value, and the host's state file).
    package var fileValue: PlistValue {
        var keys = PlistDictionary()
        for (key, entry) in entries {
            var stored: PlistDictionary = ["Modified": .date(entry.modified), "Host": .string(entry.host)]
            if let value = entry.value { stored["Value"] = value } else { stored["Removed"] = .bool(true) }
            keys[key] = .dictionary(stored)
        }
        return .dictionary(["Format": .integer(1), "Keys": .dictionary(keys)])
    }

    /// Reads a document from etcd's bytes, within `limits`.
    /// - Returns: The document, or why it was refused.
    package static func decode(_ bytes: [UInt8], limits: FleetMirror.Limits) -> Result<RoamingDocument, Refusal> {
        guard bytes.count <= limits.maxValueBytes else {
            return .failure(
                Refusal(
                    "the value is \(bytes.count) bytes, more than the limit of \(limits.maxValueBytes) "
                        + "(FleetMaxValueBytes)"))
        }
        let value: PlistValue
        do {
            // Keys → key → Value: two levels above the domain's own values.
            value = try PlistSerialization.decode(
                bytes,
                limits: PlistLimits(
                    maxInputBytes: limits.maxValueBytes, maxDepth: limits.maxDepth + 3, maxObjectCount: 1 << 20))
        } catch {
            return .failure(Refusal("the value is not a property list: \(error)"))
        }
        return document(from: value, maxKeyBytes: limits.maxKeyBytes)
    }

    /// Reads a document from its property-list form.
    /// - Returns: The document, or why it is not one.
    package static func document(from value: PlistValue, maxKeyBytes: Int) -> Result<RoamingDocument, Refusal> {
        guard case .dictionary(let top) = value, case .dictionary(let keys)? = top["Keys"] else {
            return .failure(Refusal("the value is not a roaming domain (a dictionary with Keys)"))
        }
        guard case .integer(let format)? = top["Format"], format == 1 else {
            return .failure(Refusal("the roaming domain's Format is not 1"))
        }
        var entries: [String: Entry] = [:]
        for (key, stored) in keys {
            guard key.utf8.count <= maxKeyBytes else {
                return .failure(Refusal("the roaming domain has a key longer than \(maxKeyBytes) bytes"))
            }
            guard case .dictionary(let fields) = stored, case .date(let modified)? = fields["Modified"],
                case .string(let host)? = fields["Host"]
            else {
                return .failure(Refusal("key \(key) of the roaming domain has no Modified date or Host"))
            }
            let value = fields["Value"]
            guard value != nil || fields["Removed"] == .bool(true) else {
                return .failure(Refusal("key \(key) of the roaming domain has neither a Value nor Removed"))
            }
            entries[key] = Entry(value: value, modified: modified, host: host)
        }
        return .success(RoamingDocument(entries: entries))
    }

    /// Why a roaming document was refused.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }
}
