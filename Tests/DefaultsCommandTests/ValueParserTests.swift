// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// Values as `write` reads them: plain text, property-list text, and typed flags.
@Suite struct ValueParserTests {
    private func value(_ arguments: [String]) throws -> (PlistValue, KeyAssignment.Mode, Int) {
        var cursor = 0
        let (value, mode) = try ValueParser.parseValue(arguments, cursor: &cursor, allowsContainers: true)
        return (value, mode, cursor)
    }

    static let textCases: [(String, PlistValue)] = [
        ("plain", PlistValue.string("plain")),
        ("with space", "with space"),
        ("12", "12"),
        ("a\\tb", "a\tb"),
        ("\\U00e9t\\U00e9", "été"),
        ("(1, (2))", ["1", ["2"]]),
        ("{ k = v; }", ["k": "v"]),
        ("<integer>-3</integer>", -3),
        ("<array><true/><real>1.5</real></array>", [true, 1.5]),
        ("  <string>padded</string>", "padded"),
        ("<deadbeef>", PlistValue.data([0xde, 0xad, 0xbe, 0xef])),
        ("\"a (b)\"", "a (b)"),
    ]

    @Test(arguments: textCases)
    func textBecomesAStringOrAPropertyList(text: String, expected: PlistValue) throws {
        #expect(try ValueParser.parsePropertyListText(text) == expected)
    }

    @Test(arguments: ["(", "{ a = }", "<integer>x</integer>", "trailing\\", "\"open", "[1, 2]"])
    func textThatDoesNotParseIsReportedWithMacOSWords(text: String) {
        do {
            _ = try ValueParser.parsePropertyListText(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.hasPrefix("Could not parse: "))
            #expect(error.message.hasSuffix(".  Try single-quoting it.\n"))
        }
    }

    @Test func typedFlagsConsumeTheirArgument() throws {
        #expect(try value(["-string", "-x", "rest"]) == (.string("-x"), .set, 2))
        #expect(try value(["-int", " 42 "]) == (42, .set, 2))
        #expect(try value(["-int", "-9223372036854775808"]) == (.integer(PlistInteger(Int64.min)), .set, 2))
        #expect(try value(["-float", "1e-3"]) == (.real(0.001), .set, 2))
        #expect(try value(["-bool", "Yes"]) == (true, .set, 2))
        #expect(try value(["-data", "A"]) == (.data([0x0a]), .set, 2))
        #expect(try value(["-date", "2001-01-01"]) == (.date(PlistDate(secondsSinceReferenceDate: 0)), .set, 2))
        #expect(try value(["-array", "a", "-int", "1", "--", "x"]) == (["a", 1], .set, 4))
        #expect(try value(["-array-add"]) == ([], .arrayAdd, 1))
        #expect(try value(["-dict-add", "k", "-bool", "no"]) == (["k": false], .dictionaryAdd, 4))
        #expect(try value(["-dict", "-string", "k", "(1)"]) == (["k": ["1"]], .set, 4))
    }

    @Test func integersOutsideThePlistRangeAreRefused() {
        #expect(ValueParser.integer("18446744073709551616") == nil)
        #expect(ValueParser.integer("-9223372036854775809") == nil)
        #expect(ValueParser.integer("1.0") == nil)
        #expect(ValueParser.integer("") == nil)
        #expect(ValueParser.integer("+7") == PlistInteger(7))
    }

    @Test func hexDigitsWithAnOddCountStartWithALoneNibble() {
        #expect(ValueParser.hexBytes("123") == [0x01, 0x23])
        #expect(ValueParser.hexBytes("") == [])
        #expect(ValueParser.hexBytes("zz") == nil)
        #expect(ValueParser.hexBytes("12 34") == nil)
    }

    @Test func combinedValuesFollowMacOS() throws {
        let add = KeyAssignment(key: PlistKeyPath(key: "k"), value: ["b"], mode: .arrayAdd)
        #expect(try add.combined(with: ["a"]) == ["a", "b"])
        #expect(try add.combined(with: nil) == ["b"])
        #expect(throws: DefaultsError.self) { try add.combined(with: "text") }
        let merge = KeyAssignment(key: PlistKeyPath(key: "k"), value: ["x": 2, "y": 3], mode: .dictionaryAdd)
        #expect(try merge.combined(with: ["x": 1, "z": 0]) == ["x": 2, "y": 3, "z": 0])
        #expect(throws: DefaultsError.self) { try merge.combined(with: [1]) }
        let set = KeyAssignment(key: PlistKeyPath(key: "k"), value: 5, mode: .set)
        #expect(try set.combined(with: "anything") == 5)
    }
}
