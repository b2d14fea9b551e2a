// SPDX-License-Identifier: Apache-2.0
import PrefsCommandLine

extension OptionTable {
    /// prefsd's options, for its completion scripts (`prefsd --completion bash`) and the suggestion of a usage error;
    /// ``Prefsd/main(arguments:)`` is what reads them.
    static let prefsd = OptionTable(
        program: "prefsd", completionOption: "--completion",
        options: [
            Option("--socket", "listen on a path instead of the default socket", arguments: [.file("socket")]),
            Option("--help", "print the usage text"),
            Option("--version", "print the version"),
            Option(
                "--completion", "print a shell completion script",
                arguments: [.words("shell", Shell.allCases.map(\.rawValue))]),
        ],
        operand: nil, endsOptionsAtDoubleDash: false)
}
