// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

/// The built daemon under clients that try to exhaust it: memory is measured as the daemon's peak resident size
/// (`VmHWM`), processor time from `/proc/<pid>/stat`. The probes are scaled down from the ones in docs/DAEMON.md.
@Suite("prefsd, the built daemon, under abuse", .serialized)
struct PrefsdAbuseTests {
    static let big = WireDomain("com.example.big")

    /// A daemon serving a domain of about 1 MB of distinct strings (which the reply's writer cannot share).
    func daemonWithBigDomain(_ home: DaemonHome) throws -> DaemonProcess {
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let writer = try WireTestConnection(path: home.socketPath)
        try writer.hello()
        var values: PlistDictionary = [:]
        for index in 0..<256 {
            values["k\(index)"] = .string(String(index) + String(repeating: "x", count: 4000))
        }
        #expect(try writer.call(.writeDomain(Self.big, values: values, expectedVersion: nil)).isSuccess)
        #expect(try writer.call(.readDomain(Self.big)).isSuccess)
        return daemon
    }

    /// Sends `count` pipelined `readDomain` requests of the big domain on a new connection.
    func pipelineReads(_ home: DaemonHome, count: Int) throws -> WireTestConnection {
        let reader = try WireTestConnection(path: home.socketPath)
        try reader.hello()
        reader.setReceiveBuffer(4096)
        var frames: [UInt8] = []
        for index in 0..<count {
            frames += try WireFrame.encode(WireRequest(id: UInt64(index), .readDomain(Self.big)).dictionary)
        }
        try reader.sendRaw(frames)
        return reader
    }

    @Test("replies a client does not read are not built ahead: 64 pipelined 1 MB reads cost a few MB, not 64")
    func unreadRepliesAreNotBuiltAhead() throws {
        let home = try DaemonHome()
        let daemon = try daemonWithBigDomain(home)
        let before = daemon.peakResidentKiB
        let reader = try pipelineReads(home, count: 64)
        // Reading them all, slowly at first, is the end of the probe: the replies come one after the other.
        for index in 0..<64 {
            let reply = try reader.receiveReply(timeout: .seconds(30))
            #expect(reply.id == UInt64(index))
        }
        let growth = daemon.peakResidentKiB - before
        print("64 pipelined readDomain of 1 MB: prefsd's peak grew by \(growth) KiB")
        #expect(growth < 24 * 1024)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("the requests of a client that disconnected are dropped, not performed")
    func requestsOfAClosedConnectionAreDropped() throws {
        let home = try DaemonHome()
        let daemon = try daemonWithBigDomain(home)
        let descriptors = daemon.openDescriptorCount
        let processor = daemon.processorSeconds
        var reader: WireTestConnection? = try pipelineReads(home, count: 256)
        _ = reader
        reader = nil
        let deadline = ContinuousClock.now + .seconds(20)
        while daemon.openDescriptorCount > descriptors, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(daemon.openDescriptorCount <= descriptors)
        let bystander = try WireTestConnection(path: home.socketPath)
        try bystander.hello()
        #expect(try bystander.call(.synchronize).isSuccess)
        // Encoding the 256 replies nobody will read takes a good part of a second even in a release build (1.5 ms
        // each); dropping them, next to nothing.
        let used = daemon.processorSeconds - processor
        print("256 pipelined readDomain of 1 MB, then a disconnect: prefsd used \(used) s of processor")
        #expect(used < 0.2)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    /// A connection that sends the header of a frame of `length` bytes and `sent` bytes of its payload.
    func stalledUpload(_ home: DaemonHome, length: Int, sent: Int) throws -> WireTestConnection {
        let connection = try WireTestConnection(path: home.socketPath)
        try connection.hello()
        var bytes: [UInt8] = [
            UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
            UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
        ]
        bytes += Array("bplist00".utf8) + [UInt8](repeating: 0, count: sent - 8)
        try? connection.sendRaw(bytes)
        return connection
    }

    func closingError(_ connection: WireTestConnection, timeout: Duration = .seconds(20)) throws -> WireError? {
        guard case .event(.closing(let error)) = try connection.receiveMessage(timeout: timeout) else { return nil }
        return error
    }

    @Test("frames that stop arriving share one budget: the connection that would exceed it is closed")
    func stalledUploadsShareOneBudget() throws {
        let home = try DaemonHome(settings: [
            "MaxDomainBytes": 1_048_576, "MaxFrameBytes": 2_097_152,
            "MaxBufferedFrameBytes": 4_194_304, "FrameTimeoutSeconds": 600,
        ])
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let first = try stalledUpload(home, length: (2 << 20) - 1, sent: 1_500_000)
        let second = try stalledUpload(home, length: (2 << 20) - 1, sent: 1_500_000)
        let third = try stalledUpload(home, length: (2 << 20) - 1, sent: 1_500_000)
        let error = try closingError(third)
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .maxBufferedFrameBytes)
        // The others still hold their part; closing them frees the budget for a whole frame.
        _ = (first, second)
        let peak = daemon.peakResidentKiB
        print("three stalled 1.5 MB uploads against a 4 MiB budget: prefsd's peak \(peak) KiB")
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("a frame that stops arriving is closed with timedOut after FrameTimeoutSeconds, freeing its bytes")
    func stalledFrameTimesOut() throws {
        let home = try DaemonHome(settings: ["FrameTimeoutSeconds": 0.5])
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let stalled = try stalledUpload(home, length: 1 << 20, sent: 100_000)
        let error = try closingError(stalled)
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("FrameTimeoutSeconds") == true)
        let healthy = try WireTestConnection(path: home.socketPath)
        try healthy.hello()
        #expect(try healthy.call(.synchronize).isSuccess)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test(
        "prefsd raises its soft descriptor limit to hold MaxConnections, up to the hard limit, and says when it cannot",
        arguments: [(4096, 1064, false), (500, 500, true)])
    func descriptorLimitCoversTheTable(hard: Int, expectedSoft: Int, warns: Bool) throws {
        let home = try DaemonHome(settings: ["MaxConnections": 1000])
        // The soft limit systemd gives a service is low (1,024); here lower still, under a higher hard limit.
        let limited = """
            import os, resource, sys
            resource.setrlimit(resource.RLIMIT_NOFILE, (100, \(hard)))
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let daemon = try DaemonProcess(
            home, executable: "/usr/bin/python3", arguments: ["-c", limited, DaemonProcess.prefsd])
        try daemon.waitUntilServing(home)
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers == [expectedSoft, hard], "\(line)")
        #expect(daemon.standardError.contains("raise LimitNOFILE= or lower MaxConnections") == warns)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("out of descriptors, prefsd pauses accepting instead of spinning, logs it once, and recovers")
    func descriptorExhaustion() throws {
        let home = try DaemonHome(settings: ["MaxConnections": 1000])
        // 48 descriptors, none of them inherited from this test process (other tests run at the same time).
        let limited = """
            import os, resource, sys
            os.closerange(3, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let daemon = try DaemonProcess(
            home, executable: "/usr/bin/python3", arguments: ["-c", limited, DaemonProcess.prefsd])
        try daemon.waitUntilServing(home)
        // More connections than descriptors: the kernel queues the rest in the listening socket's backlog.
        var connections: [WireTestConnection] = []
        for _ in 0..<64 { connections.append(try WireTestConnection(path: home.socketPath)) }
        try daemon.waitForLog("cannot accept a connection")
        // While accepting is paused, the reserve is given back: the process is not left without descriptors (where
        // libdispatch crashes), and tries to accept again only when the reserve and two more are free.
        let start = daemon.processorSeconds
        let clock = ContinuousClock.now
        var fewestOpen = Int.max
        for _ in 0..<15 {
            usleep(100_000)
            fewestOpen = min(fewestOpen, daemon.openDescriptorCount)
        }
        let used = daemon.processorSeconds - start
        let elapsed = ContinuousClock.now - clock
        print("out of descriptors: prefsd used \(used) s of processor in \(elapsed); \(fewestOpen) descriptors open")
        #expect(used < 0.3)
        // The reserve is 8 (DaemonServer.spareDescriptorCount); at least half of it free leaves room for transients.
        #expect(fewestOpen <= 48 - 4, "prefsd gave back too few of its reserve of 8 descriptors")
        // Descriptors free again: the connections waiting in the backlog, and new ones, are served. The newcomers
        // queue behind the closed ones, so accepting them can run out of descriptors again while some newcomers are
        // being set up: none of those may be lost.
        connections.removeAll()
        var newcomers: [WireTestConnection?] = []
        do {
            for _ in 0..<24 { newcomers.append(try WireTestConnection(path: home.socketPath)) }
            for newcomer in newcomers { try newcomer?.send(.hello(WireHello(client: "tests"))) }
            // Each closes once answered, so that those still waiting in the backlog find descriptors free.
            for index in newcomers.indices {
                if case .failure(let error) = try newcomers[index]?.receiveReply().outcome {
                    Issue.record("newcomer \(index) was refused: \(error)")
                }
                newcomers[index] = nil
            }
            let last = try WireTestConnection(path: home.socketPath)
            try last.hello()
            #expect(try last.call(.synchronize).isSuccess)
        } catch {
            Issue.record("no answer once descriptors were free: \(error); prefsd: \(daemon.standardError)")
        }
        let lines = daemon.standardError.split(separator: "\n").filter { $0.contains("cannot accept a connection") }
        #expect(lines.count == 1)
        daemon.signal(SIGTERM)
        let status = daemon.finish()
        #expect(status == 0, "prefsd exited with \(status); its standard error: \(daemon.standardError)")
    }

    @Test("MaxDepth is capped to what the daemon handles; a value nested 200,000 deep is refused, not a crash")
    func hugeDepthSettingIsRefused() throws {
        let home = try DaemonHome(settings: ["MaxDepth": 100_000_000])
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        #expect(daemon.standardError.contains("setting MaxDepth of domain prefsd is 100000000"))
        let connection = try WireTestConnection(path: home.socketPath)
        try connection.hello()
        try connection.sendRaw(HandBuiltFrame.setNestedArrays(depth: 200_000))
        let error = try closingError(connection)
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .maxDepth)
        #expect(daemon.isRunning)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    /// The limits a new connection's `hello` reports.
    func helloLimits(_ home: DaemonHome) throws -> WireLimits? {
        let connection = try WireTestConnection(path: home.socketPath)
        guard case .success(.hello(let hello)) = try connection.call(.hello(WireHello(client: "tests"))) else {
            return nil
        }
        return hello.limits
    }

    func writeSettings(_ home: DaemonHome, _ settings: PlistDictionary) throws {
        let bytes = try PlistSerialization.encode(.dictionary(settings), format: .xml)
        try Data(bytes).write(to: URL(fileURLWithPath: home.preferences + "/prefsd.plist"))
    }

    @Test("SIGHUP rereads the settings, logs what changed, and keeps the old ones when the new are invalid")
    func reloadOnSIGHUP() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        #expect(try helloLimits(home)?.maxSuites == WireLimits.default.maxSuites)
        try writeSettings(home, ["MaxSuites": 2, "LogLevel": "debug"])
        daemon.signalDaemon(SIGHUP)
        try daemon.waitForLog("setting changed: MaxSuites 64 -> 2")
        #expect(daemon.standardError.contains("setting changed: LogLevel info -> debug"))
        #expect(try helloLimits(home)?.maxSuites == 2)
        try writeSettings(home, ["MaxSuites": 8, "MaxDepth": 100_000_000])
        daemon.signalDaemon(SIGHUP)
        try daemon.waitForLog("reload refused: setting MaxDepth of domain prefsd is 100000000")
        #expect(try helloLimits(home)?.maxSuites == 2)
        #expect(daemon.isRunning)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
