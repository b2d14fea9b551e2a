// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsSystemd

/// Socket activation for real: `systemd-socket-activate` (from the `systemd` package) binds the socket, waits for
/// the first connection, and `exec`s the fixture with `LISTEN_FDS`, `LISTEN_PID` and `LISTEN_FDNAMES` set, as
/// systemd does for `prefsd.socket`.
@Suite struct SocketActivationTests {
    static let activator = "/usr/bin/systemd-socket-activate"

    /// Waits until the activator has bound `path`.
    static func waitForSocket(_ path: String) throws {
        try ListeningSocket.wait(for: path)
    }

    @Test func adoptsTheActivatedSocketAndServesTheFirstConnection() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.activator), "install the systemd package")
        let directory = try TemporaryDirectory(prefix: "prefs-activate")
        let socketPath = directory.file("prefsd.socket")
        let notify = try UnixSocket.boundDatagram(at: directory.file("notify"))
        let child = try ChildProcess(
            Self.activator,
            [
                "--listen=\(socketPath)", "--fdname=prefsd", "--setenv=NOTIFY_SOCKET=\(directory.file("notify"))",
                ChildProcess.fixture, "activate",
            ])
        try Self.waitForSocket(socketPath)
        // This connection is what makes the activator start the fixture; it must not be lost on the way.
        let client = try UnixSocket.connectedStream(to: socketPath)
        try client.send("hello prefsd\n")
        let reply = try client.readLine(timeout: .seconds(10))
        var texts: [String] = []
        while let text = try notify.receive(timeout: .seconds(10)) {
            texts.append(text)
            if text.hasPrefix("STOPPING=1") { break }
        }
        let result = child.finish()

        #expect(reply == "echo: hello prefsd")
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("socket descriptor=3 name=prefsd path=\(socketPath)\n"), "\(result)")
        #expect(texts == ["READY=1\nSTATUS=listening on \(socketPath)", "STOPPING=1"], "\(result)")
    }

    @Test func rejectsADatagramSocket() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-activate")
        let socketPath = directory.file("prefsd.socket")
        // As if the socket unit said ListenDatagram=: the daemon must refuse it by name, not fail later in NIO.
        let child = try ChildProcess(
            Self.activator, ["--datagram", "--listen=\(socketPath)", ChildProcess.fixture, "activate"])
        try Self.waitForSocket(socketPath)
        try UnixSocket.unboundDatagram().send(datagram: "x", to: socketPath)
        let result = child.finish()
        #expect(result.status == 3, "\(result)")
        #expect(
            result.standardError.contains(
                "passed descriptor 3 (unknown) is not a listening AF_UNIX stream socket; "
                    + "the socket unit must use ListenStream= with a path"),
            "\(result)")
    }

    @Test func rejectsMoreThanOneSocket() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-activate")
        let first = directory.file("first.socket")
        let child = try ChildProcess(
            Self.activator,
            ["--listen=\(first)", "--listen=\(directory.file("second.socket"))", ChildProcess.fixture, "activate"])
        try Self.waitForSocket(first)
        let client = try UnixSocket.connectedStream(to: first)
        let result = child.finish()
        _ = client
        #expect(result.status == 1, "\(result)")
        #expect(result.standardError.contains("systemd passed 2 sockets, expected one: descriptor 3"), "\(result)")
    }

    @Test func descriptorsForAnotherProcessAreIgnored() throws {
        // LISTEN_PID names another process: the variables were inherited, not meant for the fixture.
        let child = try ChildProcess(
            ChildProcess.fixture, ["activate"], environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1"])
        let result = child.finish()
        #expect(result.status == 4, "\(result)")
        #expect(result.standardError.contains("not socket-activated"), "\(result)")
    }

    @Test func notActivatedMeansNoSockets() throws {
        // The test runner itself was not socket-activated (ChildProcess strips the variables from children, and a
        // runner under systemd would not be given LISTEN_PID of its own).
        #expect(try SocketActivation.listeningSockets().isEmpty)
        #expect(try SocketActivation.listeningSocket() == nil)
    }

    @Test func checksEachDescriptor() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-activate")
        let listening = try UnixSocket.listeningStream(at: directory.file("listening"))
        let socket = try SocketActivation.validate(listening.descriptor, name: "prefsd")
        #expect(socket == .init(descriptor: listening.descriptor, name: "prefsd", path: directory.file("listening")))

        let notListening = try UnixSocket.boundStream(at: directory.file("bound"))
        let error = #expect(throws: PrefsSystemdError.self) {
            try SocketActivation.validate(notListening.descriptor, name: "prefsd")
        }
        #expect(error?.code == .unsupportedSocket)
        #expect(error?.message.contains("is not a listening AF_UNIX stream socket") == true)

        let closed = -1 as Int32
        let badDescriptor = #expect(throws: PrefsSystemdError.self) {
            try SocketActivation.validate(closed, name: "gone")
        }
        #expect(badDescriptor?.code == .unsupportedSocket)
        #expect("\(badDescriptor!)".contains("sd_is_socket_unix: Bad file descriptor"))
    }
}
