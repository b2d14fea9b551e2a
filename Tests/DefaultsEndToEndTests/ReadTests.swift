// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `read` and `read-type`: Apple's text for every type, nested containers, unicode, and macOS's errors.
@Suite struct ReadTests {
    /// A domain with every type, nesting, quoting and unicode.
    static let richDomain = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>Array</key>
            <array><integer>1</integer><string>two words</string><real>2.5</real><true/></array>
            <key>Data</key><data>AAECAw==</data>
            <key>LongData</key><data>AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=</data>
            <key>Date</key><date>2024-05-01T12:30:00Z</date>
            <key>Empty</key><string></string>
            <key>EmptyArray</key><array/>
            <key>EmptyDict</key><dict/>
            <key>False</key><false/>
            <key>Negative</key><integer>-1</integer>
            <key>Nested</key>
            <dict>
                <key>Inner</key>
                <array>
                    <dict><key>a</key><integer>1</integer></dict>
                    <array><string>x</string></array>
                </array>
                <key>Name</key><string>Safari浏览器</string>
            </dict>
            <key>Real</key><real>0.1</real>
            <key>BigReal</key><real>1e+20</real>
            <key>True</key><true/>
            <key>Unicode</key><string>Safari浏览器</string>
            <key>loc</key><string>zh_CN:CN</string>
            <key>mod-count</key><integer>4216</integer>
            <key>preferreditemsize</key><integer>-1</integer>
            <key>quote"d</key><string>a\\b"c
        line</string>
        </dict>
        </plist>
        """

    static let richText = """
        {
            Array =     (
                1,
                "two words",
                "2.5",
                1
            );
            BigReal = "1e+20";
            Data = {length = 4, bytes = 0x00010203};
            Date = "2024-05-01 12:30:00 +0000";
            Empty = "";
            EmptyArray =     (
            );
            EmptyDict =     {
            };
            False = 0;
            LongData = {length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f };
            Negative = "-1";
            Nested =     {
                Inner =         (
                                {
                        a = 1;
                    },
                                (
                        x
                    )
                );
                Name = "Safari\\U6d4f\\U89c8\\U5668";
            };
            Real = "0.1";
            True = 1;
            Unicode = "Safari\\U6d4f\\U89c8\\U5668";
            loc = "zh_CN:CN";
            "mod-count" = 4216;
            preferreditemsize = "-1";
            "quote\\"d" = "a\\\\b\\"c\\nline";
        }

        """

    @Test func readPrintsAppleTextForEveryType() throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.Rich.plist", Self.richDomain)
        expectRun(try sandbox.run(["read", "com.example.Rich"]), stdout: Self.richText)
    }

    @Test(arguments: [
        ("Unicode", "Safari浏览器\n"),
        ("Empty", "\n"),
        ("Negative", "-1\n"),
        ("mod-count", "4216\n"),
        ("Real", "0.1\n"),
        ("BigReal", "1e+20\n"),
        ("True", "1\n"),
        ("False", "0\n"),
        ("Date", "2024-05-01 12:30:00 +0000\n"),
        ("Data", "{length = 4, bytes = 0x00010203}\n"),
        ("Array", "(\n    1,\n    \"two words\",\n    \"2.5\",\n    1\n)\n"),
        ("EmptyDict", "{\n}\n"),
        ("quote\"d", "a\\b\"c\nline\n"),
    ])
    func readOfOneKeyPrintsTheBareValue(key: String, expected: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.Rich.plist", Self.richDomain)
        expectRun(try sandbox.run(["read", "com.example.Rich", key]), stdout: expected)
    }

    @Test func readOfANestedDictionaryIndentsFromTheLeftMargin() throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.Rich.plist", Self.richDomain)
        let expected = """
            {
                Inner =     (
                            {
                        a = 1;
                    },
                            (
                        x
                    )
                );
                Name = "Safari\\U6d4f\\U89c8\\U5668";
            }

            """
        expectRun(try sandbox.run(["read", "com.example.Rich", "Nested"]), stdout: expected)
    }

    @Test(arguments: [
        ("Unicode", "string"), ("Negative", "integer"), ("Real", "float"), ("True", "boolean"), ("Date", "date"),
        ("Data", "data"), ("Array", "array"), ("Nested", "dictionary"),
    ])
    func readTypeNamesTheType(key: String, type: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.Rich.plist", Self.richDomain)
        expectRun(try sandbox.run(["read-type", "com.example.Rich", key]), stdout: "Type is \(type)\n")
    }

    @Test func readOfAMissingDomainSaysSo() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["read", "com.example.Missing"]), status: 1,
            stderr: "\nDomain com.example.Missing does not exist\n")
    }

    @Test func readOfAnEmptyDomainSaysItDoesNotExist() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.Empty", "{}")
        expectRun(
            try sandbox.run(["read", "com.example.Empty"]), status: 1,
            stderr: "\nDomain com.example.Empty does not exist\n")
    }

    @Test func readOfAMissingKeySaysSo() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = dark; }")
        expectRun(
            try sandbox.run(["read", "com.example.App", "Nope"]), status: 1,
            stderr: "\nThe domain/default pair of (com.example.App, Nope) does not exist\n")
        expectRun(
            try sandbox.run(["read", "com.example.Missing", "Nope"]), status: 1,
            stderr: "\nThe domain/default pair of (com.example.Missing, Nope) does not exist\n")
    }

    @Test func readTypeOfAMissingKeySaysSo() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["read-type", "com.example.App", "Nope"]), status: 1,
            stderr: "\nThe domain/default pair of (com.example.App, Nope) does not exist\n")
    }

    @Test func readOfTheGlobalDomainNamesItAsMacOSDoes() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["read", "-g"]), status: 1, stderr: "\nDomain Apple Global Domain does not exist\n")
        expectRun(
            try sandbox.run(["read", "-g", "AppleInterfaceStyle"]), status: 1,
            stderr: "\nThe domain/default pair of (kCFPreferencesAnyApplication, AppleInterfaceStyle) does not exist\n")
    }

    @Test func readWithoutADomainPrintsEveryDomain() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = dark; }")
        try sandbox.domain("org.example.Tool", "{ \"two words\" = (a, b); }")
        try sandbox.domain("NSGlobalDomain", "{ AppleLocale = en_US; }")
        let expected = """
            {
                "Apple Global Domain" =     {
                    AppleLocale = "en_US";
                };
                "com.example.App" =     {
                    Theme = dark;
                };
                "org.example.Tool" =     {
                    "two words" =         (
                        a,
                        b
                    );
                };
            }

            """
        expectRun(try sandbox.run(["read"]), stdout: expected)
    }

    @Test func readWithoutAnyDomainPrintsAnEmptyDictionary() throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(["read"]), stdout: "{\n}\n")
    }

    @Test func verbsAreMatchedWithoutRegardToCase() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = dark; }")
        expectRun(try sandbox.run(["READ", "com.example.App", "Theme"]), stdout: "dark\n")
        expectRun(try sandbox.run(["Read-Type", "com.example.App", "Theme"]), stdout: "Type is string\n")
    }

    @Test func aCorruptDomainIsReportedWithItsFileAndLeftAlone() throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.Broken.plist", "<plist><dict><key>a</key></dict></plist>")
        let result = try sandbox.run(["read", "com.example.Broken"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        let path = sandbox.preferences + "/com.example.Broken.plist"
        #expect(
            result.standardError.hasPrefix("defaults: \(path), the file of domain com.example.Broken, is corrupt: "))
        #expect(result.standardError.contains("line"))
        #expect(result.standardError.hasSuffix("\n"))
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(sandbox.contents("prefs/com.example.Broken.plist") == "<plist><dict><key>a</key></dict></plist>")
    }

    @Test func readWithoutADomainSkipsACorruptDomainWithAWarning() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = dark; }")
        try sandbox.write("prefs/com.example.Broken.plist", "{ unterminated")
        let result = try sandbox.run(["read"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "{\n    \"com.example.App\" =     {\n        Theme = dark;\n    };\n}\n")
        #expect(result.standardError.hasPrefix("defaults: warning: \(sandbox.preferences)/com.example.Broken.plist"))
    }
}
