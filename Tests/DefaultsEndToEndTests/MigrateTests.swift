// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `defaults migrate`, on files the real Foundation `UserDefaults` and the real GNUstep `defaults` wrote.
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
}
