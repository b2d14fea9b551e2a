// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `plutil -lint -schema S file…`: each file checked against a domain schema, each violation reported with its key
/// and rule; a broken schema is named and fails the command.
@Suite struct PlutilSchemaTests {
    let plutil = BuiltProduct("plutil")

    @Test func eachViolationIsReportedWithItsKeyAndRule() throws {
        let directory = try TemporaryDirectory(prefix: "plutil-schema")
        let schema = directory.file("com.example.Editor.schema.plist")
        try
            "{ Keys = { FontSize = { Type = integer; Minimum = 6; Maximum = 72; }; Theme = { Type = string; Choices = (light, dark); }; }; }"
            .write(toFile: schema, atomically: true, encoding: .utf8)
        let good = directory.file("good.plist")
        try #"{ "FontSize": 12, "Theme": "dark", "Other": 1 }"#.write(toFile: good, atomically: true, encoding: .utf8)
        let bad = directory.file("bad.plist")
        try #"{ "FontSize": 100, "Theme": 3 }"#.write(toFile: bad, atomically: true, encoding: .utf8)

        let ok = try plutil.run(["-lint", "-schema", schema, good])
        #expect(ok.status == 0)
        #expect(ok.standardOutput == "\(good): OK\n")
        let result = try plutil.run(["-lint", "-schema", schema, good, bad])
        #expect(result.status == 1)
        #expect(result.standardOutput == "\(good): OK\n")
        #expect(
            result.standardError
                == "\(bad): FontSize of domain com.example.Editor cannot be 100 (integer): it must be an integer from 6 "
                + "to 72 (schema \(schema))\n"
                + "\(bad): Theme of domain com.example.Editor cannot be 3 (integer): it must be one of light, dark "
                + "(schema \(schema))\n")
        // Plain -lint is unchanged.
        #expect(try plutil.run(["-lint", bad]).standardOutput == "\(bad): OK\n")
    }

    @Test func aBrokenSchemaFailsNamingTheFileAndTheProblem() throws {
        let directory = try TemporaryDirectory(prefix: "plutil-schema")
        let schema = directory.file("x.schema.plist")
        try "{ Keys = { A = { Type = integer; Minimum = 2; Maximum = 1; }; }; }"
            .write(toFile: schema, atomically: true, encoding: .utf8)
        let file = directory.file("x.plist")
        try #"{ "A": 1 }"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try plutil.run(["-lint", "-schema", schema, file])
        #expect(result.status == 1)
        #expect(result.standardError == "plutil: schema \(schema): key A: Minimum 2 is greater than Maximum 1\n")
        let misuse = try plutil.run(["-p", "-schema", schema, file])
        #expect(misuse.status == 2)
    }
}
