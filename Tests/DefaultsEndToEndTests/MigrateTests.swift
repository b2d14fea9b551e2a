// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `defaults migrate`, on files the real Foundation `UserDefaults` and the real GNUstep `defaults` wrote, and on a
/// database the real dconf wrote.
@Suite("defaults migrate")
struct MigrateTests {
    static let foundationWriter = BuiltProduct("FoundationDefaultsFixture")
    /// GNUstep's `defaults` (Debian's gnustep-base-runtime), which shares our command's name.
    static let gnustepDefaults = BuiltProduct(path: "/usr/bin/defaults")
    static var hasGNUstep: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/gspath") }

    /// Runs the Foundation fixture with the sandbox's XDG_CONFIG_HOME, so that Foundation writes its files there.
    func writeWithFoundation(_ sandbox: Sandbox, suite: String) throws {
        let result = try Self.foundationWriter.run(["write", suite], environment: sandbox.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "written\n")
    }

    func stored(_ sandbox: Sandbox, _ domain: String) throws -> PlistDictionary? {
        let fileName = domain == "NSGlobalDomain" ? ".GlobalPreferences" : domain
        guard let data = FileManager.default.contents(atPath: sandbox.preferences + "/\(fileName).plist") else {
            return nil
        }
        return try PlistSerialization.decode(Array(data)).dictionaryValue
    }

    static let foundationValues: PlistDictionary = [
        "Theme": "dark", "Count": 42, "Ratio": 2.5, "Enabled": true,
        "Since": .date(PlistDate(secondsSince1970: 1_700_000_000)), "Blob": .data([0, 1, 2, 255]),
        "List": ["a", "b"], "Window": ["Width": 800, "Title": "Main"],
    ]

    @Test("settings Foundation wrote are taken with their types, keys set here are kept, the originals untouched")
    func foundationFilesAreAdopted() throws {
        let sandbox = try Sandbox()
        try writeWithFoundation(sandbox, suite: "com.example.Editor")
        let original = try #require(sandbox.contents("config/com.example.Editor.plist"))
        try sandbox.succeed(["write", "com.example.Editor", "Theme", "light"])

        let dryRun = try sandbox.run(["migrate", "-from", "foundation", "-dry-run", "com.example.Editor"])
        let path = sandbox.directory.path + "/config/com.example.Editor.plist"
        expectRun(
            dryRun,
            stdout: "com.example.Editor from foundation (\(path)): would take Blob, Count, Enabled, List, Ratio, "
                + "Since, Window; would keep Theme (set here; -overwrite replaces it)\n")
        #expect(try stored(sandbox, "com.example.Editor") == ["Theme": "light"])

        let result = try sandbox.run(["migrate", "-from", "foundation", "com.example.Editor"])
        expectRun(
            result,
            stdout: "com.example.Editor from foundation (\(path)): took Blob, Count, Enabled, List, Ratio, Since, "
                + "Window; kept Theme (set here; -overwrite replaces it)\n")
        var expected = Self.foundationValues
        expected["Theme"] = "light"
        #expect(try stored(sandbox, "com.example.Editor") == expected)
        #expect(sandbox.contents("config/com.example.Editor.plist") == original)
        let record = try stored(sandbox, "preferences.migrations")?["foundation:com.example.Editor"]
        guard case .date? = record else {
            Issue.record("the adoption was not recorded: \(String(describing: record))")
            return
        }

        // Again: nothing left to take. With -overwrite, the key set here is replaced.
        let again = try sandbox.run(["migrate", "-from", "foundation", "com.example.Editor"])
        expectRun(
            again,
            stdout: "com.example.Editor from foundation (\(path)): kept Theme (set here; -overwrite replaces it); "
                + "7 already the same\n")
        let overwrite = try sandbox.run(["migrate", "-from", "foundation", "-overwrite", "com.example.Editor"])
        expectRun(
            overwrite, stdout: "com.example.Editor from foundation (\(path)): replaced Theme; 7 already the same\n")
        #expect(try stored(sandbox, "com.example.Editor") == Self.foundationValues)
    }

    @Test("without domains, every domain Foundation has a file for is taken, NSGlobalDomain as the global domain")
    func everyDomainAndTheGlobalOne() throws {
        let sandbox = try Sandbox()
        try writeWithFoundation(sandbox, suite: "-standard")
        try sandbox.write("config/not a domain!.plist", "{}")
        let result = try sandbox.run(["migrate", "-from", "foundation"])
        #expect(result.status == 0, "\(result)")
        let config = sandbox.directory.path + "/config"
        #expect(
            result.standardOutput
                == "FoundationDefaultsFixture from foundation (\(config)/FoundationDefaultsFixture.plist): took Blob, "
                + "Count, Enabled, List, Ratio, Since, Theme, Window\n"
                + "NSGlobalDomain from foundation (\(config)/NSGlobalDomain.plist): took Global\n")
        #expect(result.standardError == "defaults: skipped \(config)/not a domain!.plist: not a domain name\n")
        #expect(try stored(sandbox, "FoundationDefaultsFixture") == Self.foundationValues)
        #expect(try stored(sandbox, "NSGlobalDomain") == ["Global": "everywhere"])
        let global = try sandbox.run(["read", "-g", "Global"])
        expectRun(global, stdout: "everywhere\n")
    }

    @Test("a file that is not a property-list dictionary is reported, exit 1, and the other domains are still taken")
    func brokenFilesAreReported() throws {
        let sandbox = try Sandbox()
        try sandbox.write("config/com.example.Broken.plist", "<plist><dict><key>a</key></plist>")
        try sandbox.write("config/com.example.Array.plist", "(1, 2)")
        try sandbox.write("config/com.example.Good.plist", "{ Mode = fast; }")
        let result = try sandbox.run(["migrate", "-from", "foundation"])
        #expect(result.status == 1)
        let config = sandbox.directory.path + "/config"
        #expect(
            result.standardOutput == "com.example.Good from foundation (\(config)/com.example.Good.plist): took Mode\n")
        #expect(
            result.standardError.contains(
                "defaults: com.example.Array from foundation: \(config)/com.example.Array.plist holds a array, not a dictionary"
            ))
        #expect(
            result.standardError.contains(
                "defaults: com.example.Broken from foundation: \(config)/com.example.Broken.plist is not a property list"
            ))
        #expect(try stored(sandbox, "com.example.Broken") == nil)
        #expect(try stored(sandbox, "com.example.Good") == ["Mode": "fast"])
    }

    @Test("a domain named but found nowhere is an error; bad options and file paths are usage errors")
    func missingDomainsAndBadArguments() throws {
        let sandbox = try Sandbox()
        let missing = try sandbox.run(["migrate", "com.example.Nowhere"])
        #expect(missing.status == 1)
        #expect(
            missing.standardError
                == "defaults: no settings for com.example.Nowhere in \(sandbox.directory.path)/config or "
                + "\(sandbox.directory.path)/GNUstep/Defaults\n")
        let nothing = try sandbox.run(["migrate"])
        #expect(nothing.status == 0)
        for arguments in [["migrate", "-from", "kde"], ["migrate", "-force"], ["migrate", "./file.plist"]] {
            let usage = try sandbox.run(arguments)
            #expect(usage.status != 0, "\(arguments)")
            #expect(usage.standardError.contains("defaults:"), "\(arguments): \(usage)")
        }
    }

    @Test("settings GNUstep's own defaults wrote are taken (skipped without gnustep-base-runtime)")
    func gnustepFilesAreAdopted() throws {
        guard Self.hasGNUstep else {
            print("skipped: GNUstep's defaults is not installed (apt-get install gnustep-base-runtime)")
            return
        }
        let sandbox = try Sandbox()
        let defaultsDirectory = sandbox.directory.path + "/gnustep-defaults"
        // GNUstep reads its directories from a configuration file, not from HOME (it asks the password database).
        try sandbox.write(
            "GNUstep.conf", "GNUSTEP_USER_DEFAULTS_DIR=\(defaultsDirectory)\nGNUSTEP_USER_CONFIG_FILE=/dev/null\n")
        let gnustepEnvironment = [
            "GNUSTEP_CONFIG_FILE": sandbox.directory.path + "/GNUstep.conf", "HOME": sandbox.directory.path,
        ]
        for arguments in [
            ["write", "com.example.Gs", "Count", "<*I3>"], ["write", "com.example.Gs", "Tags", "(red, green)"],
            ["write", "com.example.Gs", "Sizes", "{ small = <*I1>; large = <*R2.5>; }"],
            ["write", "NSGlobalDomain", "Locale", "fr_FR"],
        ] {
            let result = try Self.gnustepDefaults.run(arguments, environment: gnustepEnvironment)
            #expect(result.status == 0, "\(arguments): \(result)")
        }
        var environment = sandbox.environment
        environment["GNUSTEP_USER_DEFAULTS_DIR"] = defaultsDirectory
        let result = try sandbox.defaults.run(["migrate", "-from", "gnustep"], environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.standardOutput
                == "NSGlobalDomain from gnustep (\(defaultsDirectory)/NSGlobalDomain.plist): took Locale\n"
                + "com.example.Gs from gnustep (\(defaultsDirectory)/com.example.Gs.plist): took Count, Sizes, Tags\n")
        #expect(
            try stored(sandbox, "com.example.Gs") == [
                "Count": 3, "Tags": ["red", "green"], "Sizes": ["small": 1, "large": 2.5],
            ])
        #expect(try stored(sandbox, "NSGlobalDomain") == ["Locale": "fr_FR"])
    }

    // MARK: dconf

    /// Writes keys into the sandbox's dconf database with the real `dconf write`.
    func writeWithDconf(_ sandbox: Sandbox, _ entries: [(key: String, value: String)]) throws {
        let result = try RealDconf.write(
            entries, environment: sandbox.environment, log: sandbox.directory.file("dconf.log"))
        #expect(result.status == 0, "\(result)")
    }

    static let dconfEntries: [(key: String, value: String)] = [
        ("/org/example/editor/theme", "'dark'"), ("/org/example/editor/count", "uint32 5"),
        ("/org/example/editor/ratio", "2.5"), ("/org/example/editor/enabled", "true"),
        ("/org/example/editor/tags", "['a', 'b']"), ("/org/example/editor/blob", "b'xy'"),
        ("/org/example/editor/names", "{'k': 'v'}"), ("/org/example/editor/huge", "uint64 18446744073709551615"),
        ("/org/example/editor/options", "{'size': <int64 3>, 'name': <'n'>, 'far': <int64 5000000000>}"),
        ("/org/example/editor/pair", "(1, 'x')"), ("/org/example/editor/maybe", "@ms nothing"),
        ("/org/example/editor/window/size", "(800, 600)"), ("/org/example/Odd.Dir/k", "1"), ("/rootkey", "1"),
    ]

    static let dconfValues: PlistDictionary = [
        "theme": "dark", "count": 5, "ratio": 2.5, "enabled": true, "tags": ["a", "b"], "blob": .data([120, 121, 0]),
        "names": ["k": "v"], "huge": .integer(PlistInteger(UInt64.max)),
        "options": ["size": ["$gvariant": "int64 3"], "name": "n", "far": 5_000_000_000],
        "pair": ["$gvariant": "(1, 'x')"], "maybe": ["$gvariant": "@ms nothing"],
    ]

    @Test("-from dconf adopts a database the real dconf wrote: natural and tagged values, skipped paths, records")
    func dconfDatabaseIsAdopted() throws {
        guard RealDconf.isAvailable else {
            print(RealDconf.missing)
            return
        }
        let sandbox = try Sandbox()
        try writeWithDconf(sandbox, Self.dconfEntries)
        #expect(sandbox.exists("config/dconf/user"))
        try sandbox.succeed(["write", "org.example.editor", "theme", "light"])

        // Without -from, dconf is not read.
        let plain = try sandbox.run(["migrate"])
        let config = sandbox.directory.path + "/config"
        expectRun(
            plain, stderr: "defaults: no settings in \(config) or \(sandbox.directory.path)/GNUstep/Defaults\n")
        #expect(try stored(sandbox, "org.example.editor") == ["theme": "light"])

        let skipped =
            "defaults: skipped dconf / (1 key): keys at the root of dconf belong to no directory, so to no domain\n"
            + "defaults: skipped dconf /org/example/Odd.Dir/ (1 key): component 'Odd.Dir' contains '.', which would "
            + "be ambiguous in a domain name (each '/' becomes a '.')\n"
        let dryRun = try sandbox.run(["migrate", "-from", "dconf", "-dry-run"])
        expectRun(
            dryRun,
            stdout: "org.example.editor from dconf (/org/example/editor/): would take blob, count, enabled, huge, "
                + "maybe, names, options, pair, ratio, tags; would keep theme (set here; -overwrite replaces it)\n"
                + "org.example.editor.window from dconf (/org/example/editor/window/): would take size\n",
            stderr: skipped)
        #expect(try stored(sandbox, "org.example.editor") == ["theme": "light"])
        #expect(try stored(sandbox, "org.example.editor.window") == nil)

        let result = try sandbox.run(["migrate", "-from", "dconf"])
        expectRun(
            result,
            stdout: "org.example.editor from dconf (/org/example/editor/): took blob, count, enabled, huge, maybe, "
                + "names, options, pair, ratio, tags; kept theme (set here; -overwrite replaces it)\n"
                + "org.example.editor.window from dconf (/org/example/editor/window/): took size\n",
            stderr: skipped)
        var expected = Self.dconfValues
        expected["theme"] = "light"
        #expect(try stored(sandbox, "org.example.editor") == expected)
        #expect(try stored(sandbox, "org.example.editor.window") == ["size": ["$gvariant": "(800, 600)"]])
        expectRun(try sandbox.run(["read", "org.example.editor", "count"]), stdout: "5\n")
        expectRun(try sandbox.run(["read", "org.example.editor", "tags"]), stdout: "(\n    a,\n    b\n)\n")
        expectRun(
            try sandbox.run(["read", "org.example.editor", "pair"]), stdout: "{\n    \"$gvariant\" = \"(1, 'x')\";\n}\n"
        )
        let records = try stored(sandbox, "preferences.migrations")
        for domain in ["dconf:org.example.editor", "dconf:org.example.editor.window"] {
            guard case .date? = records?[domain] else {
                Issue.record("\(domain) was not recorded: \(String(describing: records))")
                continue
            }
        }

        // Named domains only; -overwrite replaces the key set here; the database is left as it was.
        let before = sandbox.contents("config/dconf/user")
        let overwrite = try sandbox.run(["migrate", "-from", "dconf", "-overwrite", "org.example.editor"])
        expectRun(
            overwrite,
            stdout: "org.example.editor from dconf (/org/example/editor/): replaced theme; 10 already the same\n")
        #expect(try stored(sandbox, "org.example.editor") == Self.dconfValues)
        #expect(sandbox.contents("config/dconf/user") == before)
        let missing = try sandbox.run(["migrate", "-from", "dconf", "org.example.none"])
        expectRun(missing, status: 1, stderr: "defaults: no settings for org.example.none in \(config)/dconf\n")
    }

    @Test("-from dconf: no database is nothing to adopt; a database without dconf installed is an error saying so")
    func dconfMissing() throws {
        let sandbox = try Sandbox()
        let config = sandbox.directory.path + "/config"
        expectRun(try sandbox.run(["migrate", "-from", "dconf"]), stderr: "defaults: no settings in \(config)/dconf\n")
        try sandbox.write("config/dconf/user", "GVariant")
        try FileManager.default.createDirectory(
            atPath: sandbox.directory.file("empty-bin"), withIntermediateDirectories: true)
        var environment = sandbox.environment
        environment["PATH"] = sandbox.directory.file("empty-bin")
        let result = try sandbox.defaults.run(["migrate", "-from", "dconf"], environment: environment)
        expectRun(result, status: 1, stderr: "defaults: dconf is not installed (apt-get install dconf-cli)\n")
    }

    @Test("-from dconf: a value that is not GVariant text is reported by path and key, the rest adopted, exit 1")
    func dconfBadValues() throws {
        // A stand-in for dconf that prints a dump the real one never would, so that the errors can be seen.
        let sandbox = try Sandbox()
        try sandbox.write("config/dconf/user", "GVariant")
        try sandbox.write(
            "bin/dconf",
            #"""
            #!/bin/sh
            read -r profile
            [ "$1 $2" = "dump /" ] && [ "$DCONF_PROFILE" = /dev/stdin ] && [ "$profile" = user-db:user ] || exit 3
            printf '[org/example/app]\ngood=int64 -3\nbad=\047unterminated\nworse=int65 3\n\n[org/example/other]\nfine=true\n'
            """#)
        chmod(sandbox.directory.file("bin/dconf"), 0o755)
        var environment = sandbox.environment
        environment["PATH"] = sandbox.directory.file("bin")
        let result = try sandbox.defaults.run(["migrate", "-from", "dconf"], environment: environment)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardOutput
                == "org.example.app from dconf (/org/example/app/): took good\n"
                + "org.example.other from dconf (/org/example/other/): took fine\n")
        #expect(
            result.standardError.contains(
                "defaults: org.example.app from dconf: dconf key /org/example/app/bad: its value 'unterminated is not "
                    + "GVariant text: unterminated string constant (at byte 0); its other keys are adopted\n"),
            "\(result)")
        #expect(
            result.standardError.contains(
                "defaults: org.example.app from dconf: dconf key /org/example/app/worse: its value int65 3 is not "
                    + "GVariant text: unknown keyword 'int65' (at byte 0)"),
            "\(result)")
        #expect(try stored(sandbox, "org.example.app") == ["good": -3])
        #expect(try stored(sandbox, "org.example.other") == ["fine": true])

        // dconf failing is an error naming it.
        try sandbox.write("bin/dconf", "#!/bin/sh\necho 'error: something broke' >&2\nexit 2\n")
        chmod(sandbox.directory.file("bin/dconf"), 0o755)
        let failing = try sandbox.defaults.run(["migrate", "-from", "dconf"], environment: environment)
        expectRun(
            failing, status: 1,
            stderr: "defaults: \(sandbox.directory.file("bin/dconf")) dump / exited with status 2, reading "
                + "\(sandbox.directory.path)/config/dconf/user: error: something broke\n")
    }
}
