// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// Domains that describe themselves (docs/SCHEMAS.md): `defaults write` and the other writing verbs refuse what a
/// domain's schema forbids, naming the rule and the file, and write nothing; `-force` writes anyway; `describe`
/// prints the schema; a broken schema is named in a warning and not enforced.
@Suite struct SchemaTests {
    static let editorSchema = """
        {
            Summary = "The example editor.";
            Keys = {
                FontSize = {
                    Type = integer; Default = 12; Minimum = 6; Maximum = 72;
                    Summary = "The size of the text, in points.";
                };
                Theme = { Type = string; Default = light; Choices = (light, dark); };
                Recent = { Type = array; Summary = "The files opened last."; };
                Options = { Type = dictionary; };
            };
        }
        """

    static func sandbox(schemaLayer: String = "shipped") throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.write("\(schemaLayer)/Schemas/com.example.Editor.schema.plist", editorSchema)
        return sandbox
    }

    static func schemaPath(_ sandbox: Sandbox, _ layer: String = "shipped") -> String {
        sandbox.directory.path + "/\(layer)/Schemas/com.example.Editor.schema.plist"
    }

    @Test func aValueOutOfRangeIsRefusedNamingTheRuleAndTheSchema() throws {
        let sandbox = try Self.sandbox()
        let refused = try sandbox.run(["write", "com.example.Editor", "FontSize", "-int", "100"])
        #expect(refused.status == 1)
        #expect(
            refused.standardError
                == "defaults: FontSize of domain com.example.Editor cannot be 100 (integer): it must be an integer "
                + "from 6 to 72 (schema \(Self.schemaPath(sandbox))); nothing was written (-force writes it anyway)\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.preferences + "/com.example.Editor.plist"))

        try sandbox.succeed(["write", "com.example.Editor", "FontSize", "-int", "14"])
        let wrongType = try sandbox.run(["write", "com.example.Editor", "FontSize", "big"])
        #expect(wrongType.status == 1)
        #expect(
            wrongType.standardError.hasPrefix("defaults: FontSize of domain com.example.Editor cannot be big (string)"))
        let choice = try sandbox.run(["write", "com.example.Editor", "Theme", "blue"])
        #expect(
            choice.standardError.hasPrefix(
                "defaults: Theme of domain com.example.Editor cannot be blue (string): it must be one of light, dark (schema "
            ))
        // One refused pair refuses the whole change.
        let pairs = try sandbox.run(["write", "com.example.Editor", "Theme", "dark", "--", "FontSize", "-int", "1"])
        #expect(pairs.status == 1)
        #expect(try sandbox.run(["read", "com.example.Editor"]).standardOutput == "{\n    FontSize = 14;\n}\n")
    }

    @Test func forceWritesWhatTheSchemaForbids() throws {
        let sandbox = try Self.sandbox()
        try sandbox.succeed(["write", "-force", "com.example.Editor", "FontSize", "-int", "100"])
        try sandbox.succeed(["rename", "-force", "com.example.Editor", "FontSize", "Theme"])
        #expect(try sandbox.run(["read", "com.example.Editor", "Theme"]).standardOutput == "100\n")
        // Keys the schema does not describe, and other domains, take anything.
        try sandbox.succeed(["write", "com.example.Editor", "Other", "-int", "100"])
        try sandbox.succeed(["write", "com.example.Other", "FontSize", "-int", "100"])
    }

    @Test func everyWritingVerbIsChecked() throws {
        let sandbox = try Self.sandbox()
        try sandbox.succeed(["write", "com.example.Editor", "FontSize", "-int", "12"])
        let cases: [[String]] = [
            ["write", "com.example.Editor", "Recent", "-dict-add", "a", "b"],
            ["write", "com.example.Editor", "Options", "-array-add", "a"],
            ["write", "com.example.Editor", "{ FontSize = 5; }"],
            ["rename", "com.example.Editor", "FontSize", "Theme"],
        ]
        for arguments in cases {
            let result = try sandbox.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.standardError.hasSuffix("; nothing was written (-force writes it anyway)\n"), "\(arguments)")
        }
        let imported = try sandbox.run(["import", "com.example.Editor", "-"], input: "{ Theme = purple; }")
        #expect(imported.status == 1)
        #expect(imported.standardError.hasPrefix("defaults: Theme of domain com.example.Editor cannot be purple"))
        try sandbox.succeed(["write", "com.example.Editor", "Recent", "-array-add", "a.txt"])
        #expect(
            try sandbox.run(["read", "com.example.Editor"]).standardOutput
                == "{\n    FontSize = 12;\n    Recent =     (\n        \"a.txt\"\n    );\n}\n")
    }

    @Test func aHigherLayersSchemaWins() throws {
        let sandbox = try Self.sandbox()
        try sandbox.write(
            "prefs/Schemas/com.example.Editor.schema.plist",
            "{ Keys = { FontSize = { Type = integer; Minimum = 1; Maximum = 200; }; }; }")
        try sandbox.succeed(["write", "com.example.Editor", "FontSize", "-int", "100"])
        let describe = try sandbox.run(["describe", "com.example.Editor", "FontSize"])
        #expect(describe.standardOutput == "FontSize (integer)\n  allowed: an integer from 1 to 200\n")
    }

    @Test func aBrokenSchemaIsNamedInAWarningAndNotEnforced() throws {
        let sandbox = try Sandbox()
        try sandbox.write(
            "shipped/Schemas/com.example.Editor.schema.plist",
            "{ Keys = { FontSize = { Type = integer; Default = 1; Minimum = 6; }; }; }")
        let result = try sandbox.run(["write", "com.example.Editor", "FontSize", "-int", "100"])
        #expect(result.status == 0)
        #expect(
            result.standardError
                == "defaults: warning: schema \(Self.schemaPath(sandbox)): key FontSize: Default 1 (integer) breaks "
                + "the key's own rule: it must be an integer of at least 6; it is not enforced\n")
        #expect(try sandbox.run(["read", "com.example.Editor", "FontSize"]).standardOutput == "100\n")
        try sandbox.write("shipped/Schemas/com.example.Editor.schema.plist", "not a plist {")
        let notAPlist = try sandbox.run(["write", "com.example.Editor", "FontSize", "-int", "5"])
        #expect(notAPlist.status == 0)
        #expect(
            notAPlist.standardError.hasPrefix(
                "defaults: warning: schema \(Self.schemaPath(sandbox)) is not a property list"))
    }

    @Test func describePrintsTheSchema() throws {
        let sandbox = try Self.sandbox()
        let all = try sandbox.run(["describe", "com.example.Editor"])
        #expect(all.status == 0, "\(all)")
        #expect(
            all.standardOutput == """
                Domain com.example.Editor (schema \(Self.schemaPath(sandbox)))
                  The example editor.

                FontSize (integer, default 12)
                  allowed: an integer from 6 to 72
                  The size of the text, in points.

                Options (dictionary)
                  allowed: a dictionary

                Recent (array)
                  allowed: an array
                  The files opened last.

                Theme (string, default light)
                  allowed: one of light, dark

                """)
        let one = try sandbox.run(["describe", "com.example.Editor", "Theme"])
        #expect(one.standardOutput == "Theme (string, default light)\n  allowed: one of light, dark\n")
        let missingKey = try sandbox.run(["describe", "com.example.Editor", "Nothing"])
        #expect(missingKey.status == 1)
        #expect(
            missingKey.standardError.hasPrefix(
                "defaults: the schema of domain com.example.Editor does not describe key Nothing"))
        let none = try sandbox.run(["describe", "com.example.Other"])
        #expect(none.status == 1)
        #expect(none.standardOutput == "")
        #expect(
            none.standardError
                == "defaults: domain com.example.Other has no schema (no com.example.Other.schema.plist in "
                + "\(sandbox.preferences)/Schemas, \(sandbox.system)/Schemas, \(sandbox.shipped)/Schemas)\n")
        // prefsd's rules are compiled in: they describe its domain without a schema file.
        let prefsd = try sandbox.run(["describe", "prefsd", "MaxConnections"])
        #expect(prefsd.standardOutput == "MaxConnections (integer)\n  allowed: an integer from 1 to 65536\n")
    }

    @Test func theShippedSchemasDescribeTheirDomains() throws {
        let sandbox = try Sandbox()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        var environment = sandbox.environment
        environment["PREFERENCES_DOMAINS_DIR"] = repository + "/Domains"
        let prefsd = try sandbox.defaults.run(["describe", "prefsd", "MaxConnections"], environment: environment)
        #expect(
            prefsd.standardOutput.hasPrefix(
                "MaxConnections (integer, default 256)\n  allowed: an integer from 1 to 65536\n"))
        let global = try sandbox.defaults.run(["describe", "-g", "AppleTemperatureUnit"], environment: environment)
        #expect(
            global.standardOutput.hasPrefix(
                "AppleTemperatureUnit (string, default Celsius)\n  allowed: one of Celsius, Fahrenheit\n"), "\(global)")
        let refused = try sandbox.defaults.run(
            ["write", "prefsd", "MaxConnections", "-int", "0"], environment: environment)
        #expect(
            refused.standardError
                == "defaults: MaxConnections of domain prefsd cannot be 0 (integer): it must be an integer from 1 to "
                + "65536 (schema \(repository)/Domains/Schemas/prefsd.schema.plist); nothing was written (-force "
                + "writes it anyway)\n")
        // The rules compiled into the store hold even with -force: prefsd would not use the value.
        let forced = try sandbox.defaults.run(
            ["write", "-force", "prefsd", "MaxConnections", "-int", "0"], environment: environment)
        #expect(forced.status == 1)
        #expect(forced.standardError.hasPrefix("defaults: setting MaxConnections of domain prefsd cannot be 0"))
    }
}
