// SPDX-License-Identifier: Apache-2.0
import PrefsGVariant
import PrefsPlist
import Testing

/// The mapping of GVariant values to property-list values, the GSettings backend's
/// (clients/gsettings/gvariant-mapping.c): natural where a plist type fits, tagged with the printed text otherwise.
@Suite struct GVariantMappingTests {
    func mapped(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> PlistValue? {
        do {
            return try GVariant.plistValue(parsing: text)
        } catch {
            Issue.record("\(text): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    static func tagged(_ text: String) -> PlistValue { .dictionary(["$gvariant": .string(text)]) }

    @Test(
        "top-level values of a type a property list holds are stored as themselves",
        arguments: [
            ("true", PlistValue.bool(true)), ("false", .bool(false)), ("byte 0x10", 16), ("int16 -7", -7),
            ("uint16 7", 7), ("5", 5), ("uint32 4294967295", 4_294_967_295), ("int64 -3", -3),
            ("int64 -9223372036854775808", .integer(PlistInteger(Int64.min))), ("uint64 5", 5),
            ("uint64 18446744073709551615", .integer(PlistInteger(UInt64.max))), ("2.5", .real(2.5)),
            ("10000000000.0", .real(1e10)), ("-inf", .real(-.infinity)), ("'a string'", "a string"),
            ("['a', 'b']", .array(["a", "b"])), ("@as []", .array([])), ("b'bytes'", .data(Array("bytes\0".utf8))),
            ("@ay []", .data([])), ("[byte 0xff, 0x01]", .data([255, 1])), ("{'k': 'v'}", .dictionary(["k": "v"])),
            ("@a{ss} {}", .dictionary([:])), ("@a{sv} {}", .dictionary([:])),
        ])
    func naturalTopLevel(text: String, expected: PlistValue) {
        #expect(mapped(text) == expected, "\(text)")
    }

    @Test(
        "every other top-level type is tagged with its printed text",
        arguments: [
            "handle 3", "objectpath '/a/b'", "signature 'a{sv}'", "<1>", "<'s'>", "[1, 2]", "[int64 1, 2]",
            "[(1, 2)]", "(1, 'x')", "()", "(1,)", "{1, 'one'}", "@ms nothing", "@ms 'x'", "@mms just nothing",
            "[<1>, <'s'>]", "{1: 'one'}", "{'k': 1}", "[['a']]", "[b'a']", "@ao []", "[true]", "{'a': {'b': 'c'}}",
        ])
    func taggedTopLevel(text: String) {
        #expect(mapped(text) == Self.tagged(text), "\(text)")
    }

    @Test("inside a variant, a value is natural only where its plist type reads back as the same GVariant type")
    func insideVariants() {
        let text =
            "{'b': <true>, 's': <'str'>, 'd': <2.5>, 'i': <5>, 'x': <int64 3>, 'big': <int64 5000000000>, "
            + "'t': <uint64 5>, 'huge': <uint64 18446744073709551615>, 'y': <byte 0x01>, 'n': <int16 2>, "
            + "'q': <uint16 2>, 'u': <uint32 2>, 'h': <handle 1>, 'as': <['a']>, 'ay': <b'z'>, "
            + "'ai': <[1]>, 'tuple': <(1, 'x')>, 'o': <objectpath '/o'>, 'm': <@ms nothing>, 'v': <<1>>, "
            + "'av': <[<1>]>, 'ass': <{'k': 'v'}>, 'asv': <{'k': <int64 7>, 'l': <'w'>}>, 'empty': <@a{sv} {}>}"
        let expected: PlistDictionary = [
            "b": true, "s": "str", "d": 2.5, "i": 5, "x": Self.tagged("int64 3"), "big": 5_000_000_000,
            "t": Self.tagged("uint64 5"), "huge": .integer(PlistInteger(UInt64.max)), "y": Self.tagged("byte 0x01"),
            "n": Self.tagged("int16 2"), "q": Self.tagged("uint16 2"), "u": Self.tagged("uint32 2"),
            "h": Self.tagged("handle 1"), "as": ["a"], "ay": .data([122, 0]), "ai": Self.tagged("[1]"),
            "tuple": Self.tagged("(1, 'x')"), "o": Self.tagged("objectpath '/o'"), "m": Self.tagged("@ms nothing"),
            "v": Self.tagged("<1>"), "av": Self.tagged("[<1>]"), "ass": Self.tagged("{'k': 'v'}"),
            "asv": ["k": Self.tagged("int64 7"), "l": "w"], "empty": .dictionary([:]),
        ]
        #expect(mapped(text) == .dictionary(expected))
    }

    @Test("a dictionary a dictionary cannot hold exactly, or that has the tagged shape, is tagged itself")
    func ambiguousDictionaries() {
        for text in [
            "{'$gvariant': <'x'>}", "{'$gvariant': 'x'}", "{'a': 'x', 'a': 'y'}", "{'a': <1>, 'a': <2>}",
        ] {
            #expect(mapped(text) == Self.tagged(text), "\(text)")
        }
        // Inside a variant too; a tagged shape that is not a string stays natural.
        #expect(mapped("{'o': <{'$gvariant': <'x'>}>}") == ["o": Self.tagged("{'$gvariant': <'x'>}")])
        #expect(mapped("{'$gvariant': <1>}") == ["$gvariant": 1])
        #expect(mapped("{'$gvariant': <'x'>, 'b': <2>}") == ["$gvariant": "x", "b": 2])
    }

    @Test("a{sv} nested as deep as GVariant text may is a dictionary as deep")
    func deepDictionaries() {
        let text = String(repeating: "{'a': <", count: 63) + "1" + String(repeating: ">}", count: 63)
        var expected: PlistValue = 1
        for _ in 0..<63 { expected = .dictionary(["a": expected]) }
        #expect(mapped(text) == expected)
        #expect(expected.depth == 63)
    }

    @Test("the tagged form is recognised: one key, $gvariant, holding a string")
    func taggedShape() {
        #expect(GVariant.isTagged(Self.tagged("1")))
        #expect(!GVariant.isTagged(["$gvariant": 1]))
        #expect(!GVariant.isTagged(["$gvariant": "1", "other": "2"]))
        #expect(!GVariant.isTagged("1"))
    }

    @Test("escapes survive: the natural string is decoded, the tagged text is GLib's as printed")
    func escapesInBothForms() {
        #expect(mapped(#"'tab\there \u00ad \\'"#) == .string("tab\there \u{AD} \\"))
        #expect(mapped(#"{'k': <('a\nb', 1)>}"#) == ["k": Self.tagged(#"('a\nb', 1)"#)])
        #expect(mapped(#"(b'\001', '\'')"#) == Self.tagged(#"(b'\001', '\'')"#))
    }
}
