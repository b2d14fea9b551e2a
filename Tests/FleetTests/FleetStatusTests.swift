// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

/// `defaults fleet status` and the `fleetStatus` operation on real hosts: joined, cut off from the whole cluster,
/// in no fleet, and without prefsd.
extension FleetClusterTests {
    /// The etcd revision `defaults fleet write` reports on standard error (`wrote <key> at revision N`).
    static func writtenRevision(_ result: BuiltProduct.Result) throws -> Int64 {
        let match = try #require(result.standardError.firstMatch(of: /at revision (\d+)/), "\(result)")
        return try #require(Int64(match.1))
    }

    /// The host's `defaults fleet status`, which must succeed.
    static func status(of host: FleetHost) throws -> String {
        let result = try host.defaults(["fleet", "status"])
        guard result.status == 0 else { throw TestFailure("defaults fleet status: \(result)") }
        return result.standardOutput
    }

    @Test func statusShowsTheAppliedRevisionThenTheCachedOneWhenTheClusterIsGone() throws {
        let cluster = try EtcdCluster()
        let host = try FleetHost(settings: FleetHost.settings(cluster))
        try host.start()
        let written = try admin(cluster, ["write", "-forced", app, "Theme", "dark"])
        let revision = try Self.writtenRevision(written)
        try host.waitForCached("forced", app, "Theme", "dark")

        // Connected, at the revision of the last change, with nothing left to apply.
        var status = ""
        try waitUntil("status at revision \(revision): \(status)") {
            status = try Self.status(of: host)
            return status.contains("\nrevision: \(revision)\n")
        }
        #expect(status.hasPrefix("state: connected\n"), "\(status)")
        let endpoint = try #require(status.firstMatch(of: /\nendpoint: (\S+)\n/).map { String($0.1) })
        #expect(cluster.endpoints.contains(endpoint), "\(status)")
        #expect(status.contains("\nlatest revision: \(revision)\nlag: 0\n"), "\(status)")
        #expect(!status.contains("last error"), "\(status)")
        #expect(status.contains("\nrefused values: 0\n"), "\(status)")
        #expect(status.hasSuffix("\ncache: \(host.preferences)/Fleet\n"), "\(status)")

        // A refused value is counted; the last good version, and its revision, stay.
        try cluster.control(["put", "/preferences/managed/all/forced/\(app)", "not a property list {"])
        try waitUntil("the refusal to be counted: \(status)") {
            status = try Self.status(of: host)
            return status.contains("\nrefused values: 1\n")
        }
        #expect(host.cached("forced", app) == ["Theme": "dark"])
        let afterRefusal = try #require(status.firstMatch(of: /\nrevision: (\d+)\n/).flatMap { Int64($0.1) })
        // The refused put is the newest managed change; the host's registry updates come between.
        #expect(afterRefusal > revision, "\(status)")

        // The whole cluster gone: offline, with the error and when, still serving the cached revision.
        for member in 0..<3 { cluster.kill(member) }
        try waitUntil("status offline: \(status)") {
            status = try Self.status(of: host)
            return status.hasPrefix("state: offline\n")
        }
        #expect(status.contains("\nrevision: \(afterRefusal)\n"), "\(status)")
        #expect(status.contains("\nlast error: "), "\(status)")
        #expect(status.contains("\nlast error date: 20"), "\(status)")
        let explained = try host.defaults(["explain", app, "Theme"]).standardOutput
        #expect(explained.hasPrefix("Theme = dark from fleet-managed forced"), "\(explained)")

        // The same state through the protocol, typed.
        let client = try PrefsBlockingClient(socketPath: host.socketPath, clientName: "fleet status test")
        guard case .fleetStatus(let wire?) = try client.send(.fleetStatus) else {
            throw TestFailure("fleetStatus did not answer with a fleet state")
        }
        #expect(wire.state == .offline)
        #expect(wire.appliedRevision == afterRefusal)
        #expect(wire.refusedValues == 1)
        #expect(wire.lastError?.isEmpty == false)
        let age = try #require(wire.lastErrorDate).secondsSince1970 - Date().timeIntervalSince1970
        #expect(abs(age) < 120, "last error date \(String(describing: wire.lastErrorDate))")
    }

    @Test func statusOfAHostInNoFleetAndWithoutPrefsd() throws {
        let host = try FleetHost(settings: [:])
        let withoutDaemon = try host.defaults(["fleet", "status"])
        #expect(withoutDaemon.status == 1, "\(withoutDaemon)")
        #expect(withoutDaemon.standardOutput.isEmpty)
        #expect(
            withoutDaemon.standardError.contains("fleet status needs prefsd, which is not running"), "\(withoutDaemon)")
        #expect(withoutDaemon.standardError.contains(host.socketPath), "\(withoutDaemon)")

        try host.start()
        #expect(try Self.status(of: host) == "state: not in a fleet (prefsd has no FleetEndpoints setting)\n")
        let client = try PrefsBlockingClient(socketPath: host.socketPath, clientName: "fleet status test")
        #expect(try client.send(.fleetStatus) == .fleetStatus(nil))

        let withOptions = try host.defaults(["fleet", "status", "-endpoints", "http://127.0.0.1:1"])
        #expect(withOptions.status == 255, "\(withOptions)")
        #expect(withOptions.standardError.contains("fleet status takes no options"), "\(withOptions)")
    }
}
