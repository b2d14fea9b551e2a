// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension KeyPathFuzzTarget {
    /// Inputs to start fuzzing from: paths through dictionaries and arrays, with escapes, empty keys and indices,
    /// over values in OpenStep, XML and binary form.
    public static var seeds: [[UInt8]] {
        let texts: [(path: String, plist: String)] = [
            ("Window.Frame.0", #"{ Window = { Frame = (1, 2, 3); Title = "Main"; }; Other = x; }"#),
            (#"a\.b.c"#, #"{ "a.b" = { c = 1; }; }"#),
            ("list.3", "(a, b, c)"),
            ("list.03.x", "(a, b, c, { x = y; })"),
            ("x.y.z", ""),
            (#"a..b\\"#, #"{ a = { "" = { "b\\" = x; }; }; }"#),
            (
                "k.0.1.2",
                "<plist><dict><key>k</key><array><array><integer>1</integer><string>s</string></array>"
                    + "</array></dict></plist>"
            ),
            ("n.1", "{ n = 5; }"),
            ("d.key.deeper", #"{ d = { key = <0fab>; }; }"#),
            ("", #"{ "" = 1; }"#),
            (#"trailing\"#, "{}"),
        ]
        var seeds = texts.map { Array($0.path.utf8) + [0] + Array($0.plist.utf8) }
        let binary: PlistValue = [
            "top": ["inner": [1, 2, ["x": "y"]], "flag": true, "when": .date(PlistDate(secondsSinceReferenceDate: 0))]
        ]
        if let bytes = try? PlistSerialization.encode(binary, format: .binary) {
            seeds.append(Array("top.inner.2.x".utf8) + [0] + bytes)
        }
        return seeds
    }
}
