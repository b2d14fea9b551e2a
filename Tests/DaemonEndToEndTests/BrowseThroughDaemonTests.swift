// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `defaults browse` through a running prefsd, in a real terminal (tmux): the browser's engine has the daemon as its
/// source, so another client's write shows at once and the browser's edits are the daemon's writes.
@Suite("defaults browse through prefsd", .enabled(if: TerminalSession.isAvailable, "tmux is not installed"))
struct BrowseThroughDaemonTests {
    @Test("another client's write appears; an edit is written by the daemon")
    func browseThroughTheDaemon() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let defaults = BuiltProduct("defaults").path
        var environment = home.environment
        environment["PREFERENCES_DAEMON"] = "on"
        environment["LANG"] = "C.UTF-8"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        #expect(
            try runProgram(defaults, ["write", "com.example.app", "Count", "-int", "1"], environment: environment)
                .status == 0)
        let session = try TerminalSession(
            "unset NO_COLOR; TERM=xterm-256color \(defaults) browse com.example.app; echo AFTER=$?; sleep 60",
            environment: environment)
        #expect(try session.waitForScreen { $0.containsText("prefsd at \(home.socketPath)") }.matched)
        #expect(try session.waitForScreen { $0.containsText("Count") }.matched)

        #expect(
            try runProgram(defaults, ["write", "com.example.app", "Theme", "dark"], environment: environment).status
                == 0)
        #expect(try session.waitForScreen { $0.containsText("Theme") && $0.containsText("dark") }.matched)

        try session.send("g")
        try session.send("e")
        try session.send("C-u")
        try session.send("5", literal: true)
        try session.send("Enter")
        #expect(try session.waitForScreen { $0.containsText("wrote Count") }.matched)
        let read = try runProgram(defaults, ["read", "com.example.app", "Count"], environment: environment)
        #expect(read.output == "5\n")
        try session.send("q")
        #expect(try session.waitForScreen { $0.containsText("AFTER=0") }.matched)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        #expect(try home.storedValues("com.example.app") == ["Count": 5, "Theme": "dark"])
    }
}
