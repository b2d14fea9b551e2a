// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments

/// The help text, generated from ``Verb/all`` and ``ValueFlag/all``: macOS's usage text (for the verbs and value
/// types macOS has), then the extensions.
enum HelpText {
    /// The column where summaries start, as in macOS's text.
    private static let summaryColumn = 39

    /// The whole text, ending with a newline; `help` prints it, and usage errors print it to standard output.
    static let text: String = {
        var lines = [
            "Command line interface to a user's defaults.",
            "Syntax:",
            "",
            "'defaults' [-currentHost | -host <hostname>] followed by one of the following:",
            "",
        ]
        for verb in Verb.all where !verb.isHidden {
            let forms = verb.forms.filter { !$0.isExtension }
            lines += forms.map { line($0.usage, $0.summary) }
            if verb.isFollowedByBlankLine, !forms.isEmpty { lines.append("") }
        }
        lines += [
            "",
            "<domain> is ( <domain_name> | -globalDomain | -g | NSGlobalDomain )",
            "         or a path to a file (an argument with a '/'), with or without '.plist'",
            "",
            "<value> is one of:",
            "  <value_rep>",
        ]
        lines += ValueFlag.all.map { "  " + $0.usage }
        lines += ["", "Beyond macOS:"]
        for verb in Verb.all where !verb.isHidden {
            lines += verb.forms.filter(\.isExtension).map { line($0.usage, $0.summary) }
        }
        lines += [
            line("-keypath <key path>", "in place of <key> for read, read-type, write, delete:"),
            line("", "a path into nested values such as Window.Frame.0"),
            line("", "(\"\\.\" is a dot inside a key)"),
            line("--version", "prints the version"),
            "",
            "Preferences live in $PREFERENCES_HOME (default ~/.config/preferences); see 'defaults man'.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }()

    /// The help of one verb (`defaults <verb> --help`): its forms, then what they do, wrapped at 80 columns.
    static func text(of verbName: String) -> String {
        guard let verb = Verb.all.first(where: { $0.name.lowercased() == verbName }) else { return text }
        var lines = ["usage:"] + verb.forms.map { line("defaults " + $0.usage, $0.summary) }
        for paragraph in verb.manual {
            lines.append("")
            lines += wrapped(paragraph, width: 80)
        }
        lines += ["", "All commands: defaults help; the manual: defaults man."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A paragraph broken into lines of at most `width` characters, at spaces.
    private static func wrapped(_ paragraph: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in paragraph.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `  usage<padding>summary`, or the summary on a line of its own when the usage is too long for the column.
    private static func line(_ usage: String, _ summary: String) -> String {
        let lead = "  " + usage
        let width = lead.unicodeScalars.count
        if width < summaryColumn - 1 {
            return lead + String(repeating: " ", count: summaryColumn - width) + summary
        }
        return lead + "\n" + String(repeating: " ", count: summaryColumn) + summary
    }
}
