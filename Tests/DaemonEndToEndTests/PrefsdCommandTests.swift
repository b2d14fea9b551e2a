// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDaemon
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("prefsd, the built daemon")
struct PrefsdCommandTests {
    @Test("--version and --help")
    func commandLine() throws {
        let version = try runProgram(DaemonProcess.prefsd, ["--version"])
        #expect(version.status == 0)
        // What scripts/build-deb.sh, scripts/check-deb.sh and debian/rules parse.
        #expect(version.output == "prefsd \(PrefsDaemonVersion.current)\n")
        #expect(version.output == "prefsd 1.0.0\n")
        #expect(version.error == "")
        let help = try runProgram(DaemonProcess.prefsd, ["--help"])
        #expect(help.status == 0)
        #expect(help.output == Prefsd.usage)
    }

    @Test(
        "a usage error: the reason, a hint, status 2, not the usage text",
        arguments: [
            (["--bogus"], "unknown argument '--bogus'"),
            (["--sokcet", "/tmp/s"], "unknown argument '--sokcet'; did you mean '--socket'?"),
            (["-version"], "unknown argument '-version'; did you mean '--version'?"),
            (["--socket", "/tmp/s", "--hepl"], "unknown argument '--hepl'; did you mean '--help'?"),
            (["--socket"], "--socket needs a path"),
            (["--completion", "tcsh"], "--completion takes bash, zsh or fish"),
            (["--completion"], "--completion takes bash, zsh or fish"),
        ])
    func usageError(arguments: [String], reason: String) throws {
        let result = try runProgram(DaemonProcess.prefsd, arguments)
        #expect(result.status == 2)
        #expect(result.output == "")
        #expect(result.error == "prefsd: \(reason)\nRun 'prefsd --help' for usage.\n")
    }

    static let bash = ["/usr/bin/bash", "/bin/bash"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "--completion bash: the script, run in bash, completes the options and --socket's path",
        .enabled(if: bash != nil, "bash is not installed"))
    func bashCompletion() throws {
        let directory = try TemporaryDirectory(prefix: "prefsd-completion")
        for name in ["prefs.socket", "plain file"] {
            #expect(FileManager.default.createFile(atPath: directory.file(name), contents: Data()))
        }
        func complete(_ words: [String]) throws -> String {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let result = try runProgram(
                try #require(Self.bash),
                [
                    "-c",
                    """
                    cd '\(directory.path)' || exit 1
                    source <('\(DaemonProcess.prefsd)' --completion bash)
                    COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _prefsd
                    printf '%s\\n' "${COMPREPLY[@]}"
                    """,
                ])
            #expect(result.status == 0, "\(words): \(result.error)")
            #expect(result.error == "", "\(words)")
            return result.output
        }
        #expect(try complete(["prefsd", ""]) == "--socket\n--help\n--version\n--completion\n")
        #expect(try complete(["prefsd", "--s"]) == "--socket\n")
        #expect(try complete(["prefsd", "--socket", "pr"]) == "prefs.socket\n")
        #expect(
            try complete(["prefsd", "--socket", "p"]).split(separator: "\n").sorted() == ["plain file", "prefs.socket"])
        #expect(try complete(["prefsd", "--socket", "prefs.socket", "--v"]) == "--version\n")
        #expect(try complete(["prefsd", "--completion", ""]) == "bash\nzsh\nfish\n")
        for shell in ["zsh", "fish"] {
            let script = try runProgram(DaemonProcess.prefsd, ["--completion", shell])
            #expect(script.status == 0)
            #expect(script.output.contains("completion for prefsd (Preferences for Linux)"), "\(shell)")
        }
    }

    @Test("started by hand: serves the Python example, refuses a second daemon, flushes and exits 0 on SIGTERM")
    func foreground() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)

        // The real daemon binds under umask 0177: socket 0600 in a directory it created 0700.
        let socketMode = try FileManager.default.attributesOfItem(atPath: home.socketPath)[.posixPermissions] as? Int
        #expect(socketMode == 0o600)
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: home.directory.file("run"))[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)

        let client = try runProgram(
            "/usr/bin/env",
            [
                "python3", DaemonProcess.repository + "/docs/examples/client.py", "com.example.demo", "greeting",
                "hello",
            ],
            environment: home.environment)
        #expect(client.status == 0)
        #expect(client.output == "protocol version 1\ngreeting = hello\n")
        #expect(client.error == "")

        // A second daemon on the same directory is refused, on the same socket or another, naming the first.
        let first = "another prefsd (pid \(daemon.pid) on \(home.socketPath)) serves the Preferences directory "
        for socket in [home.socketPath, home.directory.file("run/other-socket")] {
            var environment = home.environment
            environment["PREFSD_SOCKET"] = socket
            let second = try runProgram(DaemonProcess.prefsd, [], environment: environment)
            #expect(second.status == 1)
            #expect(second.error.contains(first + home.preferences), "\(second.error)")
            #expect(!FileManager.default.fileExists(atPath: home.directory.file("run/other-socket")))
        }

        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        #expect(try home.storedValues("com.example.demo") == ["greeting": "hello"])
        #expect(!FileManager.default.fileExists(atPath: home.socketPath))
        let log = daemon.standardError
        #expect(log.contains("info prefsd.server: serving preferences socket=\(home.socketPath)"))
        #expect(log.contains("info prefsd.store: every domain is written"))
        #expect(log.hasSuffix("info prefsd: stopped\n"))
    }

    @Test("malformed, oversized and truncated frames leave the real daemon serving others")
    func badFrames() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let bystander = try WireTestConnection(path: home.socketPath)
        try bystander.hello()
        let bad: [[UInt8]] = [
            [0, 0, 0, 5] + Array("hello".utf8), [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 40, 98, 112, 108, 105],
        ]
        for (index, bytes) in bad.enumerated() {
            let offender = try WireTestConnection(path: home.socketPath)
            try offender.sendRaw(bytes)
            if index == 2 { offender.shutdownWrite() }
            guard case .event(.closing(let error)) = try offender.receiveMessage() else {
                Issue.record("no closing event for bad frame \(index)")
                continue
            }
            #expect(error.code == (index == 1 ? .limitExceeded : .malformedFrame))
            #expect(
                try bystander.call(.set(WireDomain("a"), key: "k\(index)", value: 1, expectedVersion: nil)).isSuccess)
        }
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        #expect(try home.storedValues("a") == ["k0": 1, "k1": 1, "k2": 1])
    }

    @Test("a change made by process A reaches a subscriber in process B with old and new value")
    func crossProcess() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let script = """
            import os, plistlib, socket, struct, sys
            def read_exactly(s, n):
                data = b""
                while len(data) < n:
                    chunk = s.recv(n - len(data))
                    if not chunk: raise ConnectionError("closed")
                    data += chunk
                return data
            def send(s, message):
                payload = plistlib.dumps(message, fmt=plistlib.FMT_BINARY)
                s.sendall(struct.pack(">I", len(payload)) + payload)
            def receive(s):
                return plistlib.loads(read_exactly(s, struct.unpack(">I", read_exactly(s, 4))[0]))
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(os.environ["PREFSD_SOCKET"])
                send(s, {"id": 1, "op": "hello", "version": 1})
                receive(s)
                send(s, {"id": 2, "op": "subscribe", "domain": "com.example.app", "key": "Theme"})
                print("snapshot", receive(s)["values"], flush=True)
                event = receive(s)
                print(event["event"], event["key"], event["old"], "->", event["new"], event["origin"]["kind"])
            """
        let subscriber = try DaemonProcess(
            home, executable: "/usr/bin/env", arguments: ["python3", "-c", script])
        let writer = try WireTestConnection(path: home.socketPath)
        try writer.hello()
        _ = try writer.call(.set(WireDomain("com.example.app"), key: "Theme", value: "light", expectedVersion: nil))
        let deadline = ContinuousClock.now + .seconds(10)
        while !subscriber.standardOutput.contains("snapshot"), ContinuousClock.now < deadline { usleep(10_000) }
        _ = try writer.call(.set(WireDomain("com.example.app"), key: "Theme", value: "dark", expectedVersion: nil))
        #expect(subscriber.finish() == 0)
        #expect(subscriber.standardOutput == "snapshot {'Theme': 'light'}\nchange Theme light -> dark client\n")
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("1,000 concurrent connections are served")
    func thousandConnections() throws {
        let home = try DaemonHome(settings: ["MaxConnections": 2000])
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let start = ContinuousClock.now
        var connections: [WireTestConnection] = []
        for _ in 0..<1000 { connections.append(try WireTestConnection(path: home.socketPath)) }
        for connection in connections { try connection.send(.hello(WireHello(client: "load"))) }
        for (index, connection) in connections.enumerated() {
            #expect(try connection.receiveReply(timeout: .seconds(30)).outcome.isSuccess)
            try connection.send(.set(WireDomain("com.example.load"), key: "c\(index)", value: 1, expectedVersion: nil))
        }
        for connection in connections { #expect(try connection.receiveReply(timeout: .seconds(30)).outcome.isSuccess) }
        let elapsed = ContinuousClock.now - start
        print("1000 connections: connect, hello and set in \(elapsed)")
        let check = try WireTestConnection(path: home.socketPath)
        try check.hello()
        guard case .success(.readDomain(let values, _)) = try check.call(.readDomain(WireDomain("com.example.load")))
        else {
            Issue.record("readDomain failed")
            return
        }
        #expect(values.count == 1000)
        connections.removeAll()
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("a subscriber that never reads does not grow the daemon's memory without bound")
    func neverReadingSubscriber() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let app = WireDomain("com.example.flood")
        let idle = try WireTestConnection(path: home.socketPath)
        try idle.hello()
        _ = try idle.call(.subscribe(WireSubscriptionFilter(.domain(app))))
        let writer = try WireTestConnection(path: home.socketPath)
        try writer.hello()
        func storm(round: Int) throws {
            let value = PlistValue.string(
                String(repeating: Character(UnicodeScalar(UInt8(97 + round % 26))), count: 1024))
            for key in 0..<1000 {
                try writer.send(.set(app, key: "key\(key)", value: value, expectedVersion: nil))
            }
            for _ in 0..<1000 { _ = try writer.receiveReply(timeout: .seconds(30)) }
        }
        do {
            for round in 0..<3 { try storm(round: round) }
        } catch {
            Issue.record(
                "the writer failed: \(error); daemon: \(daemon.isRunning ? "running" : "exited \(daemon.finish())") \(daemon.standardError)"
            )
            return
        }
        let warm = daemon.residentKiB
        do {
            for round in 3..<20 { try storm(round: round) }
        } catch {
            Issue.record(
                "the writer failed: \(error); daemon: \(daemon.isRunning ? "running" : "exited \(daemon.finish())") \(daemon.standardError)"
            )
            return
        }
        let after = daemon.residentKiB
        print("never-reading subscriber: daemon RSS \(warm) KiB after 3 MB of changes, \(after) KiB after 20 MB")
        #expect(after - warm < 48 * 1024)
        #expect(try writer.call(.synchronize).isSuccess)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}

extension Result where Success == WireResult, Failure == WireError {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
