// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// Where a fleet-managed value came from: the etcd key that holds its domain and that key's revision.
///
/// prefsd records one per key of each fleet domain in the cache's sources file
/// (``StorePaths/fleetSourcesPath(for:)``), so that `defaults explain` can name them (docs/FLEET.md).
public struct FleetSource: Sendable, Hashable, CustomStringConvertible {
    /// The etcd key, e.g. `/preferences/managed/all/forced/com.example.App`.
    public var key: String
    /// The key's `mod_revision` in etcd when prefsd applied it.
    public var revision: Int64

    /// Creates a source.
    /// - Parameters:
    ///   - key: The etcd key.
    ///   - revision: Its modification revision.
    public init(key: String, revision: Int64) {
        self.key = key
        self.revision = revision
    }

    /// `etcd key /preferences/managed/all/forced/com.example.App revision 42`.
    public var description: String { "etcd key \(key) revision \(revision)" }

    /// The sources file's contents: `{<preference key>: {EtcdKey: <string>, Revision: <integer>}}`.
    package static func fileValue(_ sources: [String: FleetSource]) -> PlistValue {
        var dictionary = PlistDictionary()
        for (key, source) in sources {
            dictionary[key] = .dictionary([
                "EtcdKey": .string(source.key), "Revision": .integer(.init(source.revision)),
            ])
        }
        return .dictionary(dictionary)
    }

    /// Reads a sources file; entries that are not well formed are left out, and a missing or unreadable file is
    /// empty (the sources only explain values, they never change them).
    package static func read(path: String) -> [String: FleetSource] {
        guard case .contents(let bytes, _) = try? FileSystem.readFile(path, maxBytes: 64 << 20),
            case .dictionary(let dictionary)? = try? PlistSerialization.decode(bytes)
        else { return [:] }
        var sources: [String: FleetSource] = [:]
        for (key, value) in dictionary {
            guard case .dictionary(let entry) = value, case .string(let etcdKey)? = entry["EtcdKey"],
                case .integer(let revision)? = entry["Revision"], let number = revision.int64Value
            else { continue }
            sources[key] = FleetSource(key: etcdKey, revision: number)
        }
        return sources
    }
}
