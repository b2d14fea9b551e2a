// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// The fleet as a whole, judged as an administrator would with `defaults fleet wait` and `fleet hosts`: twenty hosts
/// on a three-member cluster through the leader's death (kill -9), a partitioned host (where network namespaces can
/// be made), and three hosts stopped while history is compacted away; every live host ends with every change.
extension FleetClusterTests {
    /// The index of the member that leads now.
    static func leader(of cluster: EtcdCluster) throws -> Int {
        let output = try cluster.control(["endpoint", "status", "-w", "json"]).standardOutput
        let statuses = try #require(try PlistSerialization.decode(Array(output.utf8)).arrayValue, "\(output)")
        for case .dictionary(let entry) in statuses {
            guard case .dictionary(let status)? = entry["Status"], case .dictionary(let header)? = status["header"],
                let member = header["member_id"], member == status["leader"],
                case .string(let endpoint)? = entry["Endpoint"]
            else { continue }
            if let index = cluster.endpoints.firstIndex(of: endpoint) { return index }
        }
        throw TestFailure("no leader in \(output)")
    }

    /// `fleet write -forced … -wait`, returning what it printed on standard error.
    func writeAndWait(_ cluster: EtcdCluster, _ key: String, _ value: Int, timeout: Int = 30) throws -> String {
        let result = try fleet(
            cluster, ["write", "-forced", "-wait", "-timeout", "\(timeout)", app, key, "-int", "\(value)"])
        #expect(result.status == 0, "\(result)")
        return result.standardError
    }

    @Test func twentyHostsKeepEveryChangeThroughALeadersDeathAPartitionAndCompaction() throws {
        let partitions = NetworkNamespace.isAvailable
        let cluster = try EtcdCluster(listensOnAllAddresses: partitions)
        let namespace = partitions ? try NetworkNamespace() : nil
        var hosts: [FleetHost] = []
        for index in 0..<20 {
            var settings = FleetHost.settings(cluster, groups: [index % 2 == 0 ? "even" : "odd"])
            if index == 19, let namespace {
                settings["FleetEndpoints"] = .array(
                    cluster.clientPorts.map { .string("http://\(namespace.outerAddress):\($0)") })
            }
            hosts.append(try FleetHost(settings: settings))
        }
        for (index, host) in hosts.enumerated() { try host.start(in: index == 19 ? namespace : nil) }
        try waitUntil("twenty hosts in the registry") { try hostsDocument(cluster).hosts.count == 20 }
        #expect(try writeAndWait(cluster, "Step1", 1).contains("20 of 20 hosts have revision "))

        // The leader killed with SIGKILL: the next change still reaches every host.
        let leader = try Self.leader(of: cluster)
        cluster.kill(leader)
        #expect(try writeAndWait(cluster, "Step2", 2).contains("20 of 20 hosts have revision "))
        try cluster.start(leader)
        try cluster.waitUntilHealthy()

        // A host cut off: the others have the change, it is named behind, and it catches up once healed.
        if let namespace {
            let cutOff = hosts[19]
            try namespace.partition()
            let written = try fleet(cluster, ["write", "-forced", "-wait", "-timeout", "3", app, "Step3", "-int", "3"])
            #expect(written.status == 1, "\(written)")
            #expect(written.standardError.contains(cutOff.machineID), "\(written)")
            let revision = try Self.writtenRevision(written)
            // The others have it (on a busy machine perhaps only after the 3 s); the cut-off host keeps its policy.
            try waitUntil("nineteen hosts at revision \(revision)") {
                let document = try hostsDocument(cluster)
                return hosts.dropLast().allSatisfy { host in
                    (Self.integer(document.hosts[host.machineID], "appliedRevision") ?? 0) >= revision
                }
            }
            #expect(cutOff.cached("forced", app)?["Step2"] == 2)
            #expect(cutOff.cached("forced", app)?["Step3"] == nil)
            try namespace.heal()
            let caughtUp = try fleet(cluster, ["wait", "-timeout", "40", String(revision)])
            #expect(caughtUp.status == 0, "\(caughtUp)")
        } else {
            #expect(try writeAndWait(cluster, "Step3", 3).contains("20 of 20 hosts have revision "))
        }

        // Three hosts stopped while changes are made and history is compacted away: they leave the registry, the
        // others get everything, and once restarted they read it all again.
        let stopped = Array(hosts[1...3])
        for host in stopped { host.stop() }
        try waitUntil("seventeen hosts in the registry") { try hostsDocument(cluster).hosts.count == 17 }
        for step in 4...6 { #expect(try writeAndWait(cluster, "Step\(step)", step).contains("17 of 17 hosts")) }
        let status = try cluster.control(["endpoint", "status", "-w", "json"]).standardOutput
        let compactTo = try #require(status.firstMatch(of: /"revision":(\d+)/).map { String($0.1) })
        try cluster.control(["compact", compactTo])
        for host in stopped { try host.start() }
        let last = try writeAndWait(cluster, "Step7", 7, timeout: 40)
        #expect(last.contains("20 of 20 hosts have revision "), "\(last)")

        // The judge: nobody behind, and every host holds every change.
        let behind = try admin(cluster, ["hosts", "-behind", "-format", "json"]).standardOutput
        #expect(try hostsDocument(cluster, ["-behind"]).hosts.isEmpty, "\(behind)")
        for host in hosts {
            let cached = host.cached("forced", app) ?? [:]
            for step in 1...7 {
                #expect(cached["Step\(step)"] == PlistValue(integerLiteral: Int64(step)), "\(host.machineID)")
            }
        }
        for host in stopped { #expect(host.log.contains("compacted"), "\(host.log)") }
    }
}
