// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsFleet
import PrefsPlist
import PrefsStore
import PrefsTestSupport

/// What the fleet cache's tests share: a Preferences directory with a fleet cache in a temp directory, this host's
/// machine id, the key layout, and one managed domain.
struct FleetCacheFixture {
    static let machineID = "00112233445566778899aabbccddeeff"
    let directory: TemporaryDirectory
    let paths: StorePaths
    let layout = try! FleetKeyLayout()
    let app = try! DomainName("com.example.App")

    init(prefix: String) throws {
        directory = try TemporaryDirectory(prefix: prefix)
        paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil,
            machineID: Self.machineID, fleetDirectory: directory.file("prefs/Fleet"))
    }

    /// A watch event that puts `values` under the etcd key of the domain for `target` and `kind`.
    func put(
        _ values: PlistDictionary, revision: Int64, target: FleetTarget = .all, kind: FleetKind = .forced
    ) throws -> EtcdWatchEvent {
        EtcdWatchEvent(
            kind: .put,
            keyValue: EtcdKeyValue(
                key: Array(layout.key(target: target, kind: kind, domain: app).utf8),
                value: try PlistSerialization.encode(.dictionary(values), format: .binary), modRevision: revision))
    }
}
