// SPDX-License-Identifier: Apache-2.0
/// The options of a program whose command line is options and operands (`plutil`, `prefsd`), as data: the shell
/// completion scripts are generated from it (``completionScript(for:)``), and a misspelled option is matched
/// against its names (``names``).
///
/// `defaults` has verbs rather than options, and its own table (`Verb` in DefaultsArguments).
package struct OptionTable: Sendable {
    /// One argument of an option, or the operands.
    package struct Argument: Sendable {
        /// What the shells offer for it.
        package enum Kind: Sendable {
            /// A file name.
            case file
            /// One of these words.
            case words([String])
            /// Anything: nothing is offered.
            case text
        }

        /// What the argument is, for zsh's and fish's messages: `format`, `output file`.
        package let label: String
        /// What the shells offer.
        package let kind: Kind

        /// A file name.
        package static func file(_ label: String) -> Argument { Argument(label: label, kind: .file) }
        /// One of a few words.
        package static func words(_ label: String, _ words: [String]) -> Argument {
            Argument(label: label, kind: .words(words))
        }
        /// Free text.
        package static func text(_ label: String) -> Argument { Argument(label: label, kind: .text) }
    }

    /// One option.
    package struct Option: Sendable {
        /// The name as typed: `-lint`, `-o`, `--socket`.
        package let name: String
        /// What it does, in a few words, for zsh's and fish's descriptions.
        package let summary: String
        /// The arguments that follow it, in order.
        package let arguments: [Argument]
        /// True for the options that say what the program does (`plutil -lint`, `-convert`): a command line has one,
        /// so the completions stop offering them once one is given.
        package let isCommand: Bool

        /// Creates an option.
        package init(_ name: String, _ summary: String, arguments: [Argument] = [], isCommand: Bool = false) {
            self.name = name
            self.summary = summary
            self.arguments = arguments
            self.isCommand = isCommand
        }
    }

    /// The program's name, which the scripts complete.
    package let program: String
    /// The option that prints a completion script (`-completion`), named in each script's first lines.
    package let completionOption: String
    /// Every option, in the order the completions offer them.
    package let options: [Option]
    /// The operands after the options (plutil's files), or `nil` when the program takes none.
    package let operand: Argument?
    /// Whether `--` ends the options, so that every later word is an operand.
    package let endsOptionsAtDoubleDash: Bool

    /// Creates a table.
    package init(
        program: String, completionOption: String, options: [Option], operand: Argument?,
        endsOptionsAtDoubleDash: Bool
    ) {
        self.program = program
        self.completionOption = completionOption
        self.options = options
        self.operand = operand
        self.endsOptionsAtDoubleDash = endsOptionsAtDoubleDash
    }

    /// Every option's name: what a misspelled option is compared with.
    package var names: [String] { options.map(\.name) }
}
