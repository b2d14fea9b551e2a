// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("prefsd killed during write storms")
struct CrashDurabilityTests {
    /// A stored value's place in one writer's history: (daemon run, write number).
    struct Stamp: Comparable {
        var run: Int
        var write: Int
        static func < (lhs: Stamp, rhs: Stamp) -> Bool { (lhs.run, lhs.write) < (rhs.run, rhs.write) }

        var value: PlistValue { .string("\(run)-\(write)") }

        init(run: Int, write: Int) {
            self.run = run
            self.write = write
        }

        init?(_ value: PlistValue?) {
            guard case .string(let text)? = value else { return nil }
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2 else { return nil }
            self.init(run: parts[0], write: parts[1])
        }
    }

    @Test(
        "SIGKILL in a loop: every domain file parses, every acknowledged synchronize survives, a stale socket is reclaimed"
    )
    func killLoop() throws {
        let home = try DaemonHome()
        let writers = 3
        let keys = 16
        // What a synchronize acknowledged, per domain and key: the newest stamp written before it.
        var acknowledged: [String: [String: Stamp]] = [:]
        var acknowledgements = 0
        var kills = 0
        for run in 1...20 {
            let daemon = try DaemonProcess(home)
            try daemon.waitUntilServing(home)
            let connections = try (0..<writers).map { _ in try WireTestConnection(path: home.socketPath) }
            for connection in connections { try connection.hello() }
            let killAfter = Double.random(in: 0.03...0.15)
            let pid = daemon.pid
            // Cancelled before the process is reaped, so that a late timer can never hit a reused pid.
            let killer = DispatchWorkItem { kill(pid, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + killAfter, execute: killer)
            var write = 0
            storm: while true {
                write += 1
                for (index, connection) in connections.enumerated() {
                    let domain = WireDomain("com.example.storm\(index)")
                    do {
                        for key in 0..<keys {
                            let stamp = Stamp(run: run, write: write * keys + key)
                            try connection.send(.set(domain, key: "k\(key)", value: stamp.value, expectedVersion: nil))
                        }
                        try connection.send(.synchronize)
                    } catch {
                        break storm
                    }
                }
                for (index, connection) in connections.enumerated() {
                    do {
                        for _ in 0..<keys { _ = try connection.receiveReply(timeout: .seconds(5)) }
                        let reply = try connection.receiveReply(timeout: .seconds(5))
                        guard case .success(.synchronize) = reply.outcome else { break storm }
                    } catch {
                        break storm
                    }
                    acknowledgements += 1
                    for key in 0..<keys {
                        acknowledged["com.example.storm\(index)", default: [:]]["k\(key)"] = Stamp(
                            run: run, write: write * keys + key)
                    }
                }
            }
            killer.cancel()
            let status = daemon.finish(timeout: .seconds(5))
            if status == 128 + SIGKILL { kills += 1 }

            for entry in try FileManager.default.contentsOfDirectory(atPath: home.preferences)
            where entry.hasSuffix(".plist") {
                let data = try #require(FileManager.default.contents(atPath: home.preferences + "/" + entry))
                let value = try PlistSerialization.decode(Array(data))
                #expect(value.dictionaryValue != nil, "\(entry) after run \(run)")
            }
            for (domain, expected) in acknowledged {
                let stored = try home.storedValues(domain) ?? [:]
                for (key, stamp) in expected {
                    let found = Stamp(stored[key])
                    #expect(
                        found.map { $0 >= stamp } == true,
                        "\(domain) \(key): acknowledged \(stamp), stored \(String(describing: stored[key]))")
                }
            }
        }
        print("kill loop: \(kills) SIGKILLs, \(acknowledgements) acknowledged synchronizes, all kept")
        #expect(kills == 20)
        #expect(acknowledgements > 0)
    }
}
