// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// etcd authentication on a real cluster: a host with a read-only role joins and mirrors, cannot write a managed key,
/// and wrong or badly kept passwords are refused clearly.
extension FleetClusterTests {
    /// Writes a password file with `mode`, returning its path.
    static func passwordFile(
        in directory: TemporaryDirectory, _ name: String, _ password: String, mode: Int = 0o600
    ) throws -> String {
        let path = directory.file(name)
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// Runs `defaults fleet …` against the cluster as etcd user `user` with the password in `passwordFile`.
    static func fleet(
        _ cluster: EtcdCluster, user: String?, passwordFile: String?, _ arguments: [String]
    ) throws -> BuiltProduct.Result {
        var environment = ["PREFERENCES_FLEET_ENDPOINTS": cluster.endpoints.joined(separator: ",")]
        if let user { environment["PREFERENCES_FLEET_USER"] = user }
        if let passwordFile { environment["PREFERENCES_FLEET_PASSWORD_FILE"] = passwordFile }
        return try FleetHost.defaults.run(["fleet"] + arguments, environment: environment)
    }

    @Test func hostsAuthenticateWithAReadOnlyRoleAndCannotWriteManagedDomains() throws {
        // Tokens expire after 2 s unused, so that the test sees one expire.
        let cluster = try EtcdCluster(extraArguments: ["--auth-token-ttl", "2"])
        let secrets = try TemporaryDirectory(prefix: "fleet-secrets")
        try cluster.enableAuthentication(host: ("host1", "host-secret"), admin: ("admin", "admin-secret"))
        let hostPassword = try Self.passwordFile(in: secrets, "host1", "host-secret")
        let adminPassword = try Self.passwordFile(in: secrets, "admin", "admin-secret")
        let key = "/preferences/managed/all/forced/\(app)"

        // The host joins with the read-only user and mirrors what the administrator writes.
        let host = try FleetHost(
            settings: FleetHost.settings(
                cluster, extra: ["FleetUser": "host1", "FleetPasswordFile": .string(hostPassword)]))
        try host.start()
        let written = try Self.fleet(
            cluster, user: "admin", passwordFile: adminPassword, ["write", "-forced", app, "Theme", "dark"])
        #expect(written.status == 0, "\(written)")
        try host.waitForCached("forced", app, "Theme", "dark")
        try waitUntil("host status connected") { try Self.status(of: host).hasPrefix("state: connected\n") }

        // The host's user may not write: etcd refuses, the message names the key and the user, nothing changes.
        let denied = try Self.fleet(
            cluster, user: "host1", passwordFile: hostPassword, ["write", "-forced", app, "Theme", "light"])
        #expect(denied.status == 1, "\(denied)")
        #expect(denied.standardError.contains("permission denied"), "\(denied)")
        #expect(denied.standardError.contains(key), "\(denied)")
        #expect(denied.standardError.contains("user host1"), "\(denied)")
        let read = try Self.fleet(
            cluster, user: "host1", passwordFile: hostPassword, ["read", "-forced", app, "Theme"])
        #expect(read.status == 0 && read.standardOutput == "dark\n", "\(read)")

        // A wrong password, a password file open to others, and no user at all: each refused clearly.
        let wrong = try Self.passwordFile(in: secrets, "wrong", "not-the-password")
        let refused = try Self.fleet(cluster, user: "admin", passwordFile: wrong, ["read", "-forced", app])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.standardError.contains("refused the user name or password of user admin"), "\(refused)")
        let loose = try Self.passwordFile(in: secrets, "loose", "admin-secret", mode: 0o644)
        let looseResult = try Self.fleet(cluster, user: "admin", passwordFile: loose, ["read", "-forced", app])
        #expect(looseResult.status == 1, "\(looseResult)")
        #expect(looseResult.standardError.contains("\(loose) is open to its group or to others"), "\(looseResult)")
        let missing = try Self.fleet(
            cluster, user: "admin", passwordFile: secrets.file("absent"), ["read", "-forced", app])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.standardError.contains("cannot read the etcd password file"), "\(missing)")
        let anonymous = try Self.fleet(cluster, user: nil, passwordFile: nil, ["read", "-forced", app])
        #expect(anonymous.status == 1, "\(anonymous)")
        #expect(anonymous.standardError.contains("authentication is enabled"), "\(anonymous)")

        // The host's token expires while its watch runs (etcd checks it when a watch is created). The member it
        // watches is killed: it watches another with the expired token, is refused, authenticates again at once and
        // goes on mirroring.
        Thread.sleep(forTimeInterval: 3)
        let status = try Self.status(of: host)
        let endpoint = try #require(status.firstMatch(of: /\nendpoint: (\S+)\n/).map { String($0.1) }, "\(status)")
        let watched = try #require(cluster.endpoints.firstIndex(of: endpoint))
        cluster.kill(watched)
        let after = try Self.fleet(
            cluster, user: "admin", passwordFile: adminPassword, ["write", "-forced", app, "Theme", "night"])
        #expect(after.status == 0, "\(after)")
        try host.waitForCached("forced", app, "Theme", "night", timeout: .seconds(30))
        #expect(!host.log.contains("invalid auth token"), "\(host.log)")

        // A host whose password file others may read does not join, and says why.
        let careless = try FleetHost(
            settings: FleetHost.settings(cluster, extra: ["FleetUser": "host1", "FleetPasswordFile": .string(loose)]))
        try careless.start()
        try waitUntil("the refusal of the password file: \(careless.log)") {
            careless.log.contains("\(loose) is open to its group or to others")
        }
        #expect(try Self.status(of: careless).hasPrefix("state: not in a fleet"))
    }
}
