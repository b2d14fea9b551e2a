// SPDX-License-Identifier: Apache-2.0
import PrefsTestSupport
import Testing

@testable import PrefsPlist

/// Reads `text` (UTF-8) with the OpenStep reader.
private func readOpenStep(_ text: String, limits: PlistLimits = .default) throws -> PlistValue {
    try readOpenStep(Array(text.utf8), limits: limits)
}

private func readOpenStep(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
    try bytes.withUnsafeBytes { try OpenStepPlistReader.read($0, limits: limits) }
}

/// The error reading `text` throws, or `nil` when it is read.
private func openStepReadError(_ text: String, limits: PlistLimits = .default) -> PlistError? {
    openStepReadError(Array(text.utf8), limits: limits)
}

private func openStepReadError(_ bytes: [UInt8], limits: PlistLimits = .default) -> PlistError? {
    do {
        _ = try readOpenStep(bytes, limits: limits)
        return nil
    } catch let error as PlistError {
        return error
    } catch {
        Issue.record("not a PlistError: \(error)")
        return nil
    }
}

@Suite struct OpenStepPlistReaderTests {
    // MARK: Grammar

    @Test func quotedStringsDoNotConcatenate() throws {
        #expect(openStepReadError("{ a = 'it''s'; }")?.position == .text(line: 1, column: 11))
    }

    @Test func readsNestedContainers() throws {
        let value = try readOpenStep(
            """
            {
                name = "Jane Doe";
                path = /usr/local/bin;
                list = (a, "b c", <0fAB 12>, (), {});
                'single' = 'say "hi"';
                nested = { inner = value; };
            }
            """)
        let expected: PlistValue = [
            "name": "Jane Doe", "path": "/usr/local/bin",
            "list": ["a", "b c", .data([0x0F, 0xAB, 0x12]), [], [:]],
            "single": "say \"hi\"", "nested": ["inner": "value"],
        ]
        #expect(value == expected)
    }

    @Test func everyUnquotedCharacterIsAccepted() throws {
        #expect(try readOpenStep("abcXYZ019_$/:.-") == "abcXYZ019_$/:.-")
        #expect(try readOpenStep("( -1.5e3, 10:20, a/b )") == ["-1.5e3", "10:20", "a/b"])
    }

    @Test func numbersBooleansAndDatesStayStrings() throws {
        #expect(
            try readOpenStep("( 1, -2, 3.5, YES, NO, \"2011-11-28T09:21:30Z\" )")
                == ["1", "-2", "3.5", "YES", "NO", "2011-11-28T09:21:30Z"])
    }

    @Test func arraysAllowOneTrailingComma() throws {
        #expect(try readOpenStep("(a, b,)") == ["a", "b"])
        #expect(try readOpenStep("( )") == [])
        #expect(openStepReadError("(a,,)")?.code == .malformed)
        #expect(openStepReadError("(,)")?.code == .malformed)
        #expect(openStepReadError("(a b)")?.position == .text(line: 1, column: 4))
    }

    @Test func laterDuplicateKeysWin() throws {
        #expect(try readOpenStep("{ a = 1; a = 2; }") == ["a": "2"])
    }

    @Test func dataAllowsWhiteSpaceBetweenDigitPairs() throws {
        #expect(try readOpenStep("<00 01\t02\n03\r04\u{2028}05\u{2029}06>") == .data([0, 1, 2, 3, 4, 5, 6]))
        #expect(try readOpenStep("<>") == .data([]))
        #expect(openStepReadError("<0 1>")?.message.contains("odd number") == true)
        #expect(openStepReadError("<012>")?.message.contains("odd number") == true)
        #expect(openStepReadError("<0g>")?.code == .malformed)
        #expect(openStepReadError("<01")?.message.contains("no closing '>'") == true)
    }

    @Test func topLevelScalars() throws {
        #expect(try readOpenStep("\"~/GNUstep/Defaults/menu.ja\"\n") == "~/GNUstep/Defaults/menu.ja")
        #expect(try readOpenStep("  bare  ") == "bare")
        #expect(try readOpenStep("<cafe>") == .data([0xCA, 0xFE]))
        #expect(try readOpenStep("/") == "/")
    }

    // MARK: .strings files and empty input

    @Test func stringsFileTopLevelIsADictionary() throws {
        let value = try readOpenStep(
            """
            /* Greetings */
            "hello" = "Hello";
            bye = "Good bye";
            "same";
            list = (a, b);
            """)
        #expect(value == ["hello": "Hello", "bye": "Good bye", "same": "same", "list": ["a", "b"]])
    }

    @Test func keyWithSemicolonMeansKeyEqualsKey() throws {
        #expect(try readOpenStep("{ a; b = c; }") == ["a": "a", "b": "c"])
        #expect(try readOpenStep("only;") == ["only": "only"])
    }

    @Test func emptyInputIsAnErrorButBlankTextIsAnEmptyDictionary() throws {
        #expect(openStepReadError("")?.message == "the input is empty")
        #expect(openStepReadError([0xEF, 0xBB, 0xBF])?.code == .malformed)
        #expect(try readOpenStep(" \n\t ") == [:])
        #expect(try readOpenStep("// nothing here\n/* or here */") == [:])
    }

    @Test func stringsFileErrors() throws {
        #expect(openStepReadError("a = b")?.message.contains("expected ';'") == true)
        #expect(openStepReadError("a = b; }")?.position == .text(line: 1, column: 8))
        #expect(openStepReadError("goodbye cruel world")?.position == .text(line: 1, column: 9))
    }

    @Test func textAfterAContainerIsJunk() throws {
        let error = openStepReadError("{ hello = there; }\r\nextra stuff at end")
        #expect(error?.code == .malformed)
        #expect(error?.message == "unexpected text after the property list")
        #expect(error?.position == .text(line: 2, column: 1))
        #expect(openStepReadError("(a) (b)")?.position == .text(line: 1, column: 5))
        #expect(openStepReadError("<00> x")?.code == .malformed)
    }

    // MARK: Comments

    @Test func commentsAnywhereBetweenTokens() throws {
        let value = try readOpenStep(
            """
            // !$*UTF8*$!
            {/* a */key /* b */=/* c */(/* d */x /* e */,// f
            y)/* g */;// h
            "k2" = v2; /* "*" // */
            }// end
            """)
        #expect(value == ["key": ["x", "y"], "k2": "v2"])
    }

    @Test func slashesInsideUnquotedStringsAreNotComments() throws {
        #expect(try readOpenStep("{ url = http://example.com/a//b; }") == ["url": "http://example.com/a//b"])
        // As in CoreFoundation, `key/*` is the word `key/` followed by a stray `*`.
        #expect(openStepReadError("{ key/* c */ = v; }")?.position == .text(line: 1, column: 7))
    }

    @Test func unterminatedBlockCommentIsAnError() throws {
        let error = openStepReadError("{ a = b; }\n  /* never closed")
        #expect(error?.message.contains("no closing '*/'") == true)
        #expect(error?.position == .text(line: 2, column: 3))
    }

    // MARK: Escapes

    @Test func namedEscapes() throws {
        #expect(try readOpenStep(#"'\a\b\f\n\r\t\v\"\'\\'"#) == "\u{07}\u{08}\u{0C}\n\r\t\u{0B}\"'\\")
    }

    @Test func unknownEscapesYieldTheCharacter() throws {
        #expect(try readOpenStep(#""Worl\d \é \q""#) == "World é q")
        #expect(try readOpenStep("\"a\\\nb\"") == "a\nb")
    }

    @Test func octalEscapesUseUpToThreeDigits() throws {
        #expect(try readOpenStep(#""\0\00\000""#) == "\u{0}\u{0}\u{0}")
        #expect(try readOpenStep(#""\101\1011\08""#) == "AA1\u{0}8")
        #expect(try readOpenStep(#""key&\102""#) == "key&B")
        #expect(try readOpenStep(#""\177""#) == "\u{7F}")
    }

    @Test(arguments: [
        (0o200, "\u{A0}"), (0o201, "À"), (0o244, "⁄"), (0o256, "ﬁ"), (0o341, "Æ"), (0o351, "Ø"),
        (0o365, "ı"), (0o373, "ß"), (0o375, "ÿ"), (0o376, "\u{FFFD}"), (0o377, "\u{FFFD}"),
    ])
    func highOctalEscapesMapThroughNeXTSTEP(code: Int, expected: String) throws {
        let escape = "\"\\" + String(code, radix: 8) + "\""
        #expect(try readOpenStep(escape) == .string(expected))
    }

    @Test func octalValuesWrapToEightBits() throws {
        // 0o501 is 321; CoreFoundation keeps the low 8 bits, 0o101 = "A".
        #expect(try readOpenStep(#""\501""#) == "A")
    }

    @Test func unicodeEscapesTakeOneToFourHexDigits() throws {
        #expect(
            try readOpenStep(#"('\U1z', '\U12z', '\U123z', '\U1234', '\U00e9', '\U00E9x', '\U12345')"#)
                == ["\u{1}z", "\u{12}z", "\u{123}z", "\u{1234}", "é", "éx", "\u{1234}5"])
    }

    @Test func unicodeEscapeWithoutDigitsIsAnError() throws {
        for text in [#"'\U'"#, #"'\Ux'"#, #"'\Uxxxx'"#] {
            let error = openStepReadError(text)
            #expect(error?.code == .malformed, "\(text)")
            #expect(error?.position == .text(line: 1, column: 2), "\(text)")
        }
        #expect(openStepReadError(#"'\U"#)?.code == .malformed)
    }

    @Test func escapedSurrogatePairsCombine() throws {
        #expect(try readOpenStep(#""\Ud83d\Ude00!""#) == "😀!")
        #expect(openStepReadError(#""\Ud83d""#)?.message.contains("surrogate") == true)
        #expect(openStepReadError(#""\Ud83dx""#)?.message.contains("surrogate") == true)
        #expect(openStepReadError(#""\Ud83d\U0041""#)?.message.contains("surrogate") == true)
        #expect(openStepReadError(#""\Ude00""#)?.message.contains("surrogate") == true)
    }

    @Test func rawNonASCIIInsideQuotesIsKept() throws {
        #expect(try readOpenStep("{ \"日本語\" = \"汉语/漢語 😀\"; }") == ["日本語": "汉语/漢語 😀"])
        #expect(try readOpenStep("'multi\n\tline'") == "multi\n\tline")
    }

    // MARK: Encodings

    @Test func utf8ByteOrderMarkIsSkipped() throws {
        #expect(try readOpenStep([0xEF, 0xBB, 0xBF] + Array("bare".utf8)) == "bare")
        #expect(try readOpenStep([0xEF, 0xBB, 0xBF] + Array("{ a = \"é\"; }".utf8)) == ["a": "é"])
    }

    @Test(arguments: [
        ([0xFF, 0xFE] as [UInt8], true), ([0xFE, 0xFF], false), ([], true),
    ])
    func utf16IsTranscoded(byteOrderMark: [UInt8], littleEndian: Bool) throws {
        let text = "{ \"clé\" = \"😀\"; list = (a, <0102>); }"
        var bytes = byteOrderMark
        for unit in text.utf16 {
            let pair = [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)]
            bytes += littleEndian ? pair : pair.reversed()
        }
        #expect(try readOpenStep(bytes) == ["clé": "😀", "list": ["a", .data([1, 2])]])
    }

    @Test func utf32WithByteOrderMarkIsTranscoded() throws {
        var bytes: [UInt8] = [0x00, 0x00, 0xFE, 0xFF]
        for scalar in "(\"ü\", x)".unicodeScalars {
            let value = scalar.value
            bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        #expect(try readOpenStep(bytes) == ["ü", "x"])
    }

    @Test func invalidUTF8IsAnEncodingError() throws {
        let inString = openStepReadError([UInt8(ascii: "\"")] + [0x61, 0xC3, 0x28] + [UInt8(ascii: "\"")])
        #expect(inString?.code == .invalidEncoding)
        #expect(inString?.position == .text(line: 1, column: 3))
        let inEscapedString = openStepReadError(Array("\"\\n".utf8) + [0xFF] + [UInt8(ascii: "\"")])
        #expect(inEscapedString?.code == .invalidEncoding)
        let inComment = openStepReadError(Array("{} // ".utf8) + [0xE9, 0x0A])
        #expect(inComment?.code == .invalidEncoding)
        #expect(inComment?.position == .text(line: 1, column: 7))
        #expect(openStepReadError([UInt8(ascii: "("), 0x98, UInt8(ascii: ")")])?.code == .invalidEncoding)
        #expect(openStepReadError([0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00])?.code == .invalidEncoding)
    }

    @Test func unquotedNonASCIIIsRejectedLikeApple() throws {
        let error = openStepReadError("{\n  a = クオート無し;\n}")
        #expect(error?.code == .malformed)
        #expect(error?.position == .text(line: 2, column: 7))
        #expect(error?.message.contains("'ク' (U+30AF)") == true)
    }

    @Test func lowercaseUEscapeIsNotAnEscape() throws {
        // dd-plist reads `\u` as a Unicode escape; Apple reads it as an unknown escape of `u`.
        #expect(try readOpenStep(#""\u0020\u5e78""#) == "u0020u5e78")
    }

    // MARK: GNUstep extensions

    @Test func gnustepTypedValues() throws {
        let value = try readOpenStep(
            """
            {
                int = <*I87>; negative = <*I-9223372036854775808>; big = <*I18446744073709551615>;
                real = <*R3.14159>; exponent = <*R-1e-3>; yes = <*BY>; no = <*BN>;
                date = <*D2011-11-28 09:21:30 +0000>; zoned = <*D2011-11-28 10:21:30 +0100>;
                base64 = <[qqq7u8zM]>; empty = <[]>;
            }
            """)
        let date = PlistValue.date(try #require(PlistDate(iso8601: "2011-11-28T09:21:30Z")))
        #expect(
            value
                == [
                    "int": 87, "negative": .integer(PlistInteger(Int64.min)),
                    "big": .integer(PlistInteger(UInt64.max)), "real": 3.14159, "exponent": -0.001,
                    "yes": true, "no": false, "date": date, "zoned": date,
                    "base64": .data([0xAA, 0xAA, 0xBB, 0xBB, 0xCC, 0xCC]), "empty": .data([]),
                ])
    }

    @Test(arguments: [
        "<*I>", "<*I12a>", "<*I18446744073709551616>", "<*I-9223372036854775809>", "<*R>", "<*R1.5.5>",
        "<*R 1>", "<*BX>", "<*BYES>", "<*D2011-13>", "<*X1>", "<*I1", "<*", "<[abc", "<[ab!c]>",
    ])
    func malformedGNUstepValuesAreErrors(text: String) throws {
        let error = openStepReadError(text)
        #expect(error?.code == .malformed)
        #expect(error?.position == .text(line: 1, column: 1))
    }

    // MARK: Errors and limits

    @Test(arguments: [
        ("{ a = b }", 1, 9, "';' after the value"),
        ("{ a = b;", 1, 1, "no closing '}'"),
        ("{\n  a b;\n}", 2, 5, "'=' or ';'"),
        ("{ = b; }", 1, 3, "a key or '}'"),
        ("{ (a) = b; }", 1, 3, "a key or '}'"),
        ("(a, b", 1, 1, "no closing ')'"),
        ("\n\n   \"abc", 3, 4, "no closing quote"),
        ("{ a = ; }", 1, 7, "a value"),
        ("{ a = ", 1, 7, "value for \"a\""),
        ("\u{7F}", 1, 1, "control character"),
        ("é", 1, 1, "'é' (U+00E9)"),
        ("{ a = b; }\r\n\r\n}", 3, 1, "unexpected text"),
        ("(\"日本\", é)", 1, 8, "'é'"),
    ])
    func errorsNameTheProblemAndPosition(text: String, line: Int, column: Int, fragment: String) throws {
        let error = try #require(openStepReadError(text))
        #expect(error.code == .malformed)
        #expect(error.position == .text(line: line, column: column))
        #expect(error.message.contains(fragment), "\(error.message)")
    }

    @Test func depthLimitIsEnforced() throws {
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 3, maxObjectCount: 1000)
        #expect(try readOpenStep("(((a)))", limits: limits) == [[["a"]]])
        #expect(try readOpenStep("{ a = { b = (c); }; }", limits: limits) == ["a": ["b": ["c"]]])
        let error = openStepReadError("((((a))))", limits: limits)
        #expect(error?.code == .limitExceeded)
        #expect(error?.position == .text(line: 1, column: 4))
        #expect(openStepReadError("a = (({x = y;}));", limits: limits)?.code == .limitExceeded)
    }

    @Test func deepNestingFailsFastWithTheDefaultLimits() throws {
        let text = String(repeating: "(", count: 100_000) + String(repeating: ")", count: 100_000)
        #expect(openStepReadError(text)?.code == .limitExceeded)
    }

    @Test func objectCountLimitIsEnforced() throws {
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 10, maxObjectCount: 4)
        #expect(try readOpenStep("(a, b, c)", limits: limits) == ["a", "b", "c"])
        #expect(openStepReadError("(a, b, c, d)", limits: limits)?.code == .limitExceeded)
        #expect(
            try readOpenStep("{ a = b; }", limits: PlistLimits(maxInputBytes: 100, maxDepth: 10, maxObjectCount: 3))
                == ["a": "b"])
        #expect(openStepReadError("x = y; z = w; v = u;", limits: limits)?.code == .limitExceeded)
    }

    @Test func inputSizeLimitIsEnforced() throws {
        let limits = PlistLimits(maxInputBytes: 8, maxDepth: 10, maxObjectCount: 100)
        #expect(try readOpenStep("(a, b)", limits: limits) == ["a", "b"])
        #expect(openStepReadError("(a, b, c)", limits: limits)?.code == .limitExceeded)
    }

    @Test func mutatedInputNeverCrashes() throws {
        let seed = Array(
            """
            // !$*UTF8*$!
            { a = "x\\U00e9\\101"; b = (1, <0fab>, {c = d;}, <*I5>, <[AAEC]>); 'e' = /usr; f; }
            """.utf8)
        var generator = OpenStepTestGenerator(seed: 42)
        let interesting: [UInt8] = Array("{}()<>\"'\\;=,/*U[]".utf8) + [0x00, 0x80, 0xC3, 0xE2, 0xFF]
        for _ in 0..<3000 {
            var bytes = seed
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = interesting[Int(generator.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(interesting[Int(generator.next() % UInt64(interesting.count))], at: index)
                }
            }
            do {
                _ = try readOpenStep(bytes)
            } catch let error as PlistError {
                #expect(!error.message.isEmpty)
                guard case .text(let line, let column) = error.position else {
                    Issue.record("no text position: \(error)")
                    continue
                }
                #expect(line >= 1 && column >= 1)
            }
        }
    }
}

/// A small deterministic generator, so the mutation test is the same on every run.
struct OpenStepTestGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Conformance corpus

@Suite struct OpenStepCorpusTests {
    static let corpus: Corpus? = try? Corpus.load()

    static var openStepFiles: [Corpus.File] {
        (corpus?.files ?? []).filter { $0.relativePath.hasPrefix("openstep/") }
    }

    /// Files of `malformed/` that look like OpenStep text (JSON files also sniff as OpenStep: skipped).
    static var openStepLookingMalformedFiles: [Corpus.File] {
        (corpus?.files ?? []).filter { file in
            guard file.relativePath.hasPrefix("malformed/"), !file.relativePath.lowercased().contains("json"),
                let bytes = try? file.bytes()
            else { return false }
            return bytes.withUnsafeBytes { PlistFormat.sniff($0) } == .openStep
        }
    }

    @Test func corpusIsPresentOrSkipped() {
        guard Self.corpus != nil else {
            print(Corpus.absentMessage)
            return
        }
        #expect(Self.openStepFiles.count >= 30)
        #expect(Self.openStepLookingMalformedFiles.count >= 15)
    }

    @Test(arguments: openStepFiles.filter { $0.expectation == .accept || $0.expectation == .gnustep })
    func acceptedFileDecodesToItsExpectedValue(file: Corpus.File) throws {
        let decoded = try readOpenStep(try file.bytes())
        guard var expected = try file.expectedValue() else {
            // The one file without JSON: every `'\UXXXX'` element is the code unit it names.
            try checkUnicodeEscapeFile(file, decoded: decoded)
            return
        }
        if file.relativePath.hasSuffix("swift-foundation-inline-slashed-literals.plist") {
            // swift-foundation's parser reads `\f` as U+0012 and `\v` as U+0011 (its test vector);
            // CoreFoundation, which macOS `defaults` and `plutil` use, reads U+000C and U+000B.
            expected = .array(
                try #require(expected.arrayValue).map { element in
                    switch element {
                    case "\u{12}": "\u{0C}"
                    case "\u{11}": "\u{0B}"
                    default: element
                    }
                })
        }
        #expect(decoded == expected, "\(file)")
    }

    private func checkUnicodeEscapeFile(_ file: Corpus.File, decoded: PlistValue) throws {
        let text = String(decoding: try file.bytes(), as: UTF8.self)
        // The file is `('\U0','\U00', … ,'\UFFFF')`: one `\U` escape of 1–4 hex digits per element.
        let names = text.split(separator: ",").map { $0.filter(\.isHexDigit) }
        let elements = try #require(decoded.arrayValue, "\(file)")
        #expect(elements.count == names.count)
        #expect(elements.count > 65_536)
        let mismatches = zip(elements, names).filter { element, digits in
            guard let unit = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(unit) else { return true }
            return element != .string(String(Character(scalar)))
        }
        #expect(mismatches.isEmpty, "\(file): \(mismatches.prefix(3))")
    }

    @Test(arguments: openStepFiles.filter { $0.expectation == .impl })
    func unquotedNonASCIIFilesAreRejected(file: Corpus.File) throws {
        // dd-plist accepts unquoted non-ASCII words; Apple's grammar (and ours) does not.
        let error = try #require(openStepReadError(try file.bytes()), "\(file)")
        #expect(error.code == .malformed)
        #expect(error.message.contains("only ASCII letters"))
        // The UTF-8 file has a `// !$*UTF8*$!` line first.
        let line = file.relativePath.hasSuffix("utf-8.plist") ? 7 : 6
        #expect(error.position == .text(line: line, column: 19))
    }

    @Test(arguments: openStepLookingMalformedFiles.filter { $0.expectation == .reject })
    func rejectedFileFailsWithAnError(file: Corpus.File) throws {
        let error = openStepReadError(try file.bytes())
        #expect(error != nil, "\(file)")
        if case .text(let line, let column)? = error?.position {
            #expect(line >= 1 && column >= 1)
        } else {
            Issue.record("\(file): no text position")
        }
    }

    // A hang fails this instead of stalling the run. The limit runs from the start of all the cases at once, which
    // share the test pool with the blocking end-to-end tests, so it is set well above the whole run (about 150 s on
    // two cores): at one minute it tripped on a loaded machine with no case slow.
    @Test(.timeLimit(.minutes(10)), arguments: corpus?.files ?? [])
    func everyCorpusFileFinishesWithAValueOrAPlistError(file: Corpus.File) throws {
        let bytes = try file.bytes()
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            do {
                let value = try readOpenStep(bytes)
                #expect(value.depth <= PlistLimits.default.maxDepth)
            } catch {
                #expect(error is PlistError, "\(file): \(error)")
            }
        }
        #expect(elapsed < .seconds(5), "\(file) took \(elapsed)")
    }
}
