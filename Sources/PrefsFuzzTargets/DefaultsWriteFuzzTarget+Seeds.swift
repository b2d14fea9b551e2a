// SPDX-License-Identifier: Apache-2.0
extension DefaultsWriteFuzzTarget {
    /// Inputs to start fuzzing from: the domain's values and a command line, NUL-separated, covering every typed
    /// flag, the `-add` forms, key paths, batches, OpenStep and XML values and a whole-domain representation.
    public static var seeds: [[UInt8]] {
        let commandLines: [[String]] = [
            ["{}", "key", "-int", "5"],
            ["{ list = (a, b); }", "list", "-array-add", "c", "-int", "4", "-float", "1.5"],
            ["{ d = { x = 1; }; }", "d", "-dict-add", "y", "-float", "2.5", "--", "k2", "-bool", "YES"],
            ["", "-keypath", "Window.Frame.0", "-data", "0aBc1"],
            ["{ Window = { Frame = (1, 2); }; }", "-keypath", "Window.Frame.2", "-integer", "-9223372036854775808"],
            ["", "when", "-date", "2024-05-01 12:30:00 +0200"],
            ["", "when", "-date", "2024-05-01T12:30:00Z", "--", "other", "-date", "2024-05-01"],
            ["", "k", "(1, (2, 3), { a = b; }, <0fab>)"],
            ["", "k", "<dict><key>a</key><integer>5</integer><key>b</key><real>0.5</real></dict>"],
            ["", "{ a = 1; b = (x); }"],
            ["", "k", "-dict", "a", "-string", "s", "b", "<real>1.5</real>", "c", "-boolean", "false"],
            ["", "k", #"plain \n text \U00e9"#],
            ["", "k", "-array", "-array"],
            ["", "k", "-string"],
            ["{ n = 1; }", "n", "-array-add", "x"],
        ]
        return commandLines.map { parts in
            Array(parts.joined(separator: "\u{0}").utf8)
        }
    }
}
