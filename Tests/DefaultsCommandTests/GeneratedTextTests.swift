// SPDX-License-Identifier: Apache-2.0
import PrefsCommandLine
import PrefsPlist
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// The texts generated from the verb table: help, compact values, completion scripts and the manual page.
@Suite struct GeneratedTextTests {
    /// macOS's usage text for its verbs and values, which the help text reproduces line for line.
    static let macOSLines = [
        "  read                                 shows all defaults",
        "  read <domain>                        shows defaults for given domain",
        "  read <domain> <key>                  shows defaults for given domain, key",
        "",
        "  read-type <domain> <key>             shows the type for the given domain, key",
        "",
        "  write <domain> <domain_rep>          writes domain (overwrites existing)",
        "  write <domain> <key> <value>         writes key for domain",
        "",
        "  rename <domain> <old_key> <new_key>  renames old_key to new_key",
        "",
        "  delete <domain>                      deletes domain",
        "  delete <domain> <key>                deletes key in domain",
        "",
        "  import <domain> <path to plist>      writes the plist at path to domain",
        "  import <domain> -                    writes a plist from stdin to domain",
        "  export <domain> <path to plist>      saves domain as a binary plist to path",
        "  export <domain> -                    writes domain as an xml plist to stdout",
        "  domains                              lists all domains",
        "  find <word>                          lists all entries containing word",
        "  help                                 print this help",
    ]

    static let macOSValueLines = [
        "<value> is one of:",
        "  <value_rep>",
        "  -string <string_value>",
        "  -data <hex_digits>",
        "  -int[eger] <integer_value>",
        "  -float  <floating-point_value>",
        "  -bool[ean] (true | false | yes | no)",
        "  -date <date_rep>",
        "  -array <value1> <value2> ...",
        "  -array-add <value1> <value2> ...",
        "  -dict <key1> <value1> <key2> <value2> ...",
        "  -dict-add <key1> <value1> ...",
    ]

    @Test func helpReproducesMacOSLinesThenTheExtensions() {
        let lines = HelpText.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            Array(lines.prefix(4)) == [
                "Command line interface to a user's defaults.", "Syntax:", "",
                "'defaults' [-currentHost | -host <hostname>] followed by one of the following:",
            ])
        #expect(Array(lines[5..<(5 + Self.macOSLines.count)]) == Self.macOSLines)
        let values = lines.firstIndex(of: "<value> is one of:")!
        #expect(Array(lines[values..<(values + Self.macOSValueLines.count)]) == Self.macOSValueLines)
        let extensions = lines.firstIndex(of: "Beyond macOS:")!
        #expect(extensions > values)
        for verb in ["watch", "explain", "completion", "man"] {
            #expect(lines[extensions...].contains { $0.hasPrefix("  \(verb) ") }, "\(verb)")
            #expect(!lines[..<extensions].contains { $0.hasPrefix("  \(verb) ") }, "\(verb)")
        }
        #expect(HelpText.text.hasSuffix("\n"))
        #expect(!HelpText.text.contains("printHostIdentifier"))
        #expect(!HelpText.text.contains("__complete"))
    }

    static let compactCases: [(PlistValue, String)] = [
        (PlistValue.string("plain"), "plain"),
        ("two words", "\"two words\""),
        ("", "\"\""),
        ("Safari浏览器", "\"Safari\\U6d4f\\U89c8\\U5668\""),
        ("line\nbreak", "\"line\\nbreak\""),
        (-1, "\"-1\""),
        (42, "42"),
        (1.5, "\"1.5\""),
        (true, "1"),
        (PlistValue.data([1, 2]), "{length = 2, bytes = 0x0102}"),
        (PlistValue.date(PlistDate(secondsSinceReferenceDate: 0)), "\"2001-01-01 00:00:00 +0000\""),
        ([], "()"),
        (["a", ["b", 2]], "(a, (b, 2))"),
        ([:], "{}"),
        (["b": 1, "a": ["x": "y z"], "B": 0], "{ B = 0; a = { x = \"y z\"; }; b = 1; }"),
    ]

    @Test(arguments: compactCases)
    func compactDescriptionIsOneLineWithReadsQuoting(value: PlistValue, text: String) {
        #expect(value.compactDescription == text)
    }

    @Test func watchLinesQuoteKeysAndSayDeleted() {
        #expect(ChangeWatcher.line(label: "D", key: "Theme", value: "dark") == "D Theme = dark\n")
        #expect(ChangeWatcher.line(label: "D", key: "two words", value: [1]) == "D \"two words\" = (1)\n")
        #expect(ChangeWatcher.line(label: "D", key: "Theme", value: nil) == "D Theme deleted\n")
    }

    @Test func completionScriptsListEveryVisibleVerbAndValueFlag() {
        for shell in Shell.allCases {
            let script = CompletionScript.text(for: shell)
            for verb in Verb.all where !verb.isHidden {
                #expect(script.contains(verb.name), "\(shell): \(verb.name)")
            }
            for flag in ValueFlag.all.flatMap(\.names) {
                #expect(script.contains(flag), "\(shell): \(flag)")
            }
            #expect(script.contains("__complete domains"), "\(shell)")
            #expect(script.contains("__complete keys"), "\(shell)")
            #expect(!script.contains("printhostidentifier"), "\(shell)")
        }
        #expect(CompletionScript.bash.contains("complete -F _defaults defaults"))
        #expect(CompletionScript.zsh.hasPrefix("#compdef defaults\n"))
        #expect(CompletionScript.fish.contains("complete -c defaults -f -a '(__defaults_complete)'"))
    }

    @Test func manualPageEscapesRoff() {
        #expect(ManualPage.escaped("-bool a\\b") == "\\-bool a\\eb")
        #expect(ManualPage.escaped(".hidden") == "\\&.hidden")
        #expect(ManualPage.escaped("'quoted") == "\\&'quoted")
        let lines = ManualPage.text.split(separator: "\n")
        for line in lines where line.hasPrefix(".") {
            #expect(
                line.hasPrefix(".TH") || line.hasPrefix(".SH") || line.hasPrefix(".TP") || line.hasPrefix(".B")
                    || line.hasPrefix(".I") || line.hasPrefix(".RB") || line.hasPrefix(".RI") || line.hasPrefix(".PP")
                    || line.hasPrefix(".PD") || line.hasPrefix(".IP") || line.hasPrefix(".nf") || line.hasPrefix(".fi"),
                "\(line)")
        }
        for verb in Verb.all where !verb.isHidden {
            for paragraph in verb.manual {
                #expect(ManualPage.text.contains(ManualPage.escaped(paragraph)), "\(verb.name)")
            }
        }
    }
}
