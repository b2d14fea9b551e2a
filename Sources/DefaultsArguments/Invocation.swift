// SPDX-License-Identifier: Apache-2.0
package import PrefsAccess
package import PrefsCommandLine
package import PrefsPlist

/// A parsed command line: the host option and the command with its arguments.
package struct Invocation: Sendable, Equatable {
    /// One command and its arguments.
    package enum Command: Sendable, Equatable {
        /// `help`, `--help`, `-h`: the help text on standard output, exit status 0.
        case help
        /// `<verb> --help`: the verb's forms and what they do, on standard output, exit status 0.
        case verbHelp(String)
        /// `--version`: one line, `defaults 1.0.0`, exit status 0.
        case version
        /// `printHostIdentifier`: the machine id that names by-host files.
        case printHostIdentifier
        /// `domains`.
        case domains
        /// `read` without a domain.
        case readAll(format: OutputFormat?)
        /// `read <domain> [<key>]`.
        case read(DomainSelector, key: PlistKeyPath?, format: OutputFormat?)
        /// `read-type <domain> <key>`.
        case readType(DomainSelector, key: PlistKeyPath)
        /// `write <domain> <domain_rep>`: the representation as given, parsed when run.
        case replaceDomain(DomainSelector, representation: String)
        /// `write <domain> <key> <value> [-- <key> <value>]...`.
        case write(DomainSelector, [KeyAssignment])
        /// `rename <domain> <old_key> <new_key>`.
        case rename(DomainSelector, from: String, to: String)
        /// `delete <domain> [<key>]`.
        case delete(DomainSelector, key: PlistKeyPath?)
        /// `import <domain> <path | ->`; `nil` when the path is missing (an error macOS reports on its own).
        case importDomain(DomainSelector, source: String?)
        /// `export <domain> <path | ->`; `nil` when the path is missing.
        case exportDomain(DomainSelector, destination: String?, format: OutputFormat?)
        /// `find <word>`.
        case find(String)
        /// `watch [<domain> [<key>]]`.
        case watch(DomainSelector?, key: String?)
        /// `watch -effective [-suite <domain>]... <domain> [<key>]`: the effective values an application reads, from
        /// every layer.
        case watchEffective(DomainSelector, key: String?, suites: [DomainSelector])
        /// `browse [<domain>]`: the terminal browser, which the `defaults-browse` executable runs.
        case browse(DomainSelector?)
        /// `explain [-suite <domain>]... <domain> <key>`.
        case explain(DomainSelector, key: String, suites: [DomainSelector])
        /// `describe <domain> [<key>]`: the domain's schema, or one key's.
        case describe(DomainSelector, key: String?)
        /// `fleet write|read|delete|list …`: edit the managed domains in etcd.
        case fleet(FleetCommand)
        /// `migrate [-from foundation|gnustep|dconf] [-overwrite] [-dry-run] [<domain>...]`; `sources` in the order read
        /// (Foundation then GNUstep without `-from`).
        case migrate(sources: [MigrationSource.Kind], domains: [DomainSelector], overwrite: Bool, dryRun: Bool)
        /// `completion <shell>`.
        case completion(Shell)
        /// `man`.
        case manualPage
        /// `__complete domains`: domain names for completion, one per line.
        case completeDomains
        /// `__complete keys <domain>`: a domain's keys for completion, one per line.
        case completeKeys(DomainSelector)
    }

    /// `-currentHost`, `-host <name>`, or neither.
    package var host: HostSelector
    /// The command.
    package var command: Command
    /// `-force` after `write`, `rename` or `import`: store values the domain's schema file forbids
    /// (docs/SCHEMAS.md).
    package var ignoresSchema = false

    package init(host: HostSelector, command: Command, ignoresSchema: Bool = false) {
        self.host = host
        self.command = command
        self.ignoresSchema = ignoresSchema
    }
}
