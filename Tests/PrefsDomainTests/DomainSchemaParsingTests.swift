// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Testing

/// Schema files read from their bytes: what a good one gives, and a clear error, naming the file and the problem,
/// for each way a file can be broken.
@Suite struct DomainSchemaParsingTests {
    static let domain = try! DomainName("com.example.Editor")
    static let path = "/schemas/com.example.Editor.schema.plist"

    static func parse(_ text: String) throws(PrefsStoreError) -> DomainSchema {
        try DomainSchema(decoding: Array(text.utf8), domain: domain, path: path)
    }

    @Test func aSchemaGivesEachKeysRuleDefaultAndTexts() throws {
        let schema = try Self.parse(
            """
            {
                Summary = "The editor.";
                Keys = {
                    FontSize = { Type = integer; Default = 12; Minimum = 6; Maximum = 72; Summary = "Points."; };
                    Theme = { Type = string; Default = light; Choices = (light, dark); Description = "Colours."; };
                    Zoom = { Type = real; Default = 1; };
                };
            }
            """)
        #expect(schema.summary == "The editor.")
        #expect(schema.path == Self.path)
        #expect(
            schema.keys["FontSize"] == KeySchema(.integer, default: 12, minimum: 6, maximum: 72, summary: "Points."))
        #expect(schema.keys["Theme"]?.choices == ["light", "dark"])
        #expect(schema.keys["Theme"]?.details == "Colours.")
        #expect(schema.problem(key: "FontSize", value: 100) != nil)
        #expect(schema.problem(key: "Theme", value: "blue") != nil)
        #expect(schema.problem(key: "Zoom", value: .real(1.5)) == nil)
    }

    @Test(
        "a broken schema is an error naming the file and the problem",
        arguments: [
            ("<plist><dict>", "is not a property list"),
            ("(a, b)", "the schema is an array, not a dictionary"),
            ("{ Keys = (); }", "Keys is an array, not a dictionary"),
            ("{ Sumary = x; }", "unknown field Sumary"),
            ("{ Keys = { A = { Default = 1; }; }; }", "key A: Type is missing or not a string"),
            ("{ Keys = { A = { Type = number; }; }; }", "key A: Type number is not one of string, integer"),
            (
                "{ Keys = { A = { Type = integer; Minimum = 5; Maximum = 1; }; }; }",
                "key A: Minimum 5 is greater than Maximum 1"
            ),
            (
                "{ Keys = { A = { Type = string; Minimum = 1; }; }; }",
                "key A: Minimum is given, but a string has no range"
            ),
            ("{ Keys = { A = { Type = integer; Minimum = x; }; }; }", "key A: Minimum x is not a number"),
            (
                "{ Keys = { A = { Type = integer; Default = 0; Minimum = 1; }; }; }",
                "key A: Default 0 (integer) breaks the key's own rule: it must be an integer of at least 1"
            ),
            (
                "{ Keys = { A = { Type = boolean; Default = maybe; }; }; }",
                "key A: Default maybe (string) breaks the key's own rule: it must be a boolean"
            ),
            (
                "{ Keys = { A = { Type = string; Choices = (a, (b)); }; }; }",
                "key A: Choices element 1 is an array, not a string"
            ),
            ("{ Keys = { A = { Type = string; Choices = (); }; }; }", "key A: Choices is empty"),
            ("{ Keys = { A = { Type = string; Minumum = 1; }; }; }", "key A: unknown field Minumum"),
            ("{ Keys = { A = x; }; }", "key A: a string, not a dictionary"),
        ])
    func brokenSchemas(text: String, problem: String) {
        do {
            let schema = try Self.parse(text)
            Issue.record("parsed \(schema)")
        } catch {
            #expect(error.code == .invalidSchema)
            #expect(error.path == Self.path)
            #expect(error.message.hasPrefix("schema \(Self.path)"), "\(error.message)")
            #expect(Self.contains(error.message, problem), "\(error.message)")
        }
    }

    @Test func aSchemaFilesNameGivesItsDomain() {
        #expect(DomainSchema.domainName(forFileName: "prefsd.schema.plist").rawValue == "prefsd")
        #expect(DomainSchema.domainName(forFileName: "NSGlobalDomain.schema.plist").isGlobal)
    }

    static func contains(_ text: String, _ part: String) -> Bool {
        let characters = Array(text)
        let wanted = Array(part)
        guard wanted.count <= characters.count else { return false }
        return (0...(characters.count - wanted.count)).contains {
            Array(characters[$0..<($0 + wanted.count)]) == wanted
        }
    }
}
