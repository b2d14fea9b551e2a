// SPDX-License-Identifier: Apache-2.0
/// One command of `defaults` as data: its names, the synopsis lines of the help text, the manual's paragraph, and
/// what each argument is, so that the help text, the shell completions and the manual page come from one table
/// (``Verb/all``).
package struct Verb: Sendable {
    /// One synopsis line: the arguments as the help text shows them, and what that form does.
    package struct Form: Sendable {
        /// `read <domain> <key>`.
        package let usage: String
        /// `shows defaults for given domain, key`.
        package let summary: String
        /// True for a form macOS `defaults` does not have; the help text lists these separately.
        package let isExtension: Bool

        init(_ usage: String, _ summary: String, isExtension: Bool = false) {
            self.usage = usage
            self.summary = summary
            self.isExtension = isExtension
        }
    }

    /// What a positional argument is, for completion.
    package enum Slot: Sendable, Hashable {
        /// A domain: a name from `defaults domains`, `-g`, `-globalDomain`, `NSGlobalDomain`, or a file path.
        case domain
        /// A key of the domain before it.
        case key
        /// A `write` value: a typed flag or a property list.
        case value
        /// A file path, or `-`.
        case file
        /// A shell name for `completion`.
        case shell
        /// Free text (the word of `find`, the new name of `rename`).
        case text
    }

    /// An option placed between the verb and its positional arguments.
    package struct Option: Sendable {
        /// `-format`.
        let name: String
        /// The completions of its argument, or `nil` for a domain (`-suite`).
        package let values: [String]?
    }

    /// The name users type; verbs are matched without regard to case, as on macOS.
    package let name: String
    /// Other names for the same verb (`remove` for `delete`).
    package let aliases: [String]
    /// The synopsis lines.
    package let forms: [Form]
    /// Whether macOS's help text puts a blank line after this verb's lines.
    package let isFollowedByBlankLine: Bool
    /// Options taken between the verb and its arguments.
    let options: [Option]
    /// The positional arguments, in order; the last one repeats for `write` values.
    package let slots: [Slot]
    /// The manual page's description, one paragraph per element.
    package let manual: [String]
    /// True for verbs macOS does not have.
    let isExtension: Bool
    /// True for verbs left out of the help text, the manual and the completions' verb list.
    package let isHidden: Bool

    init(
        _ name: String, aliases: [String] = [], forms: [Form], blankLineAfter: Bool = false, options: [Option] = [],
        slots: [Slot] = [], manual: [String], isExtension: Bool = false, isHidden: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.forms = forms
        self.isFollowedByBlankLine = blankLineAfter
        self.options = options
        self.slots = slots
        self.manual = manual
        self.isExtension = isExtension
        self.isHidden = isHidden
    }

    /// The name of the verb that `text` names (its name or an alias, matched without regard to case), or `nil`.
    ///
    /// Parsing a command line needs only this, not ``all``: building that table makes the run-time metadata of
    /// each kind of array it holds, which cost a one-shot command more than the rest of its parsing. The parsing
    /// tests check that the two agree.
    static func canonicalName(_ text: String) -> String? {
        let lowered = text.lowercased()
        switch lowered {
        case "remove":
            return "delete"
        case "read", "read-type", "write", "rename", "delete", "import", "export", "domains", "find", "help", "watch",
            "browse", "explain", "describe", "fleet", "migrate", "completion", "man", "printhostidentifier",
            "__complete":
            return lowered
        default:
            return nil
        }
    }

    /// The name of the `-force` option of `write`, `rename` and `import`: store what the domain's schema forbids.
    static let forceOptionName = "-force"

    /// The `-force` option.
    static let forceOption = Option(name: forceOptionName, values: [])

    /// The name of the `-format` option.
    static let formatOptionName = "-format"

    /// The `-format` option of `read` and `export`.
    package static let formatOption = Option(
        name: formatOptionName, values: OutputFormat.allCases.map(\.rawValue))

    /// Every verb, in the order of the help text.
    package static let all: [Verb] = [
        Verb(
            "read",
            forms: [
                Form("read", "shows all defaults"),
                Form("read <domain>", "shows defaults for given domain"),
                Form("read <domain> <key>", "shows defaults for given domain, key"),
                Form("read -format <format> ...", "prints openstep, xml, json or binary", isExtension: true),
            ],
            blankLineAfter: true, options: [formatOption], slots: [.domain, .key],
            manual: [
                "Without a domain, prints every domain of the user (or of the host, with -currentHost) as one "
                    + "dictionary keyed by domain name; the global domain is \"Apple Global Domain\".",
                "With a domain, prints its keys and values in the text macOS prints: dictionaries in braces with "
                    + "\"key = value;\" lines sorted by key, arrays in parentheses, 4 spaces per level, booleans as "
                    + "1 and 0, dates as \"2024-05-01 12:30:00 +0000\", data as \"{length = 2, bytes = 0x0fab}\", "
                    + "and strings quoted unless they are plain letters and digits. With a key, prints its value "
                    + "alone; a string prints bare.",
                "-format openstep, xml, json or binary prints the same value as a property list in that format "
                    + "instead (binary is written to standard output as is).",
            ]),
        Verb(
            "read-type",
            forms: [Form("read-type <domain> <key>", "shows the type for the given domain, key")],
            blankLineAfter: true, slots: [.domain, .key],
            manual: [
                "Prints \"Type is\" and one of string, integer, float, boolean, date, data, array or dictionary."
            ]),
        Verb(
            "write",
            forms: [
                Form("write <domain> <domain_rep>", "writes domain (overwrites existing)"),
                Form("write <domain> <key> <value>", "writes key for domain"),
                Form(
                    "write <domain> <key> <value> -- <key> <value> ...", "writes several keys as one change",
                    isExtension: true),
                Form(
                    "write -force <domain> ...", "writes even what the domain's schema forbids",
                    isExtension: true),
            ],
            blankLineAfter: true, options: [forceOption], slots: [.domain, .key, .value],
            manual: [
                "With a single property-list argument, which must be a dictionary, replaces the whole domain. "
                    + "Otherwise sets the key to the value (see VALUES).",
                "Several key/value pairs separated by -- are written as one change: all or none, one write of "
                    + "the file and one notification batch. Inside -array and -dict a bare -- ends the list; write "
                    + "-string -- for a literal --.",
                "A value the domain's schema forbids (a wrong type, out of its range, not one of its choices; see "
                    + "describe) is refused, naming the rule and the schema file, and nothing is written; -force "
                    + "writes it anyway. The same holds for rename, import and the -array-add and -dict-add forms. A "
                    + "schema file that cannot be used is named in a warning and not enforced.",
            ]),
        Verb(
            "rename",
            forms: [Form("rename <domain> <old_key> <new_key>", "renames old_key to new_key")],
            blankLineAfter: true, slots: [.domain, .key, .text],
            manual: ["Moves a value to a new key in one change."]),
        Verb(
            "delete", aliases: ["remove"],
            forms: [
                Form("delete <domain>", "deletes domain"),
                Form("delete <domain> <key>", "deletes key in domain"),
            ],
            blankLineAfter: true, slots: [.domain, .key],
            manual: [
                "Without a key, removes every key of the domain and its file. A domain whose file is corrupt is "
                    + "deleted too: the file is renamed aside to <name>.corrupt-<time>, never lost."
            ]),
        Verb(
            "import",
            forms: [
                Form("import <domain> <path to plist>", "writes the plist at path to domain"),
                Form("import <domain> -", "writes a plist from stdin to domain"),
            ],
            options: [forceOption], slots: [.domain, .file],
            manual: [
                "Reads a dictionary in any property-list format (XML, binary, OpenStep, JSON) and sets each of its "
                    + "keys in the domain, as one change; keys the file does not hold are kept. -force as for write."
            ]),
        Verb(
            "export",
            forms: [
                Form("export <domain> <path to plist>", "saves domain as a binary plist to path"),
                Form("export <domain> -", "writes domain as an xml plist to stdout"),
                Form(
                    "export -format <format> <domain> <path | ->", "in openstep, xml, json or binary",
                    isExtension: true),
            ],
            options: [formatOption], slots: [.domain, .file],
            manual: [
                "Writes the domain as a binary property list to the path (replaced atomically), or as XML to "
                    + "standard output for -. -format chooses another format for either."
            ]),
        Verb(
            "domains",
            forms: [Form("domains", "lists all domains")],
            manual: [
                "Prints the names of the user's domains (with -currentHost, the host's), sorted and separated by "
                    + "\", \", without the global domain."
            ]),
        Verb(
            "find",
            forms: [Form("find <word>", "lists all entries containing word")],
            slots: [.text],
            manual: [
                "Searches every domain, without regard to case, for the word in domain names, keys and string "
                    + "values (inside arrays and dictionaries too) and prints the matching keys of each domain."
            ]),
        Verb(
            "help",
            forms: [Form("help", "print this help")],
            manual: ["Prints the help text; --help and -h do too."]),
        Verb(
            "watch",
            forms: [
                Form("watch [<domain> [<key>]]", "prints each change as it happens", isExtension: true),
                Form(
                    "watch -effective [-suite <domain>]... <domain> [<key>]",
                    "prints each change of the value the app reads", isExtension: true),
            ],
            slots: [.domain, .key],
            manual: [
                "Prints one line per change, from any process or a hand edit, until interrupted: \"<domain> <key> = "
                    + "<value>\" or \"<domain> <key> deleted\", the key and value in read's quoting on one line. "
                    + "Without a domain, watches every domain, including ones created later. It first says what it "
                    + "watches on standard error.",
                "With -effective it watches what an application with that domain (and those suites) reads, as "
                    + "explain resolves it: a change in any layer (forced, fleet-managed, user, by-host, global, "
                    + "system) prints \"<domain> <key> = <value> from <layer>\" or \"<domain> <key> is not set in "
                    + "any layer\" when the value read changes; a change another layer shadows prints nothing.",
            ],
            isExtension: true),
        Verb(
            "browse",
            forms: [
                Form(
                    "browse [<domain>]", "browses and edits every domain and layer, live",
                    isExtension: true)
            ],
            slots: [.domain],
            manual: [
                "Opens a full-screen browser in the terminal (the defaults-browse program): every domain of the user "
                    + "and system layers on the left, filterable as you type; the selected domain's keys with their "
                    + "values, types and the layer that supplies each; and the selected key in detail, with every "
                    + "layer that holds it and its file. Keys edit, add, delete and reset values, each edit one "
                    + "atomic write that changes nothing when the value changed since it was shown. Changes made "
                    + "by other processes show as they happen. Press ? in it for the keys; NO_COLOR turns colours off."
            ],
            isExtension: true),
        Verb(
            "explain",
            forms: [
                Form(
                    "explain [-suite <domain>]... <domain> <key>", "shows where the value comes from",
                    isExtension: true)
            ],
            options: [Option(name: "-suite", values: nil)], slots: [.domain, .key],
            manual: [
                "Prints the value an application with this domain (and these suites) reads, the layer and file that "
                    + "supply it, and every value it shadows, searching forced, by-host, the domain, suites, global, "
                    + "system and shipped registration layers in order; layers whose file is broken are listed as "
                    + "skipped. Exits with status 1 when no layer holds the key."
            ],
            isExtension: true),
        Verb(
            "describe",
            forms: [
                Form("describe <domain> [<key>]", "shows what the domain's keys are for", isExtension: true)
            ],
            slots: [.domain, .key],
            manual: [
                "Prints the domain's schema (docs/SCHEMAS.md): the file it comes from, the domain's summary, and for "
                    + "each described key its type, default, range or choices, summary and description; with a key, "
                    + "that key only. Schemas are <domain>.schema.plist files in the Schemas directory of the "
                    + "Preferences directory, of the system layer and of the shipped defaults; the highest layer's "
                    + "wins. Says so, and exits with status 1, when the domain has no schema or does not describe "
                    + "the key."
            ],
            isExtension: true),
        Verb(
            "fleet",
            forms: [
                Form(
                    "fleet write -forced|-default [-group <name> | -host <id>] [-wait] <domain> <key> <value>",
                    "sets a fleet-managed key in etcd", isExtension: true),
                Form(
                    "fleet read|delete -forced|-default [-group <name> | -host <id>] <domain> [<key>]",
                    "shows or removes a fleet-managed domain or key", isExtension: true),
                Form(
                    "fleet list [-forced|-default] [-all | -group <name> | -host <id>]",
                    "lists the fleet-managed domains", isExtension: true),
                Form(
                    "fleet hosts [-group <name> | -host <id>] [-behind] [-format text|json]",
                    "lists the fleet's live hosts and how far each is", isExtension: true),
                Form(
                    "fleet wait [-timeout <s>] [-group <name> | -host <id>] <revision>",
                    "waits until the live hosts have applied a revision", isExtension: true),
                Form("fleet status", "shows this host's fleet state, from its prefsd", isExtension: true),
            ],
            options: [
                Option(name: "-forced", values: []), Option(name: "-default", values: []),
                Option(name: "-all", values: []), Option(name: "-group", values: []),
                Option(name: "-host", values: []), Option(name: "-endpoints", values: []),
                Option(name: "-prefix", values: []), Option(name: "-user", values: []),
                Option(name: "-behind", values: []), Option(name: "-format", values: ["text", "json"]),
                Option(name: "-wait", values: []), Option(name: "-timeout", values: []),
            ],
            slots: [.text, .domain, .key, .value],
            manual: [
                "Edits the domains a fleet administrator manages in etcd (docs/FLEET.md): forced (the user cannot "
                    + "override them) or defaults (just above the registration defaults), for every host (-all, the "
                    + "default), a group of hosts (-group), or one machine (-host, its machine id). Every prefsd "
                    + "joined to the fleet mirrors them within about a second. The endpoints come from -endpoints "
                    + "(comma-separated URLs) or PREFERENCES_FLEET_ENDPOINTS, the key prefix from -prefix or "
                    + "PREFERENCES_FLEET_PREFIX (default /preferences/).",
                "write and delete read the domain, edit it, and write it back in one etcd transaction that holds "
                    + "only if the domain's revision is still the one read, retrying on a conflict: two "
                    + "administrators never lose each other's change. Values are given as for write.",
                "On a cluster with authentication enabled, -user (or PREFERENCES_FLEET_USER) names the etcd user, "
                    + "and PREFERENCES_FLEET_PASSWORD_FILE the file holding its password, which must be readable by "
                    + "its owner only. A write the user's roles do not allow fails with permission denied, naming the "
                    + "key and the user, and changes nothing.",
                "With https:// endpoints the connection is TLS (1.2 or later) and the members' certificates are "
                    + "verified: PREFERENCES_FLEET_CA_FILE names the CA certificates (PEM) that sign them (default: "
                    + "the system's), PREFERENCES_FLEET_CRL_FILE revocation lists (PEM) to check them against, "
                    + "PREFERENCES_FLEET_CERTIFICATE_FILE and PREFERENCES_FLEET_KEY_FILE a client certificate and its "
                    + "unencrypted key (PEM, readable by its owner only), for a cluster that requires one. The "
                    + "endpoints are all http:// or all https://.",
                "write and delete print the etcd revision they wrote. With -wait they then wait (up to -timeout "
                    + "seconds, default 60) until every live host they target has applied it, and say how many have "
                    + "it and which are behind and why; they exit with status 1 when some are still behind. A "
                    + "managed value that is not a property list dictionary is replaced by write (which starts from "
                    + "an empty domain) and removed by delete of the whole domain, with a warning naming it.",
                "hosts lists every live host of the fleet's registry (each prefsd registers itself at "
                    + "<prefix>hosts/<machine-id> on an etcd lease; a host that stops or is cut off leaves when the "
                    + "lease expires): its machine id, name, groups, state, the revision it has applied, how far it "
                    + "is behind the newest managed change (in revisions and seconds), and its last error. -group "
                    + "or -host selects hosts, -behind only those behind, -format json prints a JSON object.",
                "wait returns when every live host (of a group, or one host) has applied the revision, printing "
                    + "how many have it after how long; after -timeout seconds (default 60) it names the hosts still "
                    + "behind and exits with status 1, as it does when no live host is registered.",
                "status asks this host's prefsd (it needs no endpoints, and fails when prefsd is not running) and "
                    + "prints its fleet state as name: value lines: the state (connecting, connected or offline, or "
                    + "not in a fleet), the etcd endpoint, the host's name, machine id and groups, the last etcd "
                    + "revision applied, the newest managed change known and how far behind it the host is, the "
                    + "newest revision etcd reported and the lag between them, the host's registry key and lease, "
                    + "the last error and its date, how many values from etcd were refused, and the cache directory.",
            ],
            isExtension: true),
        Verb(
            "migrate",
            forms: [
                Form(
                    "migrate [-from foundation | gnustep | dconf] [-overwrite] [-dry-run] [<domain>...]",
                    "adopts settings from Foundation, GNUstep or dconf", isExtension: true)
            ],
            options: [
                Option(name: "-from", values: ["foundation", "gnustep", "dconf"]),
                Option(name: "-overwrite", values: []),
                Option(name: "-dry-run", values: []),
            ],
            slots: [.domain],
            manual: [
                "Imports the settings that apps on Foundation's UserDefaults ($XDG_CONFIG_HOME/<domain>.plist, "
                    + "~/.config by default) or GNUstep ($GNUSTEP_USER_DEFAULTS_DIR, else ~/GNUstep/Defaults) wrote, "
                    + "for the domains named, or for every domain such a file exists for; NSGlobalDomain.plist is the "
                    + "global domain. Without -from, Foundation's files are read first, then GNUstep's.",
                "-from dconf adopts GNOME's settings from the user's dconf database ($XDG_CONFIG_HOME/dconf/user), "
                    + "read with dconf dump / (dconf-cli): each dconf directory, such as /org/gnome/desktop/interface/, "
                    + "is the domain org.gnome.desktop.interface, and each value is stored as the GSettings backend "
                    + "stores it: booleans, integers, doubles, strings, string arrays, byte strings and string-keyed "
                    + "dictionaries as themselves, any other type tagged: a dictionary whose one key, $gvariant, holds "
                    + "the value's text (docs/GSETTINGS.md). A directory that names no domain (a component with '.', "
                    + "a space or another character outside A-Z a-z 0-9 _ -) and keys at the root are skipped and "
                    + "listed on standard error. dconf is read only with -from dconf.",
                "Each domain is one atomic change: keys it lacks are taken, keys already set here are kept (-overwrite "
                    + "replaces them), nothing is removed, and the other program's files (or dconf database) are left "
                    + "untouched. Prints one line per domain saying what it took, replaced and kept; -dry-run prints "
                    + "the same and changes nothing. Each adoption is recorded in the domain preferences.migrations. "
                    + "Exits with status 1 when a file or a dconf value could not be read or a domain could not be "
                    + "written.",
            ],
            isExtension: true),
        Verb(
            "completion",
            forms: [Form("completion (bash | zsh | fish)", "prints a shell completion script", isExtension: true)],
            slots: [.shell],
            manual: [
                "Prints a completion script for the shell, generated from the same table as this page. For bash: "
                    + "defaults completion bash > /etc/bash_completion.d/defaults."
            ],
            isExtension: true),
        Verb(
            "man",
            forms: [Form("man", "prints this manual page (roff)", isExtension: true)],
            manual: ["Prints this manual page in roff: defaults man | man -l -."],
            isExtension: true),
        Verb(
            "printhostidentifier",
            forms: [Form("printHostIdentifier", "prints the identifier of by-host files")],
            manual: ["Prints the machine id that names this host's by-host files."],
            isHidden: true),
        Verb(
            "__complete",
            forms: [Form("__complete (domains | keys <domain>)", "completion candidates, one per line")],
            slots: [.text, .domain],
            manual: ["Used by the completion scripts."],
            isExtension: true, isHidden: true),
    ]
}
