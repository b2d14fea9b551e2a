// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `prefsd` run as `defaults-fleet` is the etcd administration that `defaults fleet` runs (the package installs
/// defaults-fleet as a link to prefsd, which carries SwiftNIO and the etcd client already; docs/FLEET.md).
@Suite struct PrefsdProgramNameTests {
    @Test func prefsdRunAsDefaultsFleetIsTheFleetAdministration() throws {
        let directory = try TemporaryDirectory(prefix: "program-name")
        let path = directory.file("defaults-fleet")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: BuiltProduct("prefsd").path)
        let fleet = BuiltProduct(path: path)
        let version = try fleet.run(["--version"])
        #expect(version.status == 0, "\(version)")
        #expect(version.standardOutput.hasPrefix("defaults "), "\(version)")
        // Without endpoints the etcd actions say what is missing: the fleet administration answered, not the daemon.
        let list = try fleet.run(["fleet", "list"], environment: ["PREFERENCES_FLEET_ENDPOINTS": ""])
        #expect(list.status != 0, "\(list)")
        #expect(list.standardError.contains("endpoints"), "\(list)")
        let daemon = try BuiltProduct("prefsd").run(["--version"])
        #expect(daemon.standardOutput.hasPrefix("prefsd "), "\(daemon)")
    }
}
