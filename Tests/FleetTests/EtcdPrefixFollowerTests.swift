// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsFleet
import PrefsTestSupport
import Synchronization
import Testing

/// The follower the fleet's policy and the roaming domains share, on a real three-member etcd: it reads the prefix,
/// watches from the revision after, moves to another member when its member dies without losing or repeating a
/// change, and reads the prefix again when etcd has compacted past the revision it resumes from.
///
/// Async, so nothing here depends on being scheduled on time (see ``EtcdLeaseTests``): generous waits and limit.
@Suite(.timeLimit(.minutes(5))) struct EtcdPrefixFollowerTests {
    /// What the follower reported, in order.
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        private let endpoint = Mutex<EtcdEndpoint?>(nil)

        func record(_ update: EtcdPrefixFollower.Update, from source: EtcdEndpoint) {
            switch update {
            case .snapshot(let result):
                let keys = result.keyValues.map { "\($0.keyText)=\(String(decoding: $0.value, as: UTF8.self))" }
                append("snapshot \(keys.joined(separator: ","))")
            case .watch(.created):
                endpoint.withLock { $0 = source }
                append("created")
            case .watch(.events(let events, _)):
                for event in events {
                    append("\(event.keyValue.keyText)=\(String(decoding: event.keyValue.value, as: UTF8.self))")
                }
            case .watch(.progress):
                break
            }
        }

        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
        var watchedEndpoint: EtcdEndpoint? { endpoint.withLock { $0 } }

        /// Waits until `condition` holds of the entries.
        func wait(for what: String, _ condition: ([String]) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition(all) {
                guard ContinuousClock.now < deadline else { throw TestFailure("\(what); the follower saw \(all)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    func follow(_ client: EtcdClient, from revision: Int64?, into journal: Journal) -> Task<Void, Never> {
        Task {
            await EtcdPrefixFollower(backoff: (.milliseconds(10), .milliseconds(200))).follow(
                from: revision,
                round: { EtcdPrefixFollower.Round(client: client, prefix: "/follow/") },
                apply: { update, endpoint in journal.record(update, from: endpoint) },
                lost: { error, endpoint in journal.append("lost \(endpoint)") },
                compacted: { _ in journal.append("compacted") },
                pause: { wait in try? await Task.sleep(for: wait) })
        }
    }

    @Test func followsThroughAMembersDeathAndReadsAgainAfterCompaction() async throws {
        let cluster = try EtcdCluster()
        let client = EtcdClient(
            endpoints: try cluster.endpoints.map { try EtcdEndpoint($0) }, requestTimeout: .seconds(60))
        try await client.put("/follow/a", value: Array("1".utf8))
        try await client.put("/elsewhere", value: Array("x".utf8))

        let journal = Journal()
        let follower = follow(client, from: nil, into: journal)
        defer { follower.cancel() }
        try await journal.wait(for: "the snapshot and the watch") { $0 == ["snapshot /follow/a=1", "created"] }
        try await client.put("/follow/b", value: Array("2".utf8))
        try await journal.wait(for: "b") { $0.last == "/follow/b=2" }

        // The watched member dies: the follower is told, watches another from the revision after b, and neither
        // loses c, written meanwhile, nor hears b again.
        let watched = try #require(journal.watchedEndpoint)
        let index = try #require(cluster.endpoints.firstIndex(of: watched.description))
        cluster.kill(index)
        try await journal.wait(for: "the loss of \(watched)") { $0.contains("lost \(watched)") }
        try await client.put("/follow/c", value: Array("3".utf8))
        try await journal.wait(for: "c") { $0.last == "/follow/c=3" }
        let afterLoss = journal.all.drop { !$0.hasPrefix("lost") }
        #expect(afterLoss.filter { $0.hasPrefix("/follow/") } == ["/follow/c=3"], "\(journal.all)")
        #expect(!afterLoss.contains { $0.hasPrefix("snapshot") }, "\(journal.all)")
        follower.cancel()

        // Resuming from a revision etcd compacted away: told so, the prefix is read whole, and the watch goes on.
        let revision = try await client.range(prefix: "/follow/").revision
        try cluster.control(["compact", "\(revision)"])
        let resumed = Journal()
        let second = follow(client, from: 1, into: resumed)
        defer { second.cancel() }
        try await resumed.wait(for: "the compaction and a new snapshot") {
            // etcd creates the watch, then cancels it as compacted; the dead member may be tried first, and lost.
            let entries = $0.filter { !$0.hasPrefix("lost") }.drop { $0 != "compacted" }
            return entries.starts(with: ["compacted", "snapshot /follow/a=1,/follow/b=2,/follow/c=3"])
                && entries.contains("created")
        }
        try await client.put("/follow/d", value: Array("4".utf8))
        try await resumed.wait(for: "d") { $0.last == "/follow/d=4" }
    }
}
