// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsFleet
import Testing

/// The client's leases on a real one-member etcd: a key put with a lease lives while the lease is kept alive, and
/// goes when it is revoked or expires.
///
/// Nothing here depends on this task being scheduled on time: it is async, and in `make test` the synchronous tests
/// of the same process can hold the cooperative pool's threads (two on two cores) for a minute. So the renewed lease
/// lives two minutes, the expiry is awaited without a tight deadline, requests may take a minute, and the time limit
/// is generous.
@Suite(.timeLimit(.minutes(5))) struct EtcdLeaseTests {
    @Test func aKeyOnALeaseGoesWhenTheLeaseIsRevokedOrExpires() async throws {
        let cluster = try EtcdCluster(size: 1)
        // A loaded machine can keep a fresh member's first proposals (each one fsynced) past the default 5 s.
        let client = EtcdClient(
            endpoints: try cluster.endpoints.map { try EtcdEndpoint($0) }, requestTimeout: .seconds(60))

        let lease = try await client.grantLease(seconds: 120)
        #expect(lease.seconds == 120)
        try await client.put("/liveness/one", value: Array("here".utf8), lease: lease)
        #expect(try await client.get("/liveness/one").keyValue?.value == Array("here".utf8))
        // A renewal gives it its whole time to live again.
        #expect(try await client.keepAlive(lease) == 120)
        #expect(try await client.timeToLive(lease).map { (1...120).contains($0) } == true)
        try await client.revoke(lease)
        #expect(try await client.get("/liveness/one").keyValue == nil)
        #expect(try await client.timeToLive(lease) == nil)
        await #expect(throws: EtcdError.self) { try await client.keepAlive(lease) }

        // Left alone, a lease expires and takes its key.
        let short = try await client.grantLease(seconds: 1)
        try await client.put("/liveness/two", value: Array("here".utf8), lease: short)
        let deadline = ContinuousClock.now + .seconds(120)
        while try await client.get("/liveness/two").keyValue != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try await client.get("/liveness/two").keyValue == nil)
        let error = await #expect(throws: EtcdError.self) { try await client.keepAlive(short) }
        #expect(error?.message.contains("expired or was revoked") == true, "\(String(describing: error))")
        await #expect(throws: EtcdError.self) { try await client.grantLease(seconds: 0) }
    }
}
