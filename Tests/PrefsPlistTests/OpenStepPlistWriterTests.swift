// SPDX-License-Identifier: Apache-2.0
import PrefsTestSupport
import Testing

@testable import PrefsPlist

private func writtenOpenStep(_ value: PlistValue) throws -> String {
    String(decoding: try OpenStepPlistWriter.write(value), as: UTF8.self)
}

private func readWrittenOpenStep(_ bytes: [UInt8]) throws -> PlistValue {
    try bytes.withUnsafeBytes { try OpenStepPlistReader.read($0, limits: .default) }
}

@Suite struct OpenStepPlistWriterTests {
    // MARK: Layout

    @Test func nestedLayoutUsesTabsAndSortedKeys() throws {
        let value: PlistValue = [
            "b": ["x", "y"],
            "a": ["inner": "value", "deeper": ["k": ["1", "2"]]],
            "c": .data([0x0F, 0xAB, 0x12, 0xCD]),
            "empty dict": [:],
            "empty list": [],
        ]
        #expect(
            try writtenOpenStep(value) == """
                {
                \ta = {
                \t\tdeeper = {
                \t\t\tk = (
                \t\t\t\t1,
                \t\t\t\t2
                \t\t\t);
                \t\t};
                \t\tinner = value;
                \t};
                \tb = (
                \t\tx,
                \t\ty
                \t);
                \tc = <0fab12cd>;
                \t"empty dict" = {};
                \t"empty list" = ();
                }

                """)
    }

    @Test func arraysOfDictionaries() throws {
        #expect(
            try writtenOpenStep([["a": "1"], [], "z"]) == """
                (
                \t{
                \t\ta = 1;
                \t},
                \t(),
                \tz
                )

                """)
    }

    @Test(
        arguments: [
            (PlistValue.string("word"), "word\n"), ("two words", "\"two words\"\n"), ([:], "{}\n"), ([], "()\n"),
            (PlistValue.data([]), "<>\n"),
        ] as [(PlistValue, String)])
    func topLevelValues(value: PlistValue, expected: String) throws {
        #expect(try writtenOpenStep(value) == expected)
    }

    @Test func keysSortByUTF16CodeUnits() throws {
        // UTF-16 puts "😀" (surrogates D83D DE00) before U+FF5E; code-point order would not.
        let value: PlistValue = ["b": "1", "a": "1", "B": "1", "\u{FF5E}": "1", "😀": "1", "é": "1"]
        #expect(
            try writtenOpenStep(value) == """
                {
                \tB = 1;
                \ta = 1;
                \tb = 1;
                \t"\\U00e9" = 1;
                \t"\\Ud83d\\Ude00" = 1;
                \t"\\Uff5e" = 1;
                }

                """)
    }

    @Test func utf16OrderMatchesTheUTF16View() throws {
        let samples = [
            "", "a", "ab", "b", "é", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "😀", "😀a", "𝄞", "a😀", "aé", "a\u{E000}",
        ]
        for lhs in samples {
            for rhs in samples {
                #expect(
                    OpenStepPlistWriter.utf16Precedes(lhs, rhs) == lhs.utf16.lexicographicallyPrecedes(rhs.utf16),
                    "\(lhs.unicodeScalars.map(\.value)) vs \(rhs.unicodeScalars.map(\.value))")
            }
        }
    }

    // MARK: Strings

    @Test(arguments: [
        ("abcXYZ019", "abcXYZ019"), ("a_b$/:.-", "a_b$/:.-"), ("/usr/bin", "/usr/bin"), ("-1", "-1"),
        ("", "\"\""), ("a b", "\"a b\""), ("//not a comment", "\"//not a comment\""), ("/*x", "\"/*x\""),
        ("say \"hi\"", #""say \"hi\"""#), (#"C:\dir"#, #""C:\\dir""#), ("a\nb", #""a\nb""#),
        ("a\tb", #""a\tb""#), ("a\rb", #""a\U000db""#), ("\u{1}\u{1F}\u{7F}", #""\U0001\U001f\U007f""#),
        ("é", #""\U00e9""#), ("日本", #""\U65e5\U672c""#), ("😀", #""\Ud83d\Ude00""#), ("a'b", "\"a'b\""),
        ("a=b;", "\"a=b;\""),
    ])
    func stringsAreBareOnlyWhenSafe(string: String, expected: String) throws {
        #expect(try writtenOpenStep(.string(string)) == expected + "\n")
        #expect(try readWrittenOpenStep(OpenStepPlistWriter.write(.string(string))) == .string(string))
    }

    @Test func outputIsASCII() throws {
        let bytes = try OpenStepPlistWriter.write(["ключ": ["値", "🎉", "\u{0}"]])
        #expect(bytes.allSatisfy { $0 < 0x80 })
    }

    // MARK: Lossy scalars

    @Test func scalarsWithoutAnOpenStepTypeBecomeStrings() throws {
        let date = PlistValue.date(try #require(PlistDate(iso8601: "2004-10-26T10:33:33Z")))
        let value: PlistValue = [
            "int": 42, "negative": -7, "huge": .integer(PlistInteger(UInt64.max)), "real": 0.5, "whole": 2.0,
            "tiny": 1e-7, "big": 1e20, "yes": true, "no": false, "date": date,
        ]
        #expect(
            try writtenOpenStep(value) == """
                {
                \tbig = "1e+20";
                \tdate = "2004-10-26 10:33:33 +0000";
                \thuge = 18446744073709551615;
                \tint = 42;
                \tnegative = -7;
                \tno = NO;
                \treal = 0.5;
                \ttiny = 1e-07;
                \twhole = 2;
                \tyes = YES;
                }

                """)
        #expect(
            try readWrittenOpenStep(OpenStepPlistWriter.write(value)) == [
                "int": "42", "negative": "-7", "huge": "18446744073709551615", "real": "0.5", "whole": "2",
                "tiny": "1e-07", "big": "1e+20", "yes": "YES", "no": "NO", "date": "2004-10-26 10:33:33 +0000",
            ])
    }

    @Test func realTextReadsBackAsTheSameDouble() throws {
        for real in [
            0.1, 1.0 / 3.0, -0.0, 123456789.125, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity,
            -.infinity,
        ] {
            let text = OpenStepPlistWriter.realText(real)
            #expect(Double(text)?.bitPattern == real.bitPattern, "\(real) → \(text)")
        }
        #expect(OpenStepPlistWriter.realText(.nan) == "nan")
    }

    // MARK: Unrepresentable values

    @Test func uidAndNullAreErrorsNamingTheKeyPath() throws {
        let value: PlistValue = ["a": ["list": ["x", .uid(3)]], "b": "fine"]
        do {
            _ = try OpenStepPlistWriter.write(value)
            Issue.record("a uid was written")
        } catch let error as PlistError {
            #expect(error.code == .unrepresentable)
            #expect(error.message == "the uid 3 cannot be written as OpenStep text")
            #expect(error.position == .codingPath("a.list[1]"))
        }
        #expect(throws: PlistError.self) { try OpenStepPlistWriter.write([[.null]]) }
        do {
            _ = try OpenStepPlistWriter.write(.null)
        } catch let error as PlistError {
            #expect(error.position == .codingPath(""))
            #expect(error.message == "a null value cannot be written as OpenStep text")
        }
        #expect(throws: PlistError.self) {
            try OpenStepPlistWriter.write(["d": .date(PlistDate(secondsSinceReferenceDate: .infinity))])
        }
    }

    // MARK: Round trips

    @Test func stringsDataArraysAndDictionariesRoundTrip() throws {
        var generator = OpenStepTestGenerator(seed: 7)
        for _ in 0..<200 {
            let value = randomValue(depth: 0, using: &generator)
            let bytes = try OpenStepPlistWriter.write(value)
            #expect(try readWrittenOpenStep(bytes) == value, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    private func randomValue(depth: Int, using generator: inout OpenStepTestGenerator) -> PlistValue {
        switch generator.next() % (depth < 4 ? 4 : 2) {
        case 0: return .string(randomString(using: &generator))
        case 1: return .data((0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        case 2:
            return .array((0..<Int(generator.next() % 5)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var entries: PlistDictionary = [:]
            for _ in 0..<Int(generator.next() % 5) {
                entries[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .dictionary(entries)
        }
    }

    private func randomString(using generator: inout OpenStepTestGenerator) -> String {
        let pieces: [String] = [
            "a", "Z", "0", "_", "$", "/", ":", ".", "-", " ", "\"", "'", "\\", "\n", "\t", "\r", "\u{0}", "\u{7F}",
            "é", "日", "😀", "//", "/*", "*/", ";", "=", "{", ")", "<", "\u{2028}", "\u{FEFF}",
        ]
        return (0..<Int(generator.next() % 8)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
            .joined()
    }

    @Test(
        arguments: (try? Corpus.load())?.files.filter {
            $0.relativePath.hasPrefix("openstep/") && ($0.expectation == .accept || $0.expectation == .gnustep)
        } ?? [])
    func corpusFilesRoundTrip(file: Corpus.File) throws {
        let value = try readWrittenOpenStep(try file.bytes())
        guard !file.relativePath.contains("gnustep.plist"), !file.relativePath.contains("gnustep-base64") else {
            // GNUstep integers, reals, booleans and dates come back as strings.
            #expect(try readWrittenOpenStep(OpenStepPlistWriter.write(value)) != value)
            return
        }
        #expect(try readWrittenOpenStep(OpenStepPlistWriter.write(value)) == value, "\(file)")
    }
}
