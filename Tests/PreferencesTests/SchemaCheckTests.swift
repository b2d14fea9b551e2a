// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// Typed keys held to a domain's schema (docs/SCHEMAS.md): a key whose type and default agree has no problems, one
/// that disagrees is told why; and a registered default, not the schema's, is what a program reads.
@Suite struct SchemaCheckTests {
    static let schemaText = """
        {
            Keys = {
                FontSize = { Type = integer; Default = 14; Minimum = 6; Maximum = 72; };
                Theme = { Type = string; Default = light; Choices = (light, dark); };
                Zoom = { Type = real; Default = 1; };
            };
        }
        """

    static func schema(_ directory: TemporaryDirectory) throws -> PreferencesSchema {
        let path = directory.file("com.example.Editor.schema.plist")
        try schemaText.write(toFile: path, atomically: true, encoding: .utf8)
        return try PreferencesSchema(contentsOf: path)
    }

    @Test func keysAreCheckedAgainstTheSchema() throws {
        let directory = try TemporaryDirectory(prefix: "schema-check")
        let schema = try Self.schema(directory)
        #expect(schema.domain == "com.example.Editor")
        #expect(schema.keyNames == ["FontSize", "Theme", "Zoom"])
        #expect(schema.problems(of: Preferences.Key("FontSize", default: 14)).isEmpty)
        #expect(schema.problems(of: Preferences.Key("Theme", default: "light")).isEmpty)
        #expect(schema.problems(of: Preferences.Key("Zoom", default: 1.0)).isEmpty)
        #expect(
            schema.problems(of: Preferences.Key("FontSize", default: 12))
                == [
                    "the default of key FontSize is 12, and the schema's is 14 (the registered default is what a "
                        + "program reads)"
                ])
        #expect(
            schema.problems(of: Preferences.Key("FontSize", default: "big")).first
                == "the default of key FontSize of domain com.example.Editor cannot be big (string): it must be an "
                + "integer from 6 to 72")
        #expect(
            schema.problems(of: Preferences.Key("Undescribed", default: 1))
                == ["key Undescribed is not described by the schema of domain com.example.Editor"])
        #expect(schema.problem(with: 100, forKey: "FontSize") != nil)
        #expect(schema.problem(with: 10, forKey: "FontSize") == nil)
    }

    @Test func theRegisteredDefaultWinsOverTheSchemas() throws {
        let directory = try TemporaryDirectory(prefix: "schema-check")
        let schema = try Self.schema(directory)
        let prefs = try Preferences.inMemory()
        let fontSize = Preferences.Key("FontSize", default: 12)
        #expect(prefs[fontSize] == 12, "a schema is not a layer")
        prefs.register(defaults: ["FontSize": 13])
        #expect(prefs.integer(forKey: "FontSize") == 13)
        #expect(!schema.problems(of: fontSize).isEmpty, "the check catches the disagreement")
    }

    @Test func aBrokenSchemaIsAnErrorNamingTheFile() throws {
        let directory = try TemporaryDirectory(prefix: "schema-check")
        let path = directory.file("x.schema.plist")
        try "{ Keys = { A = { Type = colour; }; }; }".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try PreferencesSchema(contentsOf: path)
            Issue.record("a broken schema was read")
        } catch {
            #expect(error.code == .corrupt)
            #expect(error.path == path)
            #expect(error.message.hasPrefix("schema \(path): key A: Type colour is not one of"))
        }
        do {
            _ = try PreferencesSchema(contentsOf: directory.file("missing.schema.plist"))
            Issue.record("a missing schema was read")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }
}
