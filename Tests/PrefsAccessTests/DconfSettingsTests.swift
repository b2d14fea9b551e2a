// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsAccess
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

/// A dconf database as domains: the dump read, directories named as the GSettings backend names them, and the real
/// `dconf dump` run on a database the real dconf wrote.
@Suite struct DconfSettingsTests {
    static func name(_ text: String) -> DomainName { try! DomainName(text) }

    @Test(
        "a dconf directory is the domain of its components joined with '.', as the GSettings backend names it",
        arguments: [
            ("/org/gnome/desktop/interface/", "org.gnome.desktop.interface"), ("/a/", "a"),
            ("/org/gnome/Terminal/Legacy/Profiles-1/", "org.gnome.Terminal.Legacy.Profiles-1"),
            ("/x_y/z-9/", "x_y.z-9"), ("/NSGlobalDomain/", "NSGlobalDomain"),
        ])
    func directoriesAreDomains(path: String, domain: String) throws {
        #expect(try DconfSettings.domainName(ofPath: path).get() == Self.name(domain))
        #expect(DconfSettings.path(of: Self.name(domain)) == path)
    }

    @Test(
        "a directory that names no domain says why",
        arguments: [
            ("/", "keys at the root of dconf belong to no directory"),
            ("/org/Odd.Name/", "component 'Odd.Name' contains '.'"),
            ("/org/with space/", "component 'with space' has ' '; domain names are [A-Za-z0-9._-]"),
            ("/org/caf\u{E9}/", "a component has byte 0xc3"),
            ("/org/a+b/", "component 'a+b' has '+'"),
            (
                "/" + String(repeating: "a", count: 217) + "/",
                "names a domain of 217 bytes, longer than the store's 216"
            ),
            ("org/", "is not a dconf directory"),
        ])
    func directoriesThatNameNoDomain(path: String, reason: String) {
        guard case .failure(let error) = DconfSettings.domainName(ofPath: path) else {
            Issue.record("\(path) named a domain")
            return
        }
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test("a dump: directories become domains sorted by name, values are mapped, the rest is skipped or reported")
    func dumpsAreRead() {
        let dump = """
            [/]
            rootkey=1

            [org/ex]
            b=uint32 5
            s='a string'
            tagged=(1, 'x')
            bad='unterminated
            key with space=true
            spaced = 2.5

            [org/ex/Odd.Dir]
            k=1
            j=2

            [a/first]
            list=['x', 'y']
            [org/ex]
            late=int64 7

            """
        let settings = DconfSettings(dump: Array(dump.utf8))
        #expect(settings.domains.map(\.name) == [Self.name("a.first"), Self.name("org.ex")])
        let ex = settings.domain(named: Self.name("org.ex"))
        #expect(ex?.path == "/org/ex/")
        #expect(
            ex?.values == [
                "b": 5, "s": "a string", "tagged": .dictionary(["$gvariant": "(1, 'x')"]), "key with space": true,
                "spaced": 2.5, "late": 7,
            ])
        #expect(ex?.problems.count == 1)
        #expect(ex?.problems.first?.message.contains("dconf key /org/ex/bad") == true)
        #expect(ex?.problems.first?.message.contains("unterminated string constant") == true)
        #expect(ex?.problems.first?.code == .corrupt)
        #expect(settings.domain(named: Self.name("a.first"))?.values == ["list": ["x", "y"]])
        #expect(settings.skipped.map(\.path) == ["/", "/org/ex/Odd.Dir/"])
        #expect(settings.skipped.map(\.keyCount) == [1, 2])
        #expect(settings.skipped[1].description.hasPrefix("/org/ex/Odd.Dir/ (2 keys): component 'Odd.Dir'"))
        #expect(settings.malformedLines.isEmpty)
        #expect(!settings.omitsSettings)
    }

    @Test("lines that are neither a header nor a key, invalid UTF-8, long keys and deep values are reported")
    func oddDumps() {
        var dump = Array("orphan=1\n[org/ex]\nno equals sign\nok=1\n".utf8)
        dump += [0x62, 0x3D, 0xFF, 0x0A]  // b=<invalid UTF-8>
        dump += Array(("\(String(repeating: "k", count: 1025))=1\n").utf8)
        let deep = String(repeating: "{'a': <", count: 70) + "1" + String(repeating: ">}", count: 70)
        dump += Array("deep=\(deep)\n".utf8)
        let settings = DconfSettings(dump: dump)
        #expect(settings.malformedLines.count == 3, "\(settings.malformedLines.map(\.message))")
        let ex = settings.domain(named: Self.name("org.ex"))
        #expect(ex?.values == ["ok": 1])
        // A key longer than the store's keys may be; a value nested beyond GVariant's 128 levels.
        #expect(ex?.problems.map(\.code) == [.limitExceeded, .corrupt])
        #expect(ex?.problems.last?.message.contains("nested too deeply") == true)
        #expect(DconfSettings().domains.isEmpty)
    }

    @Test("warnings that GLib's key file refused a key mean settings were left out")
    func omittedSettings() {
        var settings = DconfSettings()
        settings.warnings = ["(dconf:1): GLib-CRITICAL **: g_key_file_set_value: assertion 'key != NULL' failed"]
        #expect(settings.omitsSettings)
    }

    @Test("a dconf source names a domain by its dconf directory; it is read only when asked for")
    func dconfSource() {
        let source = MigrationSource(kind: .dconf, directory: "/cfg/dconf")
        #expect(source.path(of: Self.name("org.gnome.desktop.interface")) == "/org/gnome/desktop/interface/")
        #expect(DconfDatabase(source, searchPath: nil).path == "/cfg/dconf/user")
        #expect(MigrationSource.Kind.defaultKinds == [.foundation, .gnustep])
    }

    @Test("no database is no settings, without running dconf; without dconf, a database is an error saying so")
    func missingDatabaseOrProgram() throws {
        let home = try TemporaryDirectory()
        let database = DconfDatabase(configDirectory: home.file("config"), searchPath: home.file("no-bin"))
        #expect(try database.read().domains.isEmpty)
        try FileManager.default.createDirectory(atPath: home.file("config/dconf"), withIntermediateDirectories: true)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: database.path))
        let error = #expect(throws: PrefsAccessError.self) { try database.read() }
        #expect(error?.message == "dconf is not installed (apt-get install dconf-cli)")
        #expect(error?.code == .unavailable)
    }

    @Test("the real dconf dump of a database the real dconf wrote (skipped without dconf)")
    func realDatabase() throws {
        guard RealDconf.isAvailable else {
            print(RealDconf.missing)
            return
        }
        let home = try TemporaryDirectory()
        let environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "XDG_RUNTIME_DIR": home.path,
        ]
        let written = try RealDconf.write(
            [
                ("/org/example/app/count", "uint32 5"), ("/org/example/app/pair", "(1, 'x')"),
                ("/org/example/app/options", "{'size': <int64 3>, 'name': <'n'>}"),
                ("/org/example/Odd.Dir/k", "1"),
            ], environment: environment, log: home.file("dconf.log"))
        #expect(written.status == 0, "\(written)")
        let database = DconfDatabase(configDirectory: home.file("config"), searchPath: "/usr/bin:/bin")
        let settings = try database.read()
        #expect(settings.domains.map(\.name) == [Self.name("org.example.app")])
        #expect(
            settings.domains.first?.values == [
                "count": 5, "pair": .dictionary(["$gvariant": "(1, 'x')"]),
                "options": ["size": .dictionary(["$gvariant": "int64 3"]), "name": "n"],
            ])
        #expect(settings.skipped.map(\.path) == ["/org/example/Odd.Dir/"])
        #expect(settings.warnings.isEmpty, "\(settings.warnings)")
        // The same through the migration source.
        let source = MigrationSource(kind: .dconf, directory: database.directory)
        #expect(try source.domains().domains == [Self.name("org.example.app")])
        #expect(try source.values(of: Self.name("org.example.app"))?["count"] == 5)
        #expect(try source.values(of: Self.name("org.example.none")) == nil)
    }
}
