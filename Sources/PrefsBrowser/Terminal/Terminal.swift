// SPDX-License-Identifier: Apache-2.0
import CPrefsCurses
import Glibc
import Synchronization

/// The terminal, through ncurses: the one file of this module that calls C.
///
/// It owns the screen from ``open(colors:)`` to ``close()``: the alternate screen, raw input (Control-C is a key),
/// no echo, the keypad's keys. The terminal is given back on every way out: ``close()``, and on a fatal signal
/// (SIGSEGV, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE: a crash) a handler that writes the terminal's own reset
/// sequences and restores its modes, with async-signal-safe calls only, before the signal's default action.
/// SIGTERM, SIGINT and SIGHUP set ``stopRequested``, which the browser's loop sees within one input timeout.
final class Terminal {
    /// How many colours the screen uses.
    enum Colors: Sendable {
        case none
        case basic
        case extended
    }

    let colors: Colors
    /// The color pairs made so far, by style.
    private var pairs: [Style.Color: Int16] = [:]
    private var lastPair: Int16 = 0

    private init(colors: Colors) {
        self.colors = colors
    }

    /// Why the terminal cannot run the browser, or `nil` when it can: `TERM` unset or `dumb`, or not a terminal.
    static func refusal(environment term: String?) -> String? {
        guard isatty(0) == 1, isatty(1) == 1 else { return "standard input and output must be a terminal" }
        guard let term, !term.isEmpty, term != "dumb" else {
            return "the terminal (TERM=\(term ?? "")) cannot show a full-screen browser; use defaults read"
        }
        return nil
    }

    /// Takes over the terminal.
    /// - Parameter wantsColors: `false` under `NO_COLOR`.
    /// - Throws: ``BrowserError`` when ncurses cannot start on this terminal.
    static func open(wantsColors: Bool) throws(BrowserError) -> Terminal {
        // Wide characters need a UTF-8 locale: the user's, else C.UTF-8.
        setlocale(LC_ALL, "")
        if !currentLocaleIsUTF8() { setlocale(LC_CTYPE, "C.UTF-8") }
        EmergencyRestore.capture()
        guard let output = fdopen(1, "w"), let input = fdopen(0, "r"), let screen = newterm(nil, output, input) else {
            throw BrowserError(
                .terminal,
                "cannot start the terminal browser on TERM=\(getenv("TERM").map { String(cString: $0) } ?? "")")
        }
        _ = set_term(screen)
        _ = raw()
        _ = noecho()
        _ = nonl()
        _ = keypad(prefs_curses_standard_screen(), true)
        _ = curs_set(0)
        // Escape alone is a key here: wait 25 ms, not a second, for the rest of a sequence.
        set_escdelay(25)
        EmergencyRestore.install()
        var colors = Colors.none
        if wantsColors, has_colors() {
            _ = start_color()
            _ = use_default_colors()
            colors = prefs_curses_colors() >= 256 ? .extended : .basic
        }
        return Terminal(colors: colors)
    }

    /// Gives the terminal back: the normal screen, the cursor, the modes it had.
    func close() {
        _ = curs_set(1)
        _ = endwin()
        EmergencyRestore.uninstall()
    }

    /// The screen's size now.
    var size: ScreenSize {
        ScreenSize(rows: Int(prefs_curses_lines()), columns: Int(prefs_curses_columns()))
    }

    /// Whether SIGTERM, SIGINT or SIGHUP arrived.
    var stopRequested: Bool { EmergencyRestore.stopRequested.load(ordering: .relaxed) }

    /// Draws a whole frame and shows it.
    func draw(_ frame: Frame) {
        _ = erase()
        for (row, line) in frame.lines.enumerated() where row < Int(prefs_curses_lines()) {
            var column = 0
            for segment in line.segments {
                let attributes = attributes(of: segment.style)
                _ = attron(attributes)
                _ = mvaddstr(Int32(row), Int32(column), segment.text)
                _ = attroff(attributes)
                column += segment.width
            }
        }
        _ = refresh()
    }

    /// The next key, or `nil` when none came within `milliseconds`.
    func readKey(timeout milliseconds: Int) -> TerminalKey? {
        timeout(Int32(milliseconds))
        var character: wint_t = 0
        let kind = get_wch(&character)
        if kind == prefs_curses_error() { return nil }
        if kind == KEY_CODE_YES { return TerminalKey(keyCode: Int32(character)) }
        guard let scalar = Unicode.Scalar(UInt32(character)) else { return nil }
        return TerminalKey(character: scalar)
    }

    private func attributes(of style: Style) -> Int32 {
        var attributes = prefs_curses_normal()
        if style.bold { attributes |= prefs_curses_bold() }
        if style.reverse { attributes |= prefs_curses_reverse() }
        if style.dim { attributes |= prefs_curses_dim() }
        if style.underline { attributes |= prefs_curses_underline() }
        if let color = style.color, colors != .none { attributes |= prefs_curses_color_pair(pair(for: color)) }
        return attributes
    }

    /// The color pair of a foreground colour on the terminal's own background, made on first use.
    private func pair(for color: Style.Color) -> Int16 {
        if let pair = pairs[color] { return pair }
        lastPair += 1
        let number = colors == .extended ? color.extended : color.basic
        _ = init_pair(lastPair, number, -1)
        pairs[color] = lastPair
        return lastPair
    }

    private static func currentLocaleIsUTF8() -> Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).lowercased()
        return name == "utf-8" || name == "utf8"
    }
}

/// The terminal's reset, prepared while it is still sane, for signal handlers that may only make async-signal-safe
/// calls: the saved terminal modes (`tcsetattr`) and the bytes that leave the alternate screen and show the cursor.
private enum EmergencyRestore {
    nonisolated(unsafe) static var savedModes = termios()
    nonisolated(unsafe) static var hasSavedModes = false
    nonisolated(unsafe) static var resetBytes: [UInt8] = []
    static let stopRequested = Atomic<Bool>(false)
    static let fatalSignals: [Int32] = [SIGSEGV, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE]
    static let stopSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    static func capture() {
        hasSavedModes = tcgetattr(0, &savedModes) == 0
        // Leave the alternate screen, show the cursor, plain attributes: what endwin() would write.
        resetBytes = Array("\u{1b}[?1049l\u{1b}[?25h\u{1b}[0m\r\n".utf8)
    }

    static func install() {
        // A parent may have left these blocked (the mask survives exec): the browser must hear them.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in fatalSignals + stopSignals { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                EmergencyRestore.restore()
                // The default action now: the crash is reported as it would have been.
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        for signal in stopSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                EmergencyRestore.stopRequested.store(true, ordering: .relaxed)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    static func uninstall() {
        for signal in fatalSignals + stopSignals { Glibc.signal(signal, SIG_DFL) }
    }

    /// Async-signal-safe: `write` and `tcsetattr` only.
    static func restore() {
        resetBytes.withUnsafeBytes { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
        if hasSavedModes { tcsetattr(0, TCSANOW, &savedModes) }
    }
}
