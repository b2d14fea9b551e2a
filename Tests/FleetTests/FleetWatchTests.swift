// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `defaults watch -effective` on a host of a fleet, through its prefsd: what an administrator writes in etcd shows
/// as the value the application reads, and a user's change under a forced value prints nothing.
extension FleetClusterTests {
    @Test func watchOfTheEffectiveValuesPrintsTheFleetsChanges() throws {
        let cluster = try EtcdCluster(size: 1)
        let host = try FleetHost(settings: FleetHost.settings(cluster))
        try host.start()
        try waitUntil("host status connected") { try Self.status(of: host).hasPrefix("state: connected\n") }
        #expect(try host.defaults(["write", app, "Theme", "light"]).status == 0)

        let watcher = try SpawnedProcess(
            FleetHost.defaults.path, ["watch", "-effective", app, "Theme"],
            environment: host.environment.merging(["PREFERENCES_DAEMON": "on"]) { _, new in new },
            logDirectory: host.directory.path)
        defer { watcher.terminate() }
        let output = { (try? String(contentsOfFile: watcher.outputPath, encoding: .utf8)) ?? "" }
        try waitUntil("the watch to start: \(watcher.standardError)") { watcher.standardError.hasSuffix("stop.\n") }

        var expected = ""
        func step(_ line: String, _ change: () throws -> Void) throws {
            try change()
            expected += line + "\n"
            try waitUntil("\(line) in the watch's output: \(output()) \(watcher.standardError)") {
                output() == expected
            }
        }
        try step("com.example.App Theme = dark from fleet-managed forced com.example.App") {
            try admin(cluster, ["write", "-forced", app, "Theme", "dark"])
        }
        _ = try host.defaults(["write", app, "Theme", "blue"])
        try step("com.example.App Theme = night from fleet-managed forced com.example.App") {
            try admin(cluster, ["write", "-forced", app, "Theme", "night"])
        }
        try step("com.example.App Theme = blue from user com.example.App") {
            try admin(cluster, ["delete", "-forced", app, "Theme"])
        }
        #expect(output() == expected)
        #expect(!watcher.standardError.contains("error"), "\(watcher.standardError)")
    }
}
