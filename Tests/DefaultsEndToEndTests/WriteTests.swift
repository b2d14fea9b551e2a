// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `write`: plist-syntax values, typed flags, arrays and dictionaries, replacing a domain, and macOS's errors.
@Suite struct WriteTests {
    /// Writes `key` with the value arguments, then returns what `read` and `read-type` print for it.
    private func roundTrip(_ value: [String], key: String = "Key") throws -> (text: String, type: String) {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", key] + value)
        let read = try sandbox.run(["read", "com.example.App", key])
        let type = try sandbox.run(["read-type", "com.example.App", key])
        #expect(read.status == 0 && type.status == 0, "\(read)\n\(type)")
        return (read.standardOutput, type.standardOutput)
    }

    @Test(arguments: [
        (["dark"], "dark\n", "string"),
        (["two words"], "two words\n", "string"),
        (["5"], "5\n", "string"),
        (["-5"], "-5\n", "string"),
        (["caf\u{e9}"], "caf\u{e9}\n", "string"),
        (["a\\nb"], "a\nb\n", "string"),
        (["--"], "--\n", "string"),
        (["-string", "-int"], "-int\n", "string"),
        (["-int", "42"], "42\n", "integer"),
        (["-integer", "-7"], "-7\n", "integer"),
        (["-int", "18446744073709551615"], "18446744073709551615\n", "integer"),
        (["-float", "1.5"], "1.5\n", "float"),
        (["-float", "-2e3"], "-2000\n", "float"),
        (["-bool", "YES"], "1\n", "boolean"),
        (["-bool", "true"], "1\n", "boolean"),
        (["-boolean", "No"], "0\n", "boolean"),
        (["-bool", "FALSE"], "0\n", "boolean"),
        (["-date", "2024-05-01 12:30:00 +0000"], "2024-05-01 12:30:00 +0000\n", "date"),
        (["-date", "2024-05-01 14:30:00 +0200"], "2024-05-01 12:30:00 +0000\n", "date"),
        (["-date", "2024-05-01T12:30:00Z"], "2024-05-01 12:30:00 +0000\n", "date"),
        (["-data", "0fAB"], "{length = 2, bytes = 0x0fab}\n", "data"),
        (["-data", "abc"], "{length = 2, bytes = 0x0abc}\n", "data"),
        (["-data", ""], "{length = 0, bytes = 0x}\n", "data"),
        (["(255, 0, 0)"], "(\n    255,\n    0,\n    0\n)\n", "array"),
        (["{ a = 1; \"b c\" = (x); }"], "{\n    a = 1;\n    \"b c\" =     (\n        x\n    );\n}\n", "dictionary"),
        (["<integer>5</integer>"], "5\n", "integer"),
        (["<real>-0.5</real>"], "-0.5\n", "float"),
        (["<true/>"], "1\n", "boolean"),
        (
            ["<dict><key>k</key><date>2024-05-01T12:30:00Z</date></dict>"],
            "{\n    k = \"2024-05-01 12:30:00 +0000\";\n}\n", "dictionary"
        ),
        (["<0fab>"], "{length = 2, bytes = 0x0fab}\n", "data"),
        (["\"quoted\""], "quoted\n", "string"),
        (["-array"], "(\n)\n", "array"),
        (
            ["-array", "a", "-int", "1", "-bool", "yes", "(x, y)"],
            "(\n    a,\n    1,\n    1,\n        (\n        x,\n        y\n    )\n)\n", "array"
        ),
        (["-dict"], "{\n}\n", "dictionary"),
        (["-dict", "b", "-int", "2", "a", "one"], "{\n    a = one;\n    b = 2;\n}\n", "dictionary"),
    ])
    func writeStoresTheValueWithItsType(value: [String], text: String, type: String) throws {
        let result = try roundTrip(value)
        #expect(result.text == text)
        #expect(result.type == "Type is \(type)\n")
    }

    @Test func writeKeepsOtherKeysAndOverwritesTheSameKey() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "A", "one"])
        try sandbox.succeed(["write", "com.example.App", "B", "-int", "2"])
        try sandbox.succeed(["write", "com.example.App", "A", "uno"])
        expectRun(try sandbox.run(["read", "com.example.App"]), stdout: "{\n    A = uno;\n    B = 2;\n}\n")
    }

    @Test func writeLeavesAnXMLFileOnDiskWhenItExits() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>Theme</key>
            \t<string>dark</string>
            </dict>
            </plist>

            """
        #expect(sandbox.contents("prefs/com.example.App.plist") == expected)
        #expect(sandbox.list("prefs").filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test func arrayAddAppendsAndCreatesTheKeyWhenAbsent() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "List", "-array-add", "a"])
        try sandbox.succeed(["write", "com.example.App", "List", "-array-add", "b", "-int", "3"])
        expectRun(try sandbox.run(["read", "com.example.App", "List"]), stdout: "(\n    a,\n    b,\n    3\n)\n")
    }

    @Test func dictAddMergesAndCreatesTheKeyWhenAbsent() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Map", "-dict-add", "a", "1"])
        try sandbox.succeed(["write", "com.example.App", "Map", "-dict-add", "b", "2", "a", "one"])
        expectRun(
            try sandbox.run(["read", "com.example.App", "Map"]), stdout: "{\n    a = one;\n    b = 2;\n}\n")
    }

    @Test func addingToAValueOfAnotherTypeFailsWithMacOSWords() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Name", "text"])
        expectRun(
            try sandbox.run(["write", "com.example.App", "Name", "-array-add", "x"]), status: 1,
            stderr: "Value for key Name is not an array; cannot append.  Leaving defaults unchanged.\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "Name", "-dict-add", "k", "v"]), status: 1,
            stderr: "Value for key Name is not a dictionary; cannot append.  Leaving defaults unchanged.\n")
        expectRun(try sandbox.run(["read", "com.example.App", "Name"]), stdout: "text\n")
    }

    @Test func anExtraArgumentLeavesDefaultsUnchanged() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Key", "before"])
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "a", "b"]), status: 1,
            stderr: "Unexpected argument b; leaving defaults unchanged.\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "-int", "1", "--"]), status: 1,
            stderr: "Unexpected argument --; leaving defaults unchanged.\n")
        expectRun(try sandbox.run(["read", "com.example.App", "Key"]), stdout: "before\n")
    }

    @Test func textThatDoesNotParseAsksForSingleQuotes() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "(unclosed"]), status: 1,
            stderr: "Could not parse: (unclosed.  Try single-quoting it.\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "trailing\\"]), status: 1,
            stderr: "Could not parse: \"trailing\\\".  Try single-quoting it.\n")
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test func compositeErrorsUseMacOSWords() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "-array", "a", "-array", "b"]), status: 1,
            stderr: "Cannot nest composite types (arrays and dictionaries); exiting\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "-dict", "a", "-dict"]), status: 1,
            stderr: "Cannot nest composite types (arrays and dictionaries); exiting\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "-dict", "-int", "1", "x"]), status: 1,
            stderr: "Dictionary keys must be strings\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key", "-dict", "a", "1", "b"]), status: 1,
            stderr: "Key b lacks a corresponding value\n")
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test(arguments: [
        (["-bool", "maybe"], "defaults: -bool takes true, false, yes or no, not 'maybe'\n"),
        (
            ["-int", "12abc"],
            "defaults: -int takes a decimal integer from -9223372036854775808 to 18446744073709551615, not '12abc'\n"
        ),
        (
            ["-float", "fast"],
            "defaults: -float takes a number such as 1.5 or -2e3, not 'fast': it is not a decimal number\n"
        ),
        (
            ["-date", "tomorrow"],
            "defaults: -date takes a date such as '2024-05-01 12:30:00 +0000', '2024-05-01T12:30:00Z' or "
                + "'2024-05-01', not 'tomorrow': it is not in one of the formats\n"
        ),
        (["-data", "0x12"], "defaults: -data takes hexadecimal digits, not '0x12'\n"),
        (["-string"], "defaults: -string needs a value\n"),
        (["-array", "-int"], "defaults: -int needs a value\n"),
    ])
    func anInvalidTypedValueIsAUsageError(value: [String], reason: String) throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["write", "com.example.App", "Key"] + value), status: 255, stdout: helpText,
            stderr: reason)
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test func writeOfADictionaryReplacesTheDomain() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Old", "gone"])
        try sandbox.succeed(["write", "com.example.App", "{ New = here; Count = (1, 2); }"])
        expectRun(
            try sandbox.run(["read", "com.example.App"]),
            stdout: "{\n    Count =     (\n        1,\n        2\n    );\n    New = here;\n}\n")
    }

    @Test func writeOfSomethingElseThanADictionaryLeavesTheDomain() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Old", "kept"])
        for representation in ["(1, 2)", "plain"] {
            expectRun(
                try sandbox.run(["write", "com.example.App", representation]), status: 1,
                stderr: "\nRep argument is not a dictionary\nDefaults have not been changed.\n")
        }
        expectRun(try sandbox.run(["read", "com.example.App", "Old"]), stdout: "kept\n")
    }

    @Test func writeOfAnEmptyDictionaryRemovesTheDomainFile() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Old", "gone"])
        try sandbox.succeed(["write", "com.example.App", "{}"])
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test func writeOverACorruptFileSetsTheFileAsideAndSaysSo() throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.App.plist", "{ broken")
        let result = try sandbox.run(["write", "com.example.App", "Key", "value"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "")
        #expect(result.standardError.contains("renamed to com.example.App.plist.corrupt-"))
        let aside = sandbox.list("prefs").filter { $0.hasPrefix("com.example.App.plist.corrupt-") }
        #expect(aside.count == 1)
        #expect(sandbox.contents("prefs/\(aside.first ?? "")") == "{ broken")
        expectRun(try sandbox.run(["read", "com.example.App"]), stdout: "{\n    Key = value;\n}\n")
    }

    @Test func writeBeyondTheKeyLengthLimitFailsNamingTheLimit() throws {
        let sandbox = try Sandbox()
        let key = String(repeating: "k", count: 2000)
        let result = try sandbox.run(["write", "com.example.App", key, "v"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("maxKeyBytes = 1024"))
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }
}

/// Typed values that name no real date or no finite number are refused before anything is written.
@Suite struct InvalidValueTests {
    @Test(arguments: [
        ("2024-13-01 12:00:00 +0000", "month 13 is not 01–12"),
        ("2024-02-30 12:00:00 +0000", "day 30 is not 01–29 in that month"),
        ("2023-02-29", "day 29 is not 01–28 in that month"),
        ("2024-04-31T00:00:00Z", "day 31 is not 01–30 in that month"),
        ("2024-05-01 25:00:00 +0000", "hour 25 is not 00–23"),
        ("2024-05-01 24:00:00 +0000", "hour 24 is not 00–23"),
        ("2024-05-01 12:60:00 +0000", "minute 60 is not 00–59"),
        ("2024-05-01 12:00:60 +0000", "second 60 is not 00–59"),
        ("2024-05-01 12:00:00 +9999", "the offset is not within ±18:00"),
        ("2024-05-01 12:00:00 +1860", "the offset is not within ±18:00"),
        ("99999-01-01 00:00:00 +0000", "year 99999 is not 0001–9999"),
        ("0000-00-00", "year 0 is not 0001–9999"),
        ("0001-00-01", "month 0 is not 01–12"),
        ("2024-05-01 12:00:00", "the time has no offset from UTC (+0000, or Z)"),
        ("2024-05-01T12:00:00", "the time has no offset from UTC (+0000, or Z)"),
        ("2024-5-1", "it is not in one of the formats"),
        ("2024-05-01 12:00", "it is not in one of the formats"),
        ("2024-05-01T12:00:00Zjunk", "it is not in one of the formats"),
        ("2024-05-011", "it is not in one of the formats"),
        ("2024-05-01 12:00:00 +00000", "it is not in one of the formats"),
        ("tomorrow", "it is not in one of the formats"),
        ("", "it is not in one of the formats"),
    ])
    func invalidDatesAreRefused(text: String, reason: String) throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["write", "com.example.App", "When", "-date", text]), status: 255, stdout: helpText,
            stderr: "defaults: -date takes a date such as '2024-05-01 12:30:00 +0000', '2024-05-01T12:30:00Z' or "
                + "'2024-05-01', not '\(text)': \(reason)\n")
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test(arguments: [
        ("2024-02-29 23:59:59 +0000", "2024-02-29 23:59:59 +0000"),
        ("2000-02-29", "2000-02-29 00:00:00 +0000"),
        ("2024-05-01 00:30:00 -1800", "2024-05-01 18:30:00 +0000"),
        ("2024-05-01 14:30:00 +0200", "2024-05-01 12:30:00 +0000"),
        ("2024-05-01T14:30:00+02:00", "2024-05-01 12:30:00 +0000"),
        ("2024-05-01T12:30:00.75Z", "2024-05-01 12:30:00 +0000"),
        ("2024-05-01T12:30Z", "2024-05-01 12:30:00 +0000"),
        ("0001-01-01 00:00:00 +0000", "0001-01-01 00:00:00 +0000"),
        ("9999-12-31T23:59:59Z", "9999-12-31 23:59:59 +0000"),
        (" 2024-05-01 ", "2024-05-01 00:00:00 +0000"),
    ])
    func validDatesAreStored(text: String, stored: String) throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "When", "-date", text])
        expectRun(try sandbox.run(["read", "com.example.App", "When"]), stdout: stored + "\n")
    }

    @Test(arguments: [
        ("1e400", "it is beyond the largest double, ±1.7976931348623157e308"),
        ("-1e400", "it is beyond the largest double, ±1.7976931348623157e308"),
        ("1e-400", "it is too small for a double and would be stored as 0"),
        ("nan", "it is not a decimal number"),
        ("inf", "it is not a decimal number"),
        ("-infinity", "it is not a decimal number"),
        ("0x1p3", "it is not a decimal number"),
        ("1.5.2", "it is not a decimal number"),
        ("1e", "it is not a decimal number"),
        ("", "it is not a decimal number"),
    ])
    func nonFiniteRealsAreRefused(text: String, reason: String) throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["write", "com.example.App", "Real", "-float", text]), status: 255, stdout: helpText,
            stderr: "defaults: -float takes a number such as 1.5 or -2e3, not '\(text)': \(reason)\n")
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test(arguments: [
        ("1e308", "1e+308"), ("-0", "-0"), ("0e999", "0"), (".5", "0.5"), ("5.", "5"),
        ("4.9e-324", "4.940656458412465e-324"),
    ])
    func finiteRealsAreStored(text: String, stored: String) throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Real", "-float", text])
        expectRun(try sandbox.run(["read", "com.example.App", "Real"]), stdout: stored + "\n")
    }

    @Test(arguments: ["18446744073709551616", "-9223372036854775809", "99999999999999999999999", "1e3", "0x10"])
    func integersOutsideThePlistRangeAreRefused(text: String) throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["write", "com.example.App", "Number", "-int", text]), status: 255, stdout: helpText,
            stderr: "defaults: -int takes a decimal integer from -9223372036854775808 to 18446744073709551615, not "
                + "'\(text)'\n")
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }
}
