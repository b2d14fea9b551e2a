// SPDX-License-Identifier: Apache-2.0
/// Where a fleet-managed value came from: the etcd key that holds its domain and that key's revision.
///
/// prefsd records one per key of each fleet domain in the cache's sources file
/// (`StorePaths.fleetSourcesPath(for:)` in PrefsStore), so that `defaults explain` can name them (docs/FLEET.md).
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
}
