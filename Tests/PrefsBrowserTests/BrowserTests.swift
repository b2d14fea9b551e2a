// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPOSIX
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

@testable import PrefsBrowser

/// The browser driven key by key on real domain files in a temporary directory, its frames read as text.
@Suite("terminal browser")
struct BrowserTests {
    /// A Preferences directory with a domain in the user, system and forced layers, and a second store on the same
    /// files, as another process would have.
    final class Fixture: Sendable {
        let directory: TemporaryDirectory
        let paths: StorePaths
        let other: PreferencesStore

        init() throws {
            directory = try TemporaryDirectory(prefix: "browser")
            paths = StorePaths(
                preferencesDirectory: directory.file("prefs"), systemDirectory: directory.file("system"),
                shippedDirectory: directory.file("shipped"), machineID: "0123456789abcdef0123456789abcdef")
            other = PreferencesStore(
                paths: paths, configuration: StoreConfiguration(watchesFiles: false, flushesAtExit: false))
            try other.setMany(
                [
                    "Theme": .string("dark"), "FontSize": .integer(12), "ShowRuler": .bool(true),
                    "Recent": .array([.string("a.txt"), .string("b.txt")]),
                    "Window": .dictionary(["width": .integer(800)]), "日本語": .string("値です"),
                    "Hostile\u{1b}]0;title\u{07}": .string("red\u{1b}[31m"),
                ], in: DomainID(domainName("com.example.Editor")))
            try other.synchronize()
            try Self.write(
                directory.file("system/com.example.Editor.plist"),
                "<plist><dict><key>Theme</key><string>light</string><key>Spelling</key><true/></dict></plist>")
            try Self.write(
                directory.file("system/forced/com.example.Editor.plist"),
                "<plist><dict><key>Telemetry</key><false/></dict></plist>")
        }

        static func write(_ path: String, _ text: String) throws {
            let directory = String(path[..<path.lastIndex(of: "/")!])
            try POSIX.makeDirectories(directory, mode: 0o755)
            _ = try POSIX.writeFileAtomically(
                Array(text.utf8), to: path, newFileMode: 0o644, keepsExistingMode: false, directorySyncIsRequired: false
            )
        }

        /// A browser on its own store, as `defaults browse com.example.Editor` opens one.
        func browser() -> Browser {
            let store = PreferencesStore(
                paths: paths,
                configuration: StoreConfiguration(
                    flushDelay: .milliseconds(10), watchesFiles: true, diagnostics: { _ in }))
            return Browser(catalog: BrowserCatalog(store: store), domain: domainName("com.example.Editor"))
        }

        func stored(_ key: String) -> PlistValue? {
            try? other.synchronize()
            return other.value(forKey: key, in: DomainID(domainName("com.example.Editor")))
        }
    }

    static let size = ScreenSize(rows: 30, columns: 100)

    private func screen(_ browser: Browser, _ size: ScreenSize = Self.size) -> String {
        browser.frame(size: size).text
    }

    private func type(_ browser: Browser, _ keys: TerminalKey...) {
        for key in keys { browser.handle(key) }
    }

    private func type(_ browser: Browser, text: String) {
        for character in text { browser.handle(.character(character)) }
    }

    private func select(_ browser: Browser, key: String) {
        browser.update { $0.focus = .keys }
        type(browser, .home)
        while browser.state.selectedRow?.key != key, browser.state.keyIndex < browser.state.rows.count - 1 {
            type(browser, .down)
        }
    }

    @Test("the keys show their value, type and layer; the forced key and the shadowing key are marked")
    func keysWithTheirLayers() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        let text = screen(browser)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains { $0.containsText("com.example.Editor") && $0.containsText("FUS") })
        #expect(
            lines.contains {
                $0.containsText("│  FontSize ") && $0.containsText(" 12 ") && $0.containsText(" integer ")
                    && $0.containsText(" user")
            })
        #expect(lines.contains { $0.containsText("! Telemetry") && $0.containsText("forced") })
        #expect(lines.contains { $0.containsText("^ Theme") && $0.containsText("dark") && $0.containsText("user") })
        #expect(lines.contains { $0.containsText("Spelling") && $0.containsText("system") })
    }

    @Test("wide characters line up: a CJK key takes two cells a character")
    func wideCharactersLineUp() throws {
        let fixture = try Fixture()
        let lines = screen(fixture.browser()).split(separator: "\n")
        let cjk = try #require(lines.first { $0.containsText("日本語") })
        let ascii = try #require(lines.first { $0.containsText("FontSize") })
        #expect(TextWidth.width(of: cjk) == TextWidth.width(of: ascii))
        #expect(TextWidth.width(of: cjk) == Self.size.columns)
    }

    @Test("control characters in keys and values are shown escaped, never sent to the terminal")
    func hostileTextIsEscaped() throws {
        let fixture = try Fixture()
        let text = screen(fixture.browser())
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(text.containsText("Hostile\\e]0;"))
        #expect(text.containsText("red\\e[31m"))
    }

    @Test("the detail pane lists every layer that holds the key, top to bottom, with its file")
    func detailShowsTheLayers() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: "Theme")
        let lines = screen(browser).split(separator: "\n")
        let user = try #require(lines.firstIndex { $0.containsText("▸ user") && $0.containsText("dark") })
        let system = try #require(lines.firstIndex { $0.containsText("system") && $0.containsText("light") })
        #expect(user < system)
        #expect(lines[system].containsText("com.example.Editor.plist") || lines[system].containsText("…"))
    }

    @Test("the filter narrows the domains as it is typed; Escape clears it")
    func filterAsYouType() throws {
        let fixture = try Fixture()
        try fixture.other.set(.integer(1), forKey: "x", in: DomainID(domainName("org.other.Tool")))
        try fixture.other.synchronize()
        let browser = fixture.browser()
        #expect(browser.state.visibleDomains.map(\.name.rawValue) == ["com.example.Editor", "org.other.Tool"])
        type(browser, .character("f"))
        type(browser, text: "oth")
        #expect(browser.state.visibleDomains.map(\.name.rawValue) == ["org.other.Tool"])
        #expect(browser.state.shownDomain?.rawValue == "org.other.Tool")
        #expect(screen(browser).containsText("filter: oth"))
        type(browser, .escape)
        #expect(browser.state.visibleDomains.count == 2)
    }

    @Test("search finds keys and values in every domain; Enter opens the hit")
    func searchAcrossDomains() throws {
        let fixture = try Fixture()
        try fixture.other.set(.string("dark mode"), forKey: "Look", in: DomainID(domainName("org.other.Tool")))
        try fixture.other.synchronize()
        let browser = fixture.browser()
        type(browser, .character("/"))
        type(browser, text: "DARK")
        type(browser, .enter)
        guard case .results(_, let hits, _) = browser.state.mode else {
            Issue.record("no results: \(browser.state.mode)")
            return
        }
        #expect(hits.map { "\($0.domain) \($0.key)" } == ["com.example.Editor Theme", "org.other.Tool Look"])
        type(browser, .down, .enter)
        #expect(browser.state.shownDomain?.rawValue == "org.other.Tool")
        #expect(browser.state.selectedRow?.key == "Look")
    }

    @Test(
        "every scalar type is edited with typed input and written at once",
        arguments: [
            ("FontSize", "14", PlistValue.integer(14)),
            ("Theme", "solarized", .string("solarized")),
        ])
    func editScalars(key: String, input: String, expected: PlistValue) throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: key)
        type(browser, .character("e"), .control("u"))
        type(browser, text: input)
        type(browser, .enter)
        #expect(fixture.stored(key) == expected)
        #expect(browser.state.message?.isError == false)
    }

    @Test("a boolean toggles; a number that is not one is refused in defaults' words and nothing is written")
    func toggleAndRefuse() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: "ShowRuler")
        type(browser, .character("e"))
        #expect(fixture.stored("ShowRuler") == .bool(false))
        select(browser, key: "FontSize")
        type(browser, .character("e"), .control("u"))
        type(browser, text: "twelve")
        type(browser, .enter)
        #expect(fixture.stored("FontSize") == .integer(12))
        #expect(browser.state.message?.isError == true)
        #expect(browser.state.message?.text.containsText("-int takes a decimal integer") == true)
    }

    @Test("new keys of every type: string, real, date, data, array")
    func addKeys() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        for (letter, name, input) in [
            ("s", "Name", "Ada"), ("f", "Ratio", "1.5"), ("t", "When", "2026-12-03 10:30:00 +0000"),
            ("x", "Blob", "cafe"), ("a", "List", ""),
        ] {
            type(browser, .character("n"), .character(Character(letter)))
            type(browser, text: name)
            type(browser, .enter)
            if !input.isEmpty {
                type(browser, text: input)
                type(browser, .enter)
            }
        }
        #expect(fixture.stored("Name") == .string("Ada"))
        #expect(fixture.stored("Ratio") == .real(1.5))
        #expect(fixture.stored("When") == .date(PlistDate(secondsSince1970: 1_796_293_800)))
        #expect(fixture.stored("Blob") == .data([0xCA, 0xFE]))
        #expect(fixture.stored("List") == .array([]))
    }

    @Test("arrays and dictionaries gain and lose elements, each element edited by its own type")
    func editContainers() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: "Recent")
        type(browser, .tab, .character("a"), .character("s"))
        type(browser, text: "c.txt")
        type(browser, .enter)
        #expect(fixture.stored("Recent") == .array([.string("a.txt"), .string("b.txt"), .string("c.txt")]))
        type(browser, .home, .down, .character("x"))
        #expect(fixture.stored("Recent") == .array([.string("b.txt"), .string("c.txt")]))
        select(browser, key: "Window")
        type(browser, .tab, .character("a"), .character("i"))
        type(browser, text: "height")
        type(browser, .enter)
        type(browser, text: "600")
        type(browser, .enter)
        #expect(fixture.stored("Window") == .dictionary(["width": .integer(800), "height": .integer(600)]))
        type(browser, .home, .down, .character("e"), .control("u"))
        type(browser, text: "700")
        type(browser, .enter)
        #expect(fixture.stored("Window") == .dictionary(["width": .integer(800), "height": .integer(700)]))
    }

    @Test("a forced key cannot be edited, deleted or reset, and the message says why and where")
    func forcedKeyIsRefused() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: "Telemetry")
        for key in ["e", "d", "r"] {
            type(browser, .character(Character(key)))
            #expect(browser.state.message?.isError == true)
            #expect(browser.state.message?.text.containsText("forced by the administrator") == true)
            #expect(browser.state.message?.text.containsText("forced/com.example.Editor.plist") == true)
        }
        #expect(fixture.stored("Telemetry") == nil)
    }

    @Test("an edit of a value another process changed since it was shown writes nothing and shows the new value")
    func conflictingEdit() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: "Theme")
        type(browser, .character("e"), .control("u"))
        type(browser, text: "mine")
        try fixture.other.set(.string("theirs"), forKey: "Theme", in: DomainID(domainName("com.example.Editor")))
        try fixture.other.synchronize()
        #expect(eventually { browser.refresh() && browser.state.rows.contains { $0.value == .string("theirs") } })
        type(browser, .enter)
        #expect(fixture.stored("Theme") == .string("theirs"))
        #expect(
            browser.state.message?.text == "Theme changed since it was shown: it is now theirs; nothing was written")
    }

    @Test("reset drops the user's value so the system layer's shows; delete removes the key")
    func resetAndDelete() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        select(browser, key: "Theme")
        type(browser, .character("r"))
        #expect(fixture.stored("Theme") == nil)
        #expect(browser.state.selectedRow?.value == .string("light"))
        #expect(browser.state.message?.text == "reset Theme: it now reads light from the system com.example.Editor")
        select(browser, key: "FontSize")
        type(browser, .character("d"), .character("n"))
        #expect(fixture.stored("FontSize") == .integer(12))
        type(browser, .character("d"), .character("y"))
        #expect(fixture.stored("FontSize") == nil)
        #expect(!browser.state.rows.contains { $0.key == "FontSize" })
    }

    @Test("a change by another process appears and is highlighted, then the highlight fades")
    func liveUpdate() throws {
        let fixture = try Fixture()
        let browser = fixture.browser()
        try fixture.other.set(.integer(99), forKey: "FontSize", in: DomainID(domainName("com.example.Editor")))
        try fixture.other.synchronize()
        #expect(eventually { browser.refresh() && browser.state.highlighted["FontSize"] != nil })
        #expect(browser.state.rows.first { $0.key == "FontSize" }?.value == .integer(99))
        browser.refresh(now: .now + Browser.highlightDuration + .seconds(1))
        #expect(browser.state.highlighted.isEmpty)
    }

    @Test("the layout fits any size from 40×10 up, and says so below it", arguments: [(24, 80), (10, 40), (50, 200)])
    func layoutFits(rows: Int, columns: Int) throws {
        let fixture = try Fixture()
        let frame = fixture.browser().frame(size: ScreenSize(rows: rows, columns: columns))
        #expect(frame.lines.count == rows)
        for line in frame.lines { #expect(TextWidth.width(of: line.text) == columns) }
        let tiny = fixture.browser().frame(size: ScreenSize(rows: 5, columns: 30))
        #expect(tiny.lines.first?.text.containsText("enlarge the terminal") == true)
    }

    @Test("a schema's summary, rule and default show; a value off the default is marked; a forbidden edit is refused")
    func schemaInTheBrowser() throws {
        let fixture = try Fixture()
        try Fixture.write(
            fixture.directory.file("shipped/Schemas/com.example.Editor.schema.plist"),
            """
            <plist><dict><key>Keys</key><dict>
            <key>FontSize</key><dict><key>Type</key><string>integer</string><key>Minimum</key><integer>8</integer>
            <key>Maximum</key><integer>72</integer><key>Default</key><integer>11</integer>
            <key>Summary</key><string>The editor's font size, in points.</string></dict>
            </dict></dict></plist>
            """)
        let browser = fixture.browser()
        select(browser, key: "FontSize")
        let lines = screen(browser, ScreenSize(rows: 30, columns: 160)).split(separator: "\n")
        #expect(lines.contains { $0.containsText("* FontSize") })
        #expect(
            lines.contains {
                $0.containsText("The editor's font size, in points. · must be an integer from 8 to 72 · default 11")
            })
        type(browser, .character("e"), .control("u"))
        type(browser, text: "100")
        type(browser, .enter)
        #expect(fixture.stored("FontSize") == .integer(12))
        #expect(
            browser.state.message?.text.hasPrefix(
                "FontSize of domain com.example.Editor cannot be 100 (integer): it must be an integer from 8 to 72")
                == true)
        type(browser, .character("r"))
        #expect(
            browser.state.message?.text == "reset FontSize: no layer holds it, so it reads the schema's default, 11")
    }

    @Test("text widths: CJK two cells, combining marks none, a cut ends with an ellipsis")
    func textWidths() {
        #expect(TextWidth.width(of: "日本") == 4)
        #expect(TextWidth.width(of: "e\u{301}") == 1)
        #expect(TextWidth.fit("日本語テキスト", to: 7) == "日本語…")
        #expect(TextWidth.fit("abc", to: 5) == "abc  ")
    }
}

/// A domain name known to be valid.
private func domainName(_ text: String) -> DomainName {
    // The names here are literals of this file, all valid.
    try! DomainName(text)
}
