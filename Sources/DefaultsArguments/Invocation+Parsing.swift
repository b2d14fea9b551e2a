// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsCommandLine
import PrefsPlist

extension Invocation {
    /// Whether `word` asks for help besides the `help` verb (an extension: macOS prints the usage text and fails).
    static func isHelpOption(_ word: String) -> Bool {
        word == "--help" || word == "-help" || word == "-h"
    }

    /// Whether `word` asks for the version (an extension, the GNU convention; macOS has no such option).
    static func isVersionOption(_ word: String) -> Bool {
        word == "--version" || word == "-version"
    }

    /// Parses a command line as macOS `defaults` does: an optional `-currentHost` or `-host <name>`, a verb
    /// (matched without regard to case), then the verb's arguments.
    ///
    /// Problems that macOS reports with its usage text are thrown as usage errors with a reason; problems macOS
    /// reports in its own words (`Unexpected argument …`, `Could not parse: …`) are thrown with those words.
    /// - Parameter arguments: The arguments, without the program name.
    /// - Throws: ``DefaultsError``.
    package static func parse(_ arguments: [String]) throws(DefaultsError) -> Invocation {
        guard !arguments.isEmpty else { throw .usage(nil) }
        var reader = ArgumentReader(arguments)
        let host: HostSelector
        switch arguments[0] {
        case "-currentHost":
            reader.cursor = 1
            host = .current
        case "-host":
            guard arguments.count > 1 else { throw .usage("-host needs a host name") }
            reader.cursor = 2
            host = .named(arguments[1])
        default:
            host = .any
        }
        guard let verbText = reader.next() else { throw .usage("a command is missing") }
        if isHelpOption(verbText) { return Invocation(host: host, command: .help) }
        if isVersionOption(verbText) { return Invocation(host: host, command: .version) }
        guard let verb = Verb.canonicalName(verbText) else { throw unknownCommand(verbText) }
        if let next = reader.peek(), isHelpOption(next) { return Invocation(host: host, command: .verbHelp(verb)) }
        var ignoresSchema = false
        if verb == "write" || verb == "rename" || verb == "import", reader.peek() == Verb.forceOptionName {
            reader.cursor += 1
            ignoresSchema = true
        }
        return Invocation(
            host: host, command: try parseArguments(of: verb, &reader), ignoresSchema: ignoresSchema)
    }

    /// `unknown command 'raed'; did you mean 'read'?`: the nearest visible verb, alias or option, compared without
    /// regard to case as verbs are matched.
    ///
    /// Only a failing command line builds the verb table for this (``Verb/canonicalName(_:)`` says why the others
    /// do not).
    static func unknownCommand(_ text: String) -> DefaultsError {
        let names = Verb.all.filter { !$0.isHidden }.flatMap { [$0.name] + $0.aliases } + ["--help", "--version"]
        return .usage("unknown command '\(text)'" + SpellingSuggestion.clause(for: text.lowercased(), among: names))
    }

    private static func parseArguments(
        of verb: String, _ reader: inout ArgumentReader
    ) throws(DefaultsError) -> Command {
        switch verb {
        case "help":
            return .help
        case "printhostidentifier":
            try reader.expectEnd()
            return .printHostIdentifier
        case "domains":
            try reader.expectEnd()
            return .domains
        case "read":
            let format = try reader.formatOption()
            if reader.isAtEnd { return .readAll(format: format) }
            let domain = try reader.domain()
            let key = try reader.key(required: false)
            try reader.expectEnd()
            return .read(domain, key: key, format: format)
        case "read-type":
            let domain = try reader.domain()
            guard let key = try reader.key(required: true) else { throw .usage("a key is missing") }
            try reader.expectEnd()
            return .readType(domain, key: key)
        case "write":
            return try parseWrite(&reader)
        case "rename":
            let domain = try reader.domain()
            guard let old = reader.next(), let new = reader.next() else {
                throw .usage("rename needs the old key and the new key")
            }
            try reader.expectEnd()
            return .rename(domain, from: old, to: new)
        case "delete":
            let domain = try reader.domain()
            let key = try reader.key(required: false)
            try reader.expectEnd()
            return .delete(domain, key: key)
        case "import":
            let domain = try reader.domain()
            let source = reader.next()
            try reader.expectEnd()
            return .importDomain(domain, source: source)
        case "export":
            let format = try reader.formatOption()
            let domain = try reader.domain()
            let destination = reader.next()
            try reader.expectEnd()
            return .exportDomain(domain, destination: destination, format: format)
        case "find":
            guard let word = reader.next() else { throw .usage("find needs a word") }
            try reader.expectEnd()
            return .find(word)
        default:
            return try parseExtension(verb, &reader)
        }
    }

    /// `write <domain> <domain_rep>`, or key/value pairs separated by `--`.
    private static func parseWrite(_ reader: inout ArgumentReader) throws(DefaultsError) -> Command {
        let domain = try reader.domain()
        switch reader.remaining {
        case 0: throw .usage("write needs a key and a value, or a dictionary")
        case 1: return .replaceDomain(domain, representation: reader.next()!)
        default: break
        }
        var assignments: [KeyAssignment] = []
        while true {
            guard let key = try reader.key(required: true) else { throw .usage("a key is missing") }
            guard !reader.isAtEnd else { throw .usage("the value for key \(key) is missing") }
            let (value, mode) = try ValueParser.parseValue(
                reader.arguments, cursor: &reader.cursor, allowsContainers: true)
            assignments.append(KeyAssignment(key: key, value: value, mode: mode))
            guard let next = reader.peek() else { return .write(domain, assignments) }
            guard next == ValueParser.pairSeparator, reader.remaining > 1 else {
                throw DefaultsError(.invalidArgument, "Unexpected argument \(next); leaving defaults unchanged.")
            }
            reader.cursor += 1
        }
    }

    /// `-suite <domain>`, repeated: the suites of an application's search list.
    private static func suiteOptions(_ reader: inout ArgumentReader) throws(DefaultsError) -> [DomainSelector] {
        var suites: [DomainSelector] = []
        while reader.peek() == "-suite" {
            reader.cursor += 1
            guard !reader.isAtEnd else { throw .usage("-suite needs a domain") }
            suites.append(try reader.domain())
        }
        return suites
    }

    private static func parseExtension(
        _ verb: String, _ reader: inout ArgumentReader
    ) throws(DefaultsError) -> Command {
        switch verb {
        case "watch":
            if reader.isAtEnd { return .watch(nil, key: nil) }
            if reader.peek() == "-effective" {
                reader.cursor += 1
                let suites = try suiteOptions(&reader)
                guard !reader.isAtEnd else { throw .usage("watch -effective needs a domain") }
                let domain = try reader.domain()
                let key = reader.next()
                if key == PlistKeyPath.optionName { throw .usage("watch takes a key, not a key path") }
                try reader.expectEnd()
                return .watchEffective(domain, key: key, suites: suites)
            }
            let domain = try reader.domain()
            let key = reader.next()
            if key == PlistKeyPath.optionName { throw .usage("watch takes a key, not a key path") }
            try reader.expectEnd()
            return .watch(domain, key: key)
        case "browse":
            let domain = reader.isAtEnd ? nil : try reader.domain()
            try reader.expectEnd()
            return .browse(domain)
        case "explain":
            let suites = try suiteOptions(&reader)
            let domain = try reader.domain()
            guard let key = reader.next() else { throw .usage("explain needs a domain and a key") }
            try reader.expectEnd()
            return .explain(domain, key: key, suites: suites)
        case "describe":
            let domain = try reader.domain()
            let key = reader.next()
            try reader.expectEnd()
            return .describe(domain, key: key)
        case "fleet":
            return .fleet(try FleetCommand.parse(&reader))
        case "migrate":
            var sources = MigrationSource.Kind.defaultKinds
            var overwrite = false
            var dryRun = false
            while let option = reader.peek(), option.hasPrefix("-"), !option.hasPrefix("-g"), option != "-app" {
                reader.cursor += 1
                switch option {
                case "-from":
                    guard let name = reader.next(), let kind = MigrationSource.Kind(rawValue: name) else {
                        throw .usage("-from takes foundation, gnustep or dconf")
                    }
                    sources = [kind]
                case "-overwrite": overwrite = true
                case "-dry-run": dryRun = true
                default:
                    throw .usage(
                        "migrate does not know the option \(option)"
                            + SpellingSuggestion.clause(for: option, among: ["-from", "-overwrite", "-dry-run"]))
                }
            }
            var domains: [DomainSelector] = []
            while !reader.isAtEnd { domains.append(try reader.domain()) }
            return .migrate(sources: sources, domains: domains, overwrite: overwrite, dryRun: dryRun)
        case "completion":
            guard let name = reader.next(), let shell = Shell(rawValue: name) else {
                throw .usage("completion takes \(Shell.nameList)")
            }
            try reader.expectEnd()
            return .completion(shell)
        case "man":
            try reader.expectEnd()
            return .manualPage
        case "__complete":
            switch reader.next() {
            case "domains":
                try reader.expectEnd()
                return .completeDomains
            case "keys":
                let domain = try reader.domain()
                try reader.expectEnd()
                return .completeKeys(domain)
            default:
                throw .usage("__complete takes domains, or keys and a domain")
            }
        default:
            throw unknownCommand(verb)
        }
    }
}
