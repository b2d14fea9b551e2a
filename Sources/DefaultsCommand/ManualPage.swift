// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsCommandLine

/// The manual page, defaults(1), in roff (`man` macros), generated from ``Verb/all`` and ``ValueFlag/all``.
enum ManualPage {
    /// The page; `defaults man | man -l -` shows it.
    static let text: String = {
        var page: [String] = [
            ".TH DEFAULTS 1 \"\" \"\(PreferencesVersion.projectName) \(PreferencesVersion.current)\" "
                + "\"User Commands\"",
            ".SH NAME",
            "defaults \\- read, write, delete and watch preferences (user defaults)",
            ".SH SYNOPSIS",
            ".B defaults",
            ".RB [ \\-currentHost \" | \" \\-host",
            ".IR hostname ]",
            ".I command",
            ".RI [ argument ...]",
            ".SH DESCRIPTION",
        ]
        page += paragraphs([
            "defaults reads and changes preferences: the domains of keys and values that applications keep as "
                + "property-list files, one file per domain. It behaves as the macOS command of the same name, "
                + "in its output and its messages too, so that scripts written for macOS work unchanged; what it "
                + "adds is listed under BEYOND MACOS, and where it differs under DIFFERENCES FROM MACOS.",
            "A domain's file is <domain>.plist in the Preferences directory (see ENVIRONMENT); the global domain, "
                + "searched by every application after its own, is .GlobalPreferences.plist. Every write takes the "
                + "domain's lock, merges with changes other processes made meanwhile, replaces the file atomically "
                + "and is durable on disk before defaults exits. A file that does not parse is never overwritten: it "
                + "is renamed aside before the next write.",
            "-currentHost, or -host with this machine's host name or machine id, selects the by-host files "
                + "ByHost/<domain>.<machine-id>.plist instead.",
        ])
        page.append(".SH COMMANDS")
        for verb in Verb.all where !verb.isHidden {
            page.append(".TP")
            let forms = verb.forms.map { ".B " + escaped("defaults " + $0.usage) }
            page.append(forms[0])
            for form in forms.dropFirst() {
                page += [".PD 0", ".TP", form, ".PD"]
            }
            page.append(escaped(verb.manual[0]))
            for paragraph in verb.manual.dropFirst() {
                page += [".IP", escaped(paragraph)]
            }
        }
        page.append(".SH DOMAINS")
        page += paragraphs([
            "A domain is a name such as com.example.App (letters, digits, '.', '_' and '-'), or -g, -globalDomain, "
                + "NSGlobalDomain or \"Apple Global Domain\" for the global domain, or a file path: any argument "
                + "containing '/', with or without .plist, created when written. The file name of a path must be "
                + "a valid domain name plus .plist."
        ])
        page.append(".SH VALUES")
        page += paragraphs([
            "A value given as one argument is a string, unless it contains one of the characters \"()[]{}<>; then "
                + "it is a property list: OpenStep text such as '(255, 0, 0)' or '{ a = 1; }', or an XML fragment "
                + "such as '<integer>5</integer>'. Typed values:"
        ])
        for flag in ValueFlag.all {
            page += [".TP", ".B " + escaped(flag.usage), escaped(flag.manual)]
        }
        page.append(".SH KEY PATHS")
        page += paragraphs([
            "Where a key goes in read, read-type, write and delete, -keypath <path> reaches into nested values: "
                + "components separated by '.', with \"\\.\" for a dot inside a key and \"\\\\\" for a backslash; "
                + "a decimal component selects an array element. A plain key is never split, so keys that contain "
                + "dots work unchanged. write creates missing dictionaries on the way and appends at the index one "
                + "past the end of an array."
        ])
        page.append(".SH BEYOND MACOS")
        page += paragraphs([
            "watch, explain, describe, completion and man; -format on read and export; -force and schemas; -keypath; several key/value pairs "
                + "separated by -- in one write. help, --help and -h print the help text and exit with status 0; "
                + "--version prints one line, \"defaults \(PreferencesVersion.current)\", and exits with status 0."
        ])
        page.append(".SH DIFFERENCES FROM MACOS")
        page += paragraphs([
            "Messages are macOS's without the NSLog time stamp. Usage errors also name the problem on standard "
                + "error, before the usage text, and suggest the command meant for a misspelled one. Extra "
                + "arguments are always an error. -int and -float refuse text that is not a number, and -float "
                + "keeps double precision. -date takes \"2024-05-01 12:30:00 +0000\", ISO 8601 or a "
                + "plain date, not natural language. -app is not supported. -host takes this machine's host name, "
                + "localhost or a machine id. Domain names are limited to letters, digits, '.', '_' and '-'. A "
                + "single string value prints as UTF-8. Inside -array and -dict a bare -- ends the list. Deleting "
                + "a domain whose file is corrupt sets the file aside."
        ])
        page.append(".SH ENVIRONMENT")
        let variables = [
            (
                "PREFERENCES_HOME",
                "The Preferences directory; default $XDG_CONFIG_HOME/preferences, else "
                    + "~/.config/preferences."
            ),
            (
                "PREFERENCES_SYSTEM_DIR",
                "The administrator's layer, read by explain; default /etc/preferences, "
                    + "with forced/ inside."
            ),
            (
                "PREFERENCES_DOMAINS_DIR",
                "The registration defaults packages ship, read by explain; default "
                    + "/usr/share/preferences/domains."
            ),
        ]
        for (name, text) in variables {
            page += [".TP", ".B " + escaped(name), escaped(text)]
        }
        page.append(".SH EXIT STATUS")
        page += paragraphs([
            "0 on success (find finds nothing, watch is interrupted), 1 when a domain or key does not exist or an "
                + "operation fails, 255 for a usage error.",
            "A usage error prints its reason on one line of standard error first (\"defaults: unknown command "
                + "'raed'; did you mean 'read'?\"), then the usage text on standard output, as macOS does. The three "
                + "programs of Preferences for Linux share one scheme: 0 for success, 1 for a failure, and a status "
                + "of its own for a usage error, which is 2 for plutil and prefsd (the GNU convention, which systemd "
                + "shows as INVALIDARGUMENT) and 255 for defaults, because macOS's defaults exits with -1 and "
                + "scripts written for it test that.",
        ])
        page.append(".SH EXAMPLES")
        for example in [
            "defaults write com.example.Editor Theme dark",
            "defaults write com.example.Editor FontSize -int 13",
            "defaults write com.example.Editor Recent -array-add ~/notes.txt",
            "defaults read com.example.Editor",
            "defaults read -format json com.example.Editor",
            "defaults write com.example.Editor -keypath Window.Frame.0 -int 40",
            "defaults write com.example.Editor Theme dark -- FontSize -int 13",
            "defaults explain com.example.Editor Theme",
            "defaults watch com.example.Editor",
        ] {
            page += [".PP", ".nf", escaped(example), ".fi"]
        }
        page.append(".SH SEE ALSO")
        page.append(".BR plutil (1)")
        return page.joined(separator: "\n") + "\n"
    }()

    /// Paragraphs separated by `.PP`.
    private static func paragraphs(_ texts: [String]) -> [String] {
        var lines: [String] = []
        for (index, text) in texts.enumerated() {
            if index > 0 { lines.append(".PP") }
            lines.append(escaped(text))
        }
        return lines
    }

    /// Text safe in roff: backslashes as `\e`, hyphens as `\-` (they are options to copy), and a leading `.` or `'`
    /// guarded so that it is not read as a request.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            default: result.append(character)
            }
        }
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }
}
