// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@Suite struct DefaultsDescriptionTests {
    private static let date = PlistValue.date(PlistDate(secondsSinceReferenceDate: 120_479_613))  // 2004-10-26 10:33:33

    // MARK: A scalar on its own (single-key `read`)

    @Test(arguments: [
        (PlistValue.string("plain"), "plain"),
        ("two words \"quoted\" é\n", "two words \"quoted\" é\n"),
        ("", ""),
        (4216, "4216"),
        (-1, "-1"),
        (.integer(PlistInteger(UInt64.max)), "18446744073709551615"),
        (0.5, "0.5"),
        (1.0, "1"),
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (.real(1.0 / 3.0), "0.3333333333333333"),
        (1e20, "1e+20"),
        (1e-5, "1e-05"),
        (123456789012345678.0, "1.234567890123457e+17"),
        (.real(.infinity), "inf"),
        (true, "1"),
        (false, "0"),
        (date, "2004-10-26 10:33:33 +0000"),
        (.data([0, 1, 2, 3]), "{length = 4, bytes = 0x00010203}"),
        (.uid(5), "<CFKeyedArchiverUID>{value = 5}"),
        (.null, "<null>"),
    ])
    func topLevelScalarPrintsBare(value: PlistValue, expected: String) {
        #expect(value.defaultsDescription == expected)
    }

    // MARK: Data

    @Test func dataUpTo24BytesPrintsEveryByte() {
        #expect(PlistValue.data([]).defaultsDescription == "{length = 0, bytes = 0x}")
        #expect(
            PlistValue.data((0..<24).map(UInt8.init)).defaultsDescription
                == "{length = 24, bytes = 0x000102030405060708090a0b0c0d0e0f1011121314151617}")
    }

    @Test func longerDataIsAbbreviated() {
        #expect(
            PlistValue.data((0..<40).map(UInt8.init)).defaultsDescription
                == "{length = 40, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 20212223 24252627 }")
        #expect(
            PlistValue.data((0..<25).map { UInt8($0 * 10) }).defaultsDescription
                == "{length = 25, bytes = 0x000a141e 28323c46 505a646e 78828c96 ... aab4bec8 d2dce6f0 }")
    }

    // MARK: Each type inside a dictionary and an array

    @Test func everyTypeInsideADictionary() {
        let value: PlistValue = [
            "string": "zh_CN:CN", "word": "plain", "int": 4216, "negative": -1, "real": 0.5, "whole": 2.0,
            "yes": true, "no": false, "date": Self.date, "data": .data([0xCA, 0xFE]), "uid": .uid(7),
            "null": .null,
        ]
        #expect(
            value.defaultsDescription == """
                {
                    data = {length = 2, bytes = 0xcafe};
                    date = "2004-10-26 10:33:33 +0000";
                    int = 4216;
                    negative = "-1";
                    no = 0;
                    null = "<null>";
                    real = "0.5";
                    string = "zh_CN:CN";
                    uid = "<CFKeyedArchiverUID>{value = 7}";
                    whole = 2;
                    word = plain;
                    yes = 1;
                }
                """)
    }

    @Test func everyTypeInsideAnArray() {
        let value: PlistValue = ["a b", "word", 3, -3, 0.25, true, Self.date, .data([1]), [], [:]]
        #expect(
            value.defaultsDescription == """
                (
                    "a b",
                    word,
                    3,
                    "-3",
                    "0.25",
                    1,
                    "2004-10-26 10:33:33 +0000",
                    {length = 1, bytes = 0x01},
                        (
                    ),
                        {
                    }
                )
                """)
    }

    // MARK: Nesting

    @Test func nestedContainersCarryTheirOwnIndentation() {
        let value: PlistValue = [
            "AppleLanguages": ["en-US", "zh-Hans-US"],
            "list": [["name": "foo"], ["name": "bar"]],
            "mod-count": 4216,
            "nested": ["a": 1],
            "empty": [],
        ]
        #expect(
            value.defaultsDescription == """
                {
                    AppleLanguages =     (
                        "en-US",
                        "zh-Hans-US"
                    );
                    empty =     (
                    );
                    list =     (
                                {
                            name = foo;
                        },
                                {
                            name = bar;
                        }
                    );
                    "mod-count" = 4216;
                    nested =     {
                        a = 1;
                    };
                }
                """)
    }

    @Test func threeLevelsDeep() {
        let value: PlistValue = ["a": ["b": ["c": [1, ["d": "e"]]]]]
        #expect(
            value.defaultsDescription == """
                {
                    a =     {
                        b =         {
                            c =             (
                                1,
                                                {
                                    d = e;
                                }
                            );
                        };
                    };
                }
                """)
    }

    @Test func arraysOfArrays() {
        #expect(
            PlistValue.array([["x"], []]).defaultsDescription == """
                (
                        (
                        x
                    ),
                        (
                    )
                )
                """)
    }

    @Test func emptyContainersAtTheTop() {
        #expect(PlistValue.dictionary([:]).defaultsDescription == "{\n}")
        #expect(PlistValue.array([]).defaultsDescription == "(\n)")
    }

    // MARK: Quoting and escaping

    @Test(arguments: [
        ("mod-count", "\"mod-count\""), ("a_b", "\"a_b\""), ("abc123", "abc123"), ("ABC", "ABC"), ("", "\"\""),
        ("com.apple.finder", "\"com.apple.finder\""), ("with space", "\"with space\""), ("123", "123"),
        ("é", "\"\\U00e9\""),
    ])
    func keysAreBareOnlyWhenLettersAndDigits(key: String, expected: String) {
        #expect(PlistValue.dictionary([key: 1]).defaultsDescription == "{\n    \(expected) = 1;\n}")
    }

    @Test func unicodeIsEscapedAsUTF16Units() {
        let value: PlistValue = ["name": "Safari浏览器", "emoji": "😀", "accent": "café"]
        #expect(
            value.defaultsDescription == """
                {
                    accent = "caf\\U00e9";
                    emoji = "\\Ud83d\\Ude00";
                    name = "Safari\\U6d4f\\U89c8\\U5668";
                }
                """)
    }

    @Test func controlCharactersQuotesAndBackslashesAreEscaped() {
        let value: PlistValue = ["a\"b\\c\nd\te\u{1}f\r\u{7F}"]
        #expect(value.defaultsDescription == "(\n    \"a\\\"b\\\\c\\nd\\te\\U0001f\\U000d\\U007f\"\n)")
    }

    @Test func keysSortLikeFoundation() {
        let value: PlistValue = ["b": 1, "B": 1, "a": 1, "_": 1, "1": 1]
        #expect(value.defaultsDescription == "{\n    1 = 1;\n    B = 1;\n    \"_\" = 1;\n    a = 1;\n    b = 1;\n}")
    }
}
