// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

/// A real etcd cluster of three members on loopback ports chosen for this test, in a temporary directory: started,
/// killed and restarted member by member. Skips are not taken: without Debian's `etcd-server` the tests fail and
/// say to install it (scripts/install-deps.sh does).
///
/// With ``TestCertificates`` the client URLs are `https://` and require a client certificate signed by their CA
/// (`--client-cert-auth`); `etcdctl` presents the test's client certificate. The peers stay plain HTTP.
final class EtcdCluster: @unchecked Sendable {
    static let executable = "/usr/bin/etcd"
    static let controller = "/usr/bin/etcdctl"

    let directory: TemporaryDirectory
    let clientPorts: [Int]
    let peerPorts: [Int]
    private var members: [SpawnedProcess?]
    private let token = "prefs-test-\(UUID().uuidString.prefix(8))"
    /// `user:password` that `etcdctl` runs as, once authentication is enabled.
    private var controlUser: String?
    /// Arguments every member gets besides the cluster's own.
    private let extraArguments: [String]
    /// The certificates of TLS on the client URLs, or `nil` for plain HTTP.
    let certificates: TestCertificates?

    /// Whether members listen for clients on every address (`0.0.0.0`), so that hosts in network namespaces reach
    /// them through a veth pair; they advertise loopback all the same.
    private let listensOnAllAddresses: Bool

    /// The network namespace the last member runs in, cut off from the others with it by
    /// ``NetworkNamespace/partition()``; `nil` when every member runs on loopback.
    let isolatedMemberNamespace: NetworkNamespace?

    /// - Parameter isolatedMemberNamespace: Where the last member runs: its peers and clients reach it at the
    ///   namespace's inner address, and it reaches the others at its outer one (members outside listen there).
    init(
        size: Int = 3, extraArguments: [String] = [], certificates: TestCertificates? = nil,
        listensOnAllAddresses: Bool = false, isolatedMemberNamespace: NetworkNamespace? = nil
    ) throws {
        self.extraArguments = extraArguments
        self.certificates = certificates
        self.listensOnAllAddresses = listensOnAllAddresses
        self.isolatedMemberNamespace = isolatedMemberNamespace
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw TestFailure("\(Self.executable) is missing: install etcd-server (scripts/install-deps.sh)")
        }
        directory = try TemporaryDirectory(prefix: "fleet-etcd")
        let ports = try freeLoopbackPorts(size * 2)
        clientPorts = Array(ports[0..<size])
        peerPorts = Array(ports[size...])
        members = Array(repeating: nil, count: size)
        for index in 0..<size { try start(index) }
        try waitUntilHealthy()
    }

    deinit {
        for member in members { member?.kill() }
    }

    /// The client URLs, `http://127.0.0.1:<port>` (`https://` with TLS).
    var endpoints: [String] {
        clientPorts.indices.map { "\(certificates == nil ? "http" : "https")://\(address(of: $0)):\(clientPorts[$0])" }
    }

    /// Where member `index` listens: loopback, or with an isolated member, the namespace's inner address for that
    /// member and its outer one for the others.
    private func address(of index: Int) -> String {
        guard let namespace = isolatedMemberNamespace else { return "127.0.0.1" }
        return index == clientPorts.count - 1 ? namespace.innerAddress : namespace.outerAddress
    }

    /// Starts (or restarts, keeping its data) member `index`.
    func start(_ index: Int) throws {
        let peerURLs = peerPorts.indices.map { "http://\(address(of: $0)):\(peerPorts[$0])" }
        let cluster = peerURLs.indices.map { "m\($0)=\(peerURLs[$0])" }.joined(separator: ",")
        let arguments =
            [
                "--name", "m\(index)", "--data-dir", directory.file("m\(index)"),
                "--listen-client-urls",
                listensOnAllAddresses ? "http://0.0.0.0:\(clientPorts[index])" : endpoints[index],
                "--advertise-client-urls", endpoints[index],
                "--listen-peer-urls", peerURLs[index], "--initial-advertise-peer-urls", peerURLs[index],
                "--initial-cluster", cluster, "--initial-cluster-token", token, "--initial-cluster-state", "new",
                "--heartbeat-interval", "50", "--election-timeout", "500", "--logger", "zap", "--log-level", "error",
            ] + tlsArguments + extraArguments
        if let namespace = isolatedMemberNamespace, index == members.count - 1 {
            members[index] = try SpawnedProcess(
                NetworkNamespace.ip, ["netns", "exec", namespace.name, Self.executable] + arguments, environment: [:],
                logDirectory: directory.path)
        } else {
            members[index] = try SpawnedProcess(
                Self.executable, arguments, environment: [:], logDirectory: directory.path)
        }
    }

    /// The members' TLS options: their certificate, and client certificates required and checked against the CA.
    private var tlsArguments: [String] {
        guard let certificates else { return [] }
        return [
            "--cert-file", certificates.serverCertificate, "--key-file", certificates.serverKey,
            "--trusted-ca-file", certificates.caFile, "--client-cert-auth",
        ]
    }

    /// Kills member `index` (SIGKILL).
    func kill(_ index: Int) {
        members[index]?.kill()
        members[index] = nil
    }

    /// Runs `etcdctl` against the members that run.
    @discardableResult
    func control(_ arguments: [String]) throws -> BuiltProduct.Result {
        let running = members.indices.filter { members[$0] != nil }.map { endpoints[$0] }
        let user = controlUser.map { ["--user", $0] } ?? []
        let tls =
            certificates.map {
                ["--cacert", $0.caFile, "--cert", $0.clientCertificate, "--key", $0.clientKey]
            } ?? []
        let result = try BuiltProduct(path: Self.controller).run(
            ["--endpoints", running.joined(separator: ","), "--command-timeout", "5s"] + user + tls + arguments,
            environment: ["ETCDCTL_API": "3"])
        guard result.status == 0 else { throw TestFailure("etcdctl \(arguments): \(result)") }
        return result
    }

    /// Waits until the running members have a leader and accept a write.
    func waitUntilHealthy(timeout: Duration = .seconds(30)) throws {
        try waitUntil("the etcd cluster to accept writes", timeout: timeout) {
            (try? control(["put", "/health", "ok"])) != nil
        }
    }

    /// Enables authentication as docs/FLEET.md tells administrators to: `root`; the role `prefs-host`, reading the
    /// managed keys, for `host`; the role `prefs-admin`, reading and writing everything under the prefix, for
    /// `admin`. `etcdctl` runs as root from then on.
    ///
    /// With `roamingUser`, also as the documentation says: the role `prefs-roam-<user>`, reading and writing
    /// `/preferences/users/<user>/`, for `host`.
    func enableAuthentication(
        host: (user: String, password: String), admin: (user: String, password: String), roamingUser: String? = nil
    )
        throws
    {
        if let roamingUser {
            for arguments in [
                ["role", "add", "prefs-roam-\(roamingUser)"],
                [
                    "role", "grant-permission", "prefs-roam-\(roamingUser)", "--prefix=true", "readwrite",
                    "/preferences/users/\(roamingUser)/",
                ],
            ] {
                try control(arguments)
            }
        }
        let rootPassword = "root-\(UUID().uuidString.prefix(8))"
        for arguments in [
            ["user", "add", "root:\(rootPassword)"], ["user", "grant-role", "root", "root"],
            ["role", "add", "prefs-host"],
            ["role", "grant-permission", "prefs-host", "--prefix=true", "read", "/preferences/managed/"],
            ["user", "add", "\(host.user):\(host.password)"], ["user", "grant-role", host.user, "prefs-host"],
        ] + (roamingUser.map { [["user", "grant-role", host.user, "prefs-roam-\($0)"]] } ?? []) + [
            ["role", "add", "prefs-admin"],
            ["role", "grant-permission", "prefs-admin", "--prefix=true", "readwrite", "/preferences/"],
            ["user", "add", "\(admin.user):\(admin.password)"], ["user", "grant-role", admin.user, "prefs-admin"],
            ["auth", "enable"],
        ] {
            try control(arguments)
        }
        controlUser = "root:\(rootPassword)"
    }
}
