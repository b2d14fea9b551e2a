// SPDX-License-Identifier: Apache-2.0
import Logging
import PrefsSystemd
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A stand-in daemon for the `PrefsSystemd` tests: it uses the module exactly as `prefsd` will, in a process of its
/// own, so systemd's environment (`NOTIFY_SOCKET`, `LISTEN_FDS`, `JOURNAL_STREAM`, …) is real and per process.
///
/// Modes (the first argument):
/// - `notify [--reload] [--stop-after-ms N]`: prints what ``SystemdNotifier`` read, then runs a `ServiceGroup` of
///   ``SystemdWatchdogService`` and a server stand-in that sends `READY=1` and `STATUS=` (with `--reload`, then
///   `RELOADING=1` and `READY=1` again), and on graceful shutdown (SIGTERM, or after N ms) `STOPPING=1`.
/// - `activate`: adopts the one socket systemd passed, sends `READY=1`, accepts one connection, answers the line it
///   reads with `echo: <line>`, sends `STOPPING=1` and exits. Exit 3 when the passed socket is unsuitable, 4 when
///   the process was not socket-activated.
/// - `log`: bootstraps ``PrefsLogging`` and logs a few entries.
/// - `journal-capture PATH`: binds a datagram socket at PATH (journald's `/run/systemd/journal/socket`, inside a
///   private mount namespace the test makes), logs like `log`, and prints each datagram it received as
///   `datagram <hex>`: what journald would have been sent.
@main
struct PrefsSystemdFixture {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "notify":
            await notify(arguments: Array(arguments.dropFirst()))
        case "activate":
            activate()
        case "log":
            log()
        case "journal-capture" where arguments.count == 2:
            journalCapture(path: arguments[1])
        default:
            fail(
                "usage: PrefsSystemdFixture notify [--reload] [--stop-after-ms N] | activate | log | journal-capture PATH",
                status: 64)
        }
    }

    static func notify(arguments: [String]) async {
        var arguments = arguments
        let reload = arguments.first == "--reload"
        if reload { arguments.removeFirst() }
        let notifier = SystemdNotifier()
        print("notify-enabled=\(notifier.isEnabled)")
        print("watchdog-timeout-usec=\(notifier.watchdogTimeout.map { String(microseconds($0)) } ?? "none")")
        print("watchdog-interval-usec=\(notifier.watchdogInterval.map { String(microseconds($0)) } ?? "none")")
        let logger = Logger(label: "prefs.fixture")
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            // First, so that it is shut down last and keeps pinging while the server stand-in stops.
            .init(service: SystemdWatchdogService(notifier: notifier, logger: logger)),
            .init(service: ServerStandIn(notifier: notifier, reload: reload)),
        ]
        if arguments.count == 2, arguments[0] == "--stop-after-ms", let milliseconds = Int(arguments[1]) {
            services.append(
                .init(
                    service: Timer(delay: .milliseconds(milliseconds)),
                    successTerminationBehavior: .gracefullyShutdownGroup))
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm], logger: logger))
        do {
            try await group.run()
        } catch {
            fail("service group failed: \(error)", status: 1)
        }
        print("stopped")
    }

    /// Sends what `prefsd` sends at start-up and shutdown.
    struct ServerStandIn: Service {
        let notifier: SystemdNotifier
        let reload: Bool

        func run() async throws {
            try notifier.ready()
            try notifier.status("serving 2 domains, 1 client")
            if reload {
                try notifier.reloading()
                try notifier.ready(status: "reloaded")
            }
            do { try await gracefulShutdown() } catch {}
            try notifier.stopping(status: "flushing 2 domains")
        }
    }

    /// Returns after a delay, to end the group without a signal.
    struct Timer: Service {
        let delay: Duration

        func run() async throws {
            try await Task.sleep(for: delay)
        }
    }

    static func activate() {
        let socket: SocketActivation.ListeningSocket?
        do {
            socket = try SocketActivation.listeningSocket()
        } catch {
            fail("\(error)", status: error.code == .unsupportedSocket ? 3 : 1)
        }
        guard let socket else { fail("not socket-activated", status: 4) }
        print("socket descriptor=\(socket.descriptor) name=\(socket.name) path=\(socket.path ?? "none")")
        let notifier = SystemdNotifier()
        do {
            try notifier.ready(status: "listening on \(socket.path ?? "an unnamed socket")")
            // The activating connection is already queued; wait for it in case the socket is non-blocking.
            var descriptor = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 10_000) == 1 else { fail("no connection within 10 s", status: 1) }
            let connection = accept(socket.descriptor, nil, nil)
            guard connection >= 0 else { fail("accept: errno \(errno)", status: 1) }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(connection, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
            let reply = Array("echo: ".utf8) + line + [UInt8(ascii: "\n")]
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
            try notifier.stopping()
        } catch {
            fail("\(error)", status: 1)
        }
        print("served one connection")
    }

    static func journalCapture(path: String) {
        let journal = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard journal >= 0 else { fail("socket: errno \(errno)", status: 1) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("path too long", status: 1) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(journal, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { fail("bind \(path): errno \(errno)", status: 1) }
        log()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(journal, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { break }
            let hex = buffer.prefix(count).map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }
            print("datagram " + hex.joined())
        }
    }

    static func log() {
        PrefsLogging.bootstrap(identifier: "prefs-fixture", logLevel: .debug)
        print("destination=\(JournalLogHandler.detectedDestination)")
        var logger = Logger(label: "prefs.fixture")
        logger[metadataKey: "prefs.client.pid"] = "4242"
        logger.info(
            "domain written",
            metadata: [
                PrefsLogging.MetadataKey.domain: "com.example.app", PrefsLogging.MetadataKey.key: "Window Frame",
            ])
        logger.debug("first line\nsecond line")
        logger.trace("below the level, never written")
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    static func fail(_ message: String, status: Int32) -> Never {
        let text = Array("PrefsSystemdFixture: \(message)\n".utf8)
        _ = text.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(status)
    }
}
