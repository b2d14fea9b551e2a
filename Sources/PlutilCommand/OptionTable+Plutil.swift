// SPDX-License-Identifier: Apache-2.0
import PrefsCommandLine

extension OptionTable {
    /// The formats `-convert` writes.
    private static let plutilFormats = ["xml1", "binary1", "json", "openstep"]

    /// plutil's options, for its completion scripts (`plutil -completion bash`) and the suggestion of a usage error;
    /// ``PlutilCommand/parse(_:)`` is what reads them.
    static let plutil = OptionTable(
        program: "plutil", completionOption: "-completion",
        options: [
            Option("-lint", "check each file", isCommand: true),
            Option(
                "-convert", "rewrite each file in a format", arguments: [.words("format", plutilFormats)],
                isCommand: true),
            Option("-p", "print a human-readable view", isCommand: true),
            Option(
                "-extract", "write the value at a key path",
                arguments: [.text("key path"), .words("format", plutilFormats + ["raw"])], isCommand: true),
            Option("-help", "show the usage text", isCommand: true),
            Option("-version", "show the version", isCommand: true),
            Option(
                "-completion", "print a shell completion script",
                arguments: [.words("shell", Shell.allCases.map(\.rawValue))], isCommand: true),
            Option("-o", "write to a path instead of in place (- for standard output)", arguments: [.file("output")]),
            Option("-e", "write next to each input with another extension", arguments: [.text("extension")]),
            Option("-r", "human-readable (indented) JSON"),
            Option("-s", "print nothing for files that are OK"),
            Option("-schema", "with -lint: check each file against a domain schema", arguments: [.file("schema")]),
        ],
        operand: .file("property list"), endsOptionsAtDoubleDash: true)
}
