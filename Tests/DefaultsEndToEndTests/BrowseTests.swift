// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `defaults browse` in a real terminal: tmux runs it, `send-keys` types, `capture-pane` reads the screen, and
/// another `defaults` writes meanwhile.
@Suite("defaults browse in a terminal", .enabled(if: TerminalSession.isAvailable, "tmux is not installed"))
struct BrowseTests {
    /// A sandbox with a domain in the user, system and forced layers.
    private func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.Editor", "FontSize", "-int", "12"])
        try sandbox.succeed(["write", "com.example.Editor", "Theme", "dark"])
        try sandbox.succeed(["write", "com.example.Editor", "日本語", "値です"])
        try sandbox.domain("com.example.Editor", "{ Theme = light; Spelling = yes; }", directory: "system")
        try sandbox.domain("com.example.Editor", "{ Telemetry = no; }", directory: "system/forced")
        return sandbox
    }

    /// Runs `defaults browse` in a terminal; after it ends, the shell prints its exit status and the terminal's
    /// `echo` and `icanon` modes, which a browser that did not restore the terminal would leave off.
    private func browse(
        _ sandbox: Sandbox, _ arguments: String = "com.example.Editor", columns: Int = 100, rows: Int = 30,
        environment: [String: String] = [:]
    ) throws -> TerminalSession {
        var variables = sandbox.environment
        let term = environment["TERM"] ?? "xterm-256color"
        variables["LANG"] = "C.UTF-8"
        variables["PREFERENCES_DAEMON"] = "off"
        variables["SWIFT_BACKTRACE"] = "enable=no"
        variables.merge(environment) { _, new in new }
        let command =
            "\(environment["NO_COLOR"] == nil ? "unset NO_COLOR; " : "")TERM=\(term) \(sandbox.defaults.path) browse \(arguments); echo \"AFTER=$?\"; "
            + "stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e icanon | tr '\\n' ' '; echo; sleep 60"
        let session = try TerminalSession(command, columns: columns, rows: rows, environment: variables)
        try #require(
            session.waitForScreen { $0.containsText("defaults browse ·") || $0.containsText("AFTER=") }.matched)
        return session
    }

    /// The browser has ended with `status`, and the terminal is as before: the normal screen, echo and line mode on.
    private func expectRestored(
        _ session: TerminalSession, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let (screen, ended) = try session.waitForScreen { $0.containsText("AFTER=") && $0.containsText("icanon") }
        #expect(ended, "\(screen)", sourceLocation: sourceLocation)
        #expect(screen.containsText("AFTER=\(status)"), "\(screen)", sourceLocation: sourceLocation)
        let modes = screen.split(separator: "\n").first { $0.containsText("icanon") }.map { $0.split(separator: " ") }
        #expect(
            modes?.contains("icanon") == true && modes?.contains("echo") == true, "\(screen)",
            sourceLocation: sourceLocation)
        #expect(try session.display("#{alternate_on}") == "0", sourceLocation: sourceLocation)
    }

    @Test("the domain's keys show with their layers; an edit is written; q quits and restores the terminal")
    func editAndQuit() throws {
        let sandbox = try sandbox()
        let session = try browse(sandbox)
        let screen = try session.screen()
        #expect(screen.containsText("com.example.Editor") && screen.containsText("FUS"))
        #expect(screen.containsText("! Telemetry"))
        #expect(screen.containsText("^ Theme"))
        try session.send("e")
        try session.send("C-u")
        try session.send("42", literal: true)
        try session.send("Enter")
        #expect(try session.waitForScreen { $0.containsText("wrote FontSize") }.matched)
        #expect(try sandbox.run(["read", "com.example.Editor", "FontSize"]).standardOutput == "42\n")
        try session.send("q")
        try expectRestored(session, status: 0)
    }

    @Test("a write by another process appears at once, highlighted")
    func liveUpdate() throws {
        let sandbox = try sandbox()
        let session = try browse(sandbox)
        let start = ContinuousClock.now
        try sandbox.succeed(["write", "com.example.Editor", "Theme", "solarized"])
        let (screen, shown) = try session.waitForScreen(escapes: true) { $0.containsText("solarized") }
        let elapsed = ContinuousClock.now - start
        #expect(shown, "\(screen)")
        // Green (256-colour 156) marks a key another process changed.
        #expect(screen.containsText("38;5;156m"))
        #expect(elapsed < .seconds(2), "shown after \(elapsed)")
        try session.send("q")
        try expectRestored(session, status: 0)
    }

    @Test("a forced key is refused, naming its file; another process's write during an edit is not overwritten")
    func forcedAndConflict() throws {
        let sandbox = try sandbox()
        let session = try browse(sandbox)
        // FontSize, Spelling, Telemetry, Theme, 日本語: Telemetry is third.
        try session.send("j")
        try session.send("j")
        try session.send("e")
        #expect(try session.waitForScreen { $0.containsText("forced by the administrator") }.matched)
        try session.send("j")
        try session.send("e")
        try session.send("C-u")
        try session.send("mine", literal: true)
        try sandbox.succeed(["write", "com.example.Editor", "Theme", "theirs"])
        try session.send("Enter")
        #expect(
            try session.waitForScreen { $0.containsText("Theme changed since it was shown: it is now theirs") }.matched)
        #expect(try sandbox.run(["read", "com.example.Editor", "Theme"]).standardOutput == "theirs\n")
        try session.send("C-c")
        try expectRestored(session, status: 0)
    }

    @Test("the layout follows the terminal's size; wide characters line up")
    func resizeAndWideCharacters() throws {
        let sandbox = try sandbox()
        let session = try browse(sandbox, columns: 100, rows: 24)
        func columnOf(_ word: String, onLineWith key: String, in screen: String) -> Int? {
            guard let line = screen.split(separator: "\n").first(where: { $0.containsText(key) }),
                let range = line.range(of: word)
            else { return nil }
            return TerminalWidth.cells(line[..<range.lowerBound])
        }
        var screen = try session.screen()
        #expect(screen.split(separator: "\n").count == 24)
        let integer = columnOf(" integer", onLineWith: "FontSize", in: screen)
        #expect(integer != nil && integer == columnOf(" string", onLineWith: "日本語", in: screen))
        try session.resize(columns: 130, rows: 40)
        screen = try session.waitForScreen { $0.split(separator: "\n").count == 40 }.screen
        let wider = columnOf(" integer", onLineWith: "FontSize", in: screen)
        #expect(wider != nil && wider! > integer!)
        #expect(wider == columnOf(" string", onLineWith: "日本語", in: screen))
        try session.send("q")
        try expectRestored(session, status: 0)
    }

    @Test("escape sequences in values are shown escaped, never sent to the terminal")
    func hostileValues() throws {
        let sandbox = try sandbox()
        try sandbox.succeed(["write", "com.example.Editor", "Theme", "-string", "\u{1b}]2;pwned\u{07}\u{1b}[31mred"])
        let session = try browse(sandbox)
        let title = try session.display("#{pane_title}")
        #expect(try session.screen().containsText("\\e]2;pwned\\u{7}\\e[31"))
        #expect(try session.display("#{pane_title}") == title)
        #expect(title != "pwned")
        try session.send("q")
        try expectRestored(session, status: 0)
    }

    @Test("SIGTERM ends the browser and gives the terminal back")
    func terminated() throws {
        let session = try browse(try sandbox())
        let shell = try session.display("#{pane_pid}")
        let kill = Process()
        kill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        kill.arguments = ["-TERM", "-P", shell, "-x", "defaults-browse"]
        try kill.run()
        kill.waitUntilExit()
        try expectRestored(session, status: 0)
    }

    @Test("NO_COLOR draws without colours; TERM=dumb refuses with a message")
    func noColorAndDumbTerminal() throws {
        let sandbox = try sandbox()
        let plain = try browse(sandbox, environment: ["NO_COLOR": "1"])
        #expect(!(try plain.screen(escapes: true)).containsText("38;5;"))
        try plain.send("q")
        try expectRestored(plain, status: 0)
        let dumb = try browse(sandbox, environment: ["TERM": "dumb"])
        let screen = try dumb.waitForScreen { $0.containsText("AFTER=") }.screen
        #expect(screen.containsText("defaults browse: the terminal (TERM=dumb) cannot show a full-screen browser"))
        #expect(screen.containsText("AFTER=1"))
    }

    @Test("without a terminal, browse says it needs one")
    func notATerminal() throws {
        let result = try sandbox().run(["browse"])
        #expect(result.status == 1)
        #expect(result.standardError == "defaults browse: standard input and output must be a terminal\n")
    }
}

/// Cell widths as a terminal counts them, for the tests' column checks: East Asian wide characters take two.
enum TerminalWidth {
    static func cells(_ text: Substring) -> Int {
        text.unicodeScalars.reduce(0) { count, scalar in
            let value = scalar.value
            let wide =
                (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
                || (0xFF00...0xFF60).contains(value) || (0xFFE0...0xFFE6).contains(value)
            return count + (wide ? 2 : 1)
        }
    }
}
