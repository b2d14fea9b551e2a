// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace joined to the test's own by a veth pair on a /30 of its own, so that a host inside reaches
/// etcd (listening on every address) at ``outerAddress``, and a partition is one link set down: packets stop, TCP
/// connections stall without being reset, as when a cable is pulled. Needs root and iproute2's `ip`.
final class NetworkNamespace: @unchecked Sendable {
    static let ip =
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/sbin/ip"

    /// Whether namespaces can be made here: root and `ip` (CI runs as root; a developer's `swift test` may not).
    static let isAvailable: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: ip) else { return false }
        return (try? NetworkNamespace()) != nil  // Made and removed again: namespaces and veth pairs work here.
    }()

    let name: String
    /// The veth end in the test's namespace.
    let outerLink: String
    /// The veth end inside the namespace.
    let innerLink: String
    /// The address of ``outerLink``: what the host inside connects to.
    let outerAddress: String
    /// The address of the veth end inside: what reaches a server inside from the test's namespace.
    let innerAddress: String

    init() throws {
        let tag = String(format: "%06x", UInt32.random(in: 0...0xff_ffff))
        name = "prefs-\(tag)"
        outerLink = "pv\(tag)o"
        innerLink = "pv\(tag)i"
        // 10.213.0.0/16 in /30s: the outer end .1, the inner end .2 of one of 16,384 subnets.
        let subnet = Int.random(in: 0..<16_384) * 4
        outerAddress = "10.213.\(subnet / 256).\(subnet % 256 + 1)"
        innerAddress = "10.213.\(subnet / 256).\(subnet % 256 + 2)"
        try Self.run(["netns", "add", name])
        do {
            try Self.run(["link", "add", outerLink, "type", "veth", "peer", "name", innerLink])
            try Self.run(["link", "set", innerLink, "netns", name])
            try Self.run(["addr", "add", "\(outerAddress)/30", "dev", outerLink])
            try Self.run(["link", "set", outerLink, "up"])
            try Self.run(["netns", "exec", name, Self.ip, "addr", "add", "\(innerAddress)/30", "dev", innerLink])
            try Self.run(["netns", "exec", name, Self.ip, "link", "set", innerLink, "up"])
            try Self.run(["netns", "exec", name, Self.ip, "link", "set", "lo", "up"])
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Cuts the namespace off: its link goes down, nothing crosses until ``heal()``.
    func partition() throws { try Self.run(["link", "set", outerLink, "down"]) }

    /// Brings the link back.
    func heal() throws { try Self.run(["link", "set", outerLink, "up"]) }

    private func remove() {
        // Deleting the namespace deletes the inner end, and with it the pair.
        _ = try? Self.run(["netns", "delete", name])
        _ = try? Self.run(["link", "delete", outerLink])
    }

    /// Runs `arguments` inside the namespace (`ip netns exec`).
    func run(_ arguments: [String]) throws {
        try Self.run(["netns", "exec", name] + arguments)
    }

    private static func run(_ arguments: [String]) throws {
        let result = try BuiltProduct(path: ip).run(arguments, environment: [:])
        guard result.status == 0 else { throw TestFailure("ip \(arguments.joined(separator: " ")): \(result)") }
    }
}
