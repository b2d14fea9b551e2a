// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

/// `systemd-socket-activate` (package `systemd`) binds the socket and starts prefsd on the first connection,
/// passing the socket as systemd would; `NOTIFY_SOCKET` points at a datagram socket the test binds.
/// (`scripts/install-deps.sh` installs it; `make test` runs that first.)
@Suite("prefsd under socket activation")
struct SystemdActivationTests {
    static let activator = "/usr/bin/systemd-socket-activate"

    func activate(
        _ home: DaemonHome, socket: String? = nil, notify: String, extra: [String] = []
    ) throws -> DaemonProcess {
        var arguments = ["-l", socket ?? home.socketPath, "--fdname=prefsd", "-E", "NOTIFY_SOCKET=\(notify)"]
        for (name, value) in home.environment where name != "PREFSD_SOCKET" { arguments += ["-E", "\(name)=\(value)"] }
        arguments += extra
        arguments.append(DaemonProcess.prefsd)
        return try DaemonProcess(home, executable: Self.activator, arguments: arguments)
    }

    func waitForSocket(_ path: String) throws {
        try ListeningSocket.wait(for: path)
    }

    @Test("activated: READY=1 with STATUS, WATCHDOG=1, serves the connecting client, STOPPING=1 and exit 0 on SIGTERM")
    func activation() throws {
        let home = try DaemonHome()
        try FileManager.default.createDirectory(atPath: home.directory.file("run"), withIntermediateDirectories: true)
        let notify = try NotifyListener(path: home.directory.file("notify"))
        let daemon = try activate(home, notify: notify.path, extra: ["-E", "WATCHDOG_USEC=400000"])
        try waitForSocket(home.socketPath)
        // The first connection starts prefsd; it is not lost while the daemon starts.
        let client = try WireTestConnection(path: home.socketPath)
        try client.hello()
        #expect(
            try client.call(.set(WireDomain("com.example.app"), key: "k", value: "v", expectedVersion: nil)).isSuccess)
        let startup = try notify.waitFor("READY=1")
        let ready = startup.last ?? ""
        #expect(ready.hasPrefix("READY=1\nSTATUS="))
        #expect(ready.range(of: #"STATUS=\d+ domains?, \d+ clients?$"#, options: .regularExpression) != nil)
        let watchdog = try notify.waitFor("WATCHDOG=1", timeout: .seconds(3))
        #expect(watchdog.last == "WATCHDOG=1")
        let status = try notify.waitFor("1 client", timeout: .seconds(5))
        #expect(status.last?.hasPrefix("STATUS=") == true)
        daemon.signalDaemon(SIGTERM)
        let stopping = try notify.waitFor("STOPPING=1")
        #expect(stopping.last?.hasPrefix("STOPPING=1\nSTATUS=stopping") == true)
        guard case .event(.closing(let error)) = try client.receiveMessage() else {
            Issue.record("no closing event")
            return
        }
        #expect(error.code == .shuttingDown)
        #expect(daemon.finish() == 0)
        #expect(try home.storedValues("com.example.app") == ["k": "v"])
        // The activated socket belongs to the activator: prefsd does not remove it.
        #expect(FileManager.default.fileExists(atPath: home.socketPath))
    }

    /// The socket's peer credentials name the activator, which called listen(), not prefsd: the claim's socket says
    /// the daemon answering is the one serving the directory.
    @Test("defaults through an activated prefsd says nothing about the directories it serves")
    func activatedDaemonServesTheDirectories() throws {
        let home = try DaemonHome()
        try FileManager.default.createDirectory(atPath: home.directory.file("run"), withIntermediateDirectories: true)
        let notify = try NotifyListener(path: home.directory.file("notify"))
        _ = notify
        // As systemd does it: the manager binds and listens, then starts prefsd as a process of its own with the
        // socket as descriptor 3 (systemd-socket-activate execs prefsd in its own process, so it cannot show this).
        let manager = """
            import os, socket, sys
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(sys.argv[2]); listener.listen(16)
            child = os.fork()
            if child == 0:
                os.dup2(listener.fileno(), 3)
                os.set_inheritable(3, True)
                os.environ.update(LISTEN_FDS="1", LISTEN_FDNAMES="prefsd", LISTEN_PID=str(os.getpid()))
                os.execv(sys.argv[1], [sys.argv[1]])
            _, status = os.waitpid(child, 0)
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let daemon = try DaemonProcess(
            home, executable: "/usr/bin/python3", arguments: ["-c", manager, DaemonProcess.prefsd, home.socketPath],
            environment: ["PREFSD_SOCKET": ""])
        try waitForSocket(home.socketPath)
        var environment = home.environment
        environment["PREFERENCES_DAEMON"] = "on"
        let defaults = BuiltProduct("defaults").path
        for arguments in [["write", "com.example.app", "k", "v"], ["read", "com.example.app", "k"]] {
            let result = try runProgram(defaults, arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            #expect(result.error == "", "\(arguments)")
        }
        #expect(daemon.daemonPID != daemon.pid, "prefsd runs as the manager's child, as under systemd")
        daemon.signalDaemon(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("with IdleExitSeconds, an activated daemon stays while a client is connected and exits 0 once idle")
    func idleExit() throws {
        let home = try DaemonHome(settings: ["IdleExitSeconds": 1])
        try FileManager.default.createDirectory(atPath: home.directory.file("run"), withIntermediateDirectories: true)
        let notify = try NotifyListener(path: home.directory.file("notify"))
        let daemon = try activate(home, notify: notify.path)
        try waitForSocket(home.socketPath)
        do {
            let client = try WireTestConnection(path: home.socketPath)
            try client.hello()
            _ = try notify.waitFor("READY=1")
            usleep(2_500_000)
            #expect(daemon.isRunning)
            #expect(
                try client.call(.set(WireDomain("com.example.app"), key: "k", value: 1, expectedVersion: nil)).isSuccess
            )
        }
        let start = ContinuousClock.now
        _ = try notify.waitFor("STOPPING=1", timeout: .seconds(10))
        #expect(daemon.finish() == 0)
        let idle = ContinuousClock.now - start
        #expect(idle < .seconds(5))
        #expect(try home.storedValues("com.example.app") == ["k": 1])
        #expect(daemon.standardError.contains("exiting after 1.0 seconds without clients"))
    }

    @Test(
        "a client running as another uid is refused with permissionDenied; the owner is served",
        .enabled(if: getuid() == 0, "needs root to run a client as nobody with setpriv"))
    func otherUserRefused() throws {
        let home = try DaemonHome()
        chmod(home.directory.path, 0o755)
        let open = home.directory.file("open")
        try FileManager.default.createDirectory(
            atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let socket = open + "/socket"
        let client = home.directory.file("client.py")
        try FileManager.default.copyItem(atPath: DaemonProcess.repository + "/docs/examples/client.py", toPath: client)
        chmod(client, 0o755)
        let notify = try NotifyListener(path: home.directory.file("notify"))
        let daemon = try activate(home, socket: socket, notify: notify.path)
        try waitForSocket(socket)
        // The activator's socket, not prefsd's own: opened to everyone, so that only SO_PEERCRED stands in the way.
        chmod(socket, 0o666)

        let stranger = try runProgram(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", client, "com.example.demo",
                "greeting", "hi",
            ],
            environment: ["PREFSD_SOCKET": socket])
        #expect(stranger.status == 1)
        #expect(stranger.output == "")
        #expect(
            stranger.error.hasSuffix(
                "RuntimeError: permissionDenied: prefsd serves root only; this client runs as uid 65534\n"))

        let owner = try runProgram(
            "/usr/bin/python3", [client, "com.example.demo", "greeting", "hi"], environment: ["PREFSD_SOCKET": socket])
        #expect(owner.status == 0, "\(owner.error)\n\(daemon.standardError)")
        #expect(owner.output == "protocol version 1\ngreeting = hi\n")
        daemon.signalDaemon(SIGTERM)
        #expect(daemon.finish() == 0)
        #expect(daemon.standardError.contains("refused a client of another user"))
    }
}
