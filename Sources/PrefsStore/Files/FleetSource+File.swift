// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
package import PrefsPlist

// The sources file of a fleet domain in prefsd's cache (StorePaths.fleetSourcesPath(for:)), which the store reads
// to explain a fleet-managed value and the fleet cache writes.
extension FleetSource {
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
