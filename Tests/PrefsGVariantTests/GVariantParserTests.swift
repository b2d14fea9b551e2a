// SPDX-License-Identifier: Apache-2.0
import PrefsGVariant
import Testing

/// GVariant text read as GLib's `g_variant_parse` reads it: the types it infers, the keywords, escapes and
/// containers `g_variant_print` writes, and errors (never a crash) for everything else.
@Suite struct GVariantParserTests {
    func parsed(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> GVariant? {
        do {
            return try GVariant(parsing: text)
        } catch {
            Issue.record("\(text): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test(
        "each printed form has the type GLib infers for it",
        arguments: [
            ("true", "b"), ("byte 0x10", "y"), ("int16 -7", "n"), ("uint16 7", "q"), ("5", "i"), ("uint32 5", "u"),
            ("int64 -3", "x"), ("uint64 18446744073709551615", "t"), ("handle 3", "h"), ("2.5", "d"),
            ("10000000000.0", "d"), ("1e300", "d"), ("inf", "d"), ("-inf", "d"), ("nan", "d"), ("'s'", "s"),
            ("\"it's\"", "s"), ("objectpath '/a/b'", "o"), ("signature 'a{sv}'", "g"), ("<1>", "v"),
            ("[1, 2]", "ai"), ("['a', 'b']", "as"), ("@as []", "as"), ("b'bytes'", "ay"), ("@ay []", "ay"),
            ("[int64 1, 2]", "ax"), ("[1.5, 2]", "ad"), ("[(1, 2)]", "a(ii)"), ("(1, 'x')", "(is)"), ("()", "()"),
            ("(1,)", "(i)"), ("{1, 'one'}", "{is}"), ("{'k': 'v'}", "a{ss}"), ("{'k': <1>}", "a{sv}"),
            ("@a{sv} {}", "a{sv}"), ("[<1>, <'s'>]", "av"), ("@ms nothing", "ms"), ("@ms 'x'", "ms"),
            ("@mms just nothing", "mms"), ("just 5", "mi"), ("[just 1, nothing]", "ami"),
            ("[@mi 1, 2]", "ami"), ("[objectpath '/a', '/b']", "ao"), ("{objectpath '/a': 1}", "a{oi}"),
            ("[[1], []]", "aai"), ("[{'a': 1}, {}]", "aa{si}"), ("0x10", "i"), ("  7  ", "i"),
            ("{'k': <int64 3>, 'j': <(1, 'x')>}", "a{sv}"), ("[b'a', [byte 1]]", "aay"),
        ])
    func inferredTypes(text: String, type: String) {
        #expect(parsed(text)?.type.typeString == type, "\(text)")
    }

    @Test("numbers: keywords, hexadecimal and octal, ranges, doubles")
    func numbers() throws {
        #expect(parsed("byte 0x10") == .byte(16))
        #expect(parsed("0x10") == .int32(16))
        #expect(parsed("010") == .int32(8))
        #expect(parsed("-2147483648") == .int32(Int32.min))
        #expect(parsed("int64 -9223372036854775808") == .int64(Int64.min))
        #expect(parsed("uint64 18446744073709551615") == .uint64(UInt64.max))
        #expect(parsed("int16 -32768") == .int16(Int16.min))
        #expect(parsed("handle -1") == .handle(-1))
        #expect(parsed("0.10000000000000001") == .double(0.1))
        #expect(parsed("1.0e10") == .double(1e10))
        #expect(parsed("-0.0").map { if case .double(let real) = $0 { real.sign == .minus } else { false } } == true)
        #expect(parsed("inf") == .double(.infinity))
        #expect(parsed("-inf") == .double(-.infinity))
        guard case .double(let nan)? = parsed("nan") else {
            Issue.record("nan is not a double")
            return
        }
        #expect(nan.isNaN)
        #expect(parsed("double 3") == .double(3))

        for (text, code) in [
            ("2147483648", GVariantError.Code.outOfRange), ("byte 256", .outOfRange), ("byte -1", .outOfRange),
            ("uint32 -1", .outOfRange), ("18446744073709551616", .outOfRange), ("1e999", .outOfRange),
            ("08", .syntax), ("12abc", .syntax), ("0x", .syntax), ("1.2.3", .syntax),
        ] {
            #expect(throws: GVariantError.self, "\(text)") { try GVariant(parsing: text) }
            do {
                _ = try GVariant(parsing: text)
            } catch {
                #expect(error.code == code, "\(text): \(error)")
            }
        }
    }

    @Test("strings: both quotes, every escape, Unicode, and the byte-string escapes with the implied NUL")
    func strings() {
        #expect(parsed("'a string'") == .string("a string"))
        #expect(parsed("\"it's\"") == .string("it's"))
        #expect(parsed("'it\\'s'") == .string("it's"))
        #expect(
            parsed(#"'tab\there\nnl \\ back é \u0001 \U0001F600 😀 \a\b\f\r\v \q'"#)
                == .string("tab\there\nnl \\ back é \u{1} 😀 😀 \u{7}\u{8}\u{C}\r\u{B} q"))
        #expect(parsed("'\\u007f \\u200b \\u00ad'") == .string("\u{7F} \u{200B} \u{AD}"))
        #expect(parsed("'joined\\\nline'") == .string("joinedline"))
        #expect(parsed("''") == .string(""))
        #expect(parsed("b'bytes'") == .array(.byte, Array("bytes\0".utf8).map { .byte($0) }))
        #expect(parsed(#"b'\001\377\n'"#) == .array(.byte, [1, 255, 10, 0].map { .byte($0) }))
        #expect(parsed(#"b"it's""#) == .array(.byte, Array("it's\0".utf8).map { .byte($0) }))
        #expect(parsed(#"b'a\000b'"#) == .array(.byte, [.byte(97), .byte(0)]))
        #expect(parsed("b''") == .array(.byte, [.byte(0)]))
        #expect(parsed("[byte 1, 2, 0]") == .array(.byte, [.byte(1), .byte(2), .byte(0)]))
        #expect(parsed("objectpath '/'") == .objectPath("/"))
        #expect(parsed("signature ''") == .signature(""))

        for text in [
            "'unterminated", "\"unterminated", "'ends with a backslash\\", "b'unterminated", "'\\u12'", "'\\u0000'",
            "'\\ud800'", "'\\U00110000'", "'\\uzzzz'", "objectpath 'a/b'", "objectpath '/a/'", "objectpath '/a//b'",
            "signature 'ms'", "signature 'a'",
        ] {
            #expect(throws: GVariantError.self, "\(text)") { try GVariant(parsing: text) }
        }
    }

    @Test("containers nest, and variants keep their content's text as written")
    func containers() {
        #expect(parsed("[(1, 2)]") == .array(.tuple([.int32, .int32]), [.tuple([.int32(1), .int32(2)])]))
        #expect(parsed("()") == .tuple([]))
        #expect(
            parsed("{'k': <int64 3>, 'j': <(1, 'x')>}")
                == .array(
                    .dictionaryEntry(key: .string, value: .variant),
                    [
                        .dictionaryEntry(.string("k"), .variant(.int64(3), text: "int64 3")),
                        .dictionaryEntry(.string("j"), .variant(.tuple([.int32(1), .string("x")]), text: "(1, 'x')")),
                    ]))
        #expect(parsed("<<'deep'>>") == .variant(.variant(.string("deep"), text: "'deep'"), text: "<'deep'>"))
        #expect(parsed("@ms nothing") == .maybe(.string, nil))
        #expect(parsed("@ms 'x'") == .maybe(.string, .string("x")))
        #expect(parsed("@mms just nothing") == .maybe(.maybe(.string), .maybe(.string, nil)))
        #expect(parsed("@mmi 5") == .maybe(.maybe(.int32), .maybe(.int32, .int32(5))))
        #expect(
            parsed("[[1, 2], [3]]")
                == .array(.array(.int32), [.array(.int32, [.int32(1), .int32(2)]), .array(.int32, [.int32(3)])]))
        // As in GLib, a dictionary's value type is its first entry's; the later values are read as that type.
        #expect(parsed("{'a': 1, 'b': int64 2}")?.type.typeString == "a{si}")
    }

    @Test(
        "what is not a value is an error naming the problem",
        arguments: [
            ("", GVariantError.Code.syntax), ("   ", .syntax), ("[1, 2", .syntax), ("[1 2]", .syntax), ("(1)", .syntax),
            ("{'a' 1}", .syntax), ("<1", .syntax), ("1 2", .syntax), ("]", .syntax), ("{'a': 1,}", .syntax),
            ("int65 3", .unknownKeyword), ("null", .unknownKeyword), ("just", .syntax), ("Nothing", .syntax),
            ("[]", .typeMismatch), ("{}", .typeMismatch), ("nothing", .typeMismatch), ("[1, 'a']", .typeMismatch),
            ("@as [1]", .typeMismatch), ("@i 'a'", .typeMismatch), ("@a{vs} {}", .typeMismatch),
            ("@r ()", .typeMismatch), ("@* 1", .typeMismatch), ("{<1>: 2}", .typeMismatch),
            ("@(ii) (1,)", .typeMismatch), ("[<1>, 2]", .typeMismatch), ("'a\u{0}b'", .syntax),
            ("%i", .syntax), ("true false", .syntax),
        ])
    func errors(text: String, code: GVariantError.Code) {
        do {
            let value = try GVariant(parsing: text)
            Issue.record("\(text) parsed as \(value)")
        } catch {
            #expect(error.code == code, "\(text): \(error)")
            #expect(error.offset >= 0 && error.offset <= text.utf8.count)
        }
    }

    @Test("error positions are byte offsets of the offending token")
    func errorPositions() {
        for (text, offset) in [("[1, 'a']", 4), ("[1, 2", 5), ("int65 3", 0), ("(1, x)", 4), ("'a' b", 4)] {
            #expect(throws: GVariantError.self) { try GVariant(parsing: text) }
            do { _ = try GVariant(parsing: text) } catch { #expect(error.offset == offset, "\(text): \(error)") }
        }
    }

    @Test("nesting is bounded: 1,000 levels of any container, or of a type, is an error, not a stack overflow")
    func deepNestingIsRefused() {
        let texts = [
            String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000),
            String(repeating: "<", count: 1000) + "1" + String(repeating: ">", count: 1000),
            String(repeating: "(", count: 1000) + "1" + String(repeating: ",)", count: 1000),
            String(repeating: "{'a': ", count: 1000) + "1" + String(repeating: "}", count: 1000),
            String(repeating: "just ", count: 1000) + "1",
            "@" + String(repeating: "a", count: 1000) + "i []",
            "@" + String(repeating: "m", count: 1000) + "i 1",
            String(repeating: "int32 ", count: 1000) + "1",
            String(repeating: "[", count: 100_000),
        ]
        for (index, text) in texts.enumerated() {
            do {
                _ = try GVariant(parsing: text)
                Issue.record("text \(index), nested 1,000 deep, was accepted")
            } catch {
                #expect(error.code == .tooDeep, "text \(index): \(error)")
            }
        }
    }

    @Test("nesting up to GLib's limit of 128 levels is read, as GLib reads it, and one more is refused")
    func nestingToTheLimit() {
        let arrays = String(repeating: "[", count: 127) + "1" + String(repeating: "]", count: 127)
        #expect(parsed(arrays)?.type.typeString == String(repeating: "a", count: 127) + "i")
        let variants = String(repeating: "<", count: 127) + "1" + String(repeating: ">", count: 127)
        #expect(parsed(variants)?.type == .variant)
        let declared =
            "@" + String(repeating: "a", count: 127) + "i " + String(repeating: "[", count: 127)
            + String(repeating: "]", count: 127)
        #expect(parsed(declared)?.type.typeString == String(repeating: "a", count: 127) + "i")
        for text in ["[" + arrays + "]", "<" + variants + ">"] {
            #expect(throws: GVariantError.self) { try GVariant(parsing: text) }
        }
    }

    /// SplitMix64: the same texts on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    @Test("garbage never crashes the parser: random texts of its tokens, and printed values cut and spliced")
    func garbage() {
        var generator = SeededGenerator(state: 20_261_203)
        let alphabet = Array("[](){}<>,:'\"\\@bjnmaystu0123456789.-+ xe'".unicodeScalars)
        for _ in 0..<5_000 {
            let length = Int.random(in: 0..<24, using: &generator)
            var text = ""
            for _ in 0..<length { text.unicodeScalars.append(alphabet.randomElement(using: &generator)!) }
            _ = try? GVariant(parsing: text)
        }
        let printed = [
            "{'k': <int64 3>, 'j': <(1, 'x')>}", "@a{sv} {}", "[(1, 2)]", "@mms just nothing", "b'\\001\\377'",
            "'tab\\there \\u00e9'", "[int64 1, 2]", "{1, 'one'}", "objectpath '/a/b'", "<[<1>, <'s'>]>",
        ]
        for _ in 0..<5_000 {
            var text = Array(printed.randomElement(using: &generator)!.utf8)
            let cut = Int.random(in: 0...text.count, using: &generator)
            let other = Array(printed.randomElement(using: &generator)!.utf8)
            text = Array(text[..<cut]) + other[Int.random(in: 0...other.count, using: &generator)...]
            _ = try? GVariant(parsing: String(decoding: text, as: UTF8.self))
        }
    }
}
