// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsCommandLine
import PrefsDomain
import PrefsPlist
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// The command-line grammar: host options, verbs in any case, domains, keys, key paths, options and batches.
@Suite struct InvocationParsingTests {
    private func parse(_ arguments: [String]) throws -> Invocation {
        try Invocation.parse(arguments)
    }

    /// The reason of the usage error a command line gets, or `nil` when it parses.
    private func usageReason(_ arguments: [String]) -> String? {
        do {
            _ = try Invocation.parse(arguments)
            return nil
        } catch {
            #expect(error.code == .usage, "\(arguments): \(error)")
            return error.message
        }
    }

    @Test func hostOptionsComeFirst() throws {
        #expect(try parse(["read"]) == Invocation(host: .any, command: .readAll(format: nil)))
        #expect(try parse(["-currentHost", "domains"]) == Invocation(host: .current, command: .domains))
        #expect(try parse(["-host", "box", "domains"]) == Invocation(host: .named("box"), command: .domains))
        // After the verb, -currentHost is a domain name, as on macOS.
        #expect(
            try parse(["read", "-currentHost"])
                == Invocation(host: .any, command: .read(.name("-currentHost"), key: nil, format: nil)))
    }

    @Test func domainsAreNamesGlobalAliasesPathsOrApplications() throws {
        for alias in ["-g", "-globalDomain", "NSGlobalDomain", "Apple Global Domain"] {
            #expect(try parse(["read", alias]).command == .read(.global, key: nil, format: nil))
        }
        #expect(try parse(["read", "a/b"]).command == .read(.path("a/b"), key: nil, format: nil))
        #expect(try parse(["read", "/x.plist"]).command == .read(.path("/x.plist"), key: nil, format: nil))
        #expect(try parse(["read", "x.plist"]).command == .read(.name("x.plist"), key: nil, format: nil))
        #expect(
            try parse(["read", "-app", "Mail", "k"]).command
                == .read(.application("Mail"), key: PlistKeyPath(key: "k"), format: nil))
    }

    @Test func keysArePlainUnlessGivenWithKeypath() throws {
        #expect(
            try parse(["read", "D", "a.b"]).command == .read(.name("D"), key: PlistKeyPath(key: "a.b"), format: nil))
        #expect(
            try parse(["read", "D", "-keypath", "a.b"]).command
                == .read(.name("D"), key: PlistKeyPath("a.b"), format: nil))
        #expect(
            try parse(["read-type", "D", "-keypath", "x"]).command == .readType(.name("D"), key: PlistKeyPath("x")))
        #expect(try parse(["delete", "D", "-keypath", "a.0"]).command == .delete(.name("D"), key: PlistKeyPath("a.0")))
    }

    @Test func keyPathsDeeperThanTheStoreAcceptsAreRefused() throws {
        let deepest = Array(repeating: "k", count: PlistKeyPath.maxComponents).joined(separator: ".")
        #expect(
            try parse(["read", "D", "-keypath", deepest]).command
                == .read(.name("D"), key: PlistKeyPath(deepest), format: nil))
        do {
            _ = try Invocation.parse(["write", "D", "-keypath", deepest + ".k", "v"])
            Issue.record("a key path of \(PlistKeyPath.maxComponents + 1) components parsed")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(
                error.message
                    == "defaults: the key path has 66 components; values nest at most 64 deep (maxDepth = 64)\n")
        }
    }

    @Test func formatGoesRightAfterTheVerb() throws {
        #expect(try parse(["read", "-format", "json"]).command == .readAll(format: .json))
        #expect(
            try parse(["read", "-format", "xml", "D", "k"]).command
                == .read(.name("D"), key: PlistKeyPath(key: "k"), format: .xml))
        #expect(
            try parse(["export", "-format", "binary", "D", "-"]).command
                == .exportDomain(.name("D"), destination: "-", format: .binary))
        // After the domain, -format is a key, as macOS reads it.
        #expect(
            try parse(["read", "D", "-format"]).command
                == .read(.name("D"), key: PlistKeyPath(key: "-format"), format: nil))
    }

    @Test func writeTakesARepresentationOrPairs() throws {
        #expect(
            try parse(["write", "D", "{ a = 1; }"]).command == .replaceDomain(.name("D"), representation: "{ a = 1; }"))
        #expect(
            try parse(["write", "D", "k", "v"]).command
                == .write(.name("D"), [KeyAssignment(key: PlistKeyPath(key: "k"), value: "v", mode: .set)]))
        #expect(
            try parse(["write", "D", "k", "-array-add", "a", "--", "-keypath", "x.y", "-int", "2", "--", "z", "--"])
                .command
                == .write(
                    .name("D"),
                    [
                        KeyAssignment(key: PlistKeyPath(key: "k"), value: ["a"], mode: .arrayAdd),
                        KeyAssignment(key: PlistKeyPath("x.y"), value: 2, mode: .set),
                        KeyAssignment(key: PlistKeyPath(key: "z"), value: "--", mode: .set),
                    ]))
    }

    @Test func anExtraArgumentAfterAValueIsMacOSsError() {
        #expect(throws: DefaultsError.self) { try parse(["write", "D", "k", "v", "extra"]) }
        do {
            _ = try Invocation.parse(["write", "D", "k", "v", "extra"])
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message == "Unexpected argument extra; leaving defaults unchanged.\n")
        }
    }

    @Test func describeAndForceParse() throws {
        #expect(try parse(["describe", "prefsd"]).command == .describe(.name("prefsd"), key: nil))
        #expect(try parse(["DESCRIBE", "-g", "AppleLocale"]).command == .describe(.global, key: "AppleLocale"))
        #expect(usageReason(["describe"]) != nil)
        #expect(usageReason(["describe", "D", "k", "extra"]) != nil)
        let forced = try parse(["write", "-force", "D", "k", "-int", "1"])
        #expect(forced.ignoresSchema)
        #expect(
            forced.command == .write(.name("D"), [KeyAssignment(key: PlistKeyPath(key: "k"), value: 1, mode: .set)]))
        #expect(try parse(["write", "D", "k", "1"]).ignoresSchema == false)
        #expect(try parse(["rename", "-force", "D", "a", "b"]).ignoresSchema)
        #expect(try parse(["import", "-force", "D", "-"]).ignoresSchema)
        #expect(try parse(["read", "-force"]).command == .read(.name("-force"), key: nil, format: nil))
    }

    @Test func extensionVerbsParse() throws {
        #expect(try parse(["watch"]).command == .watch(nil, key: nil))
        #expect(try parse(["watch", "-g", "k"]).command == .watch(.global, key: "k"))
        #expect(
            try parse(["watch", "-effective", "-suite", "S", "D", "k"]).command
                == .watchEffective(.name("D"), key: "k", suites: [.name("S")]))
        #expect(try parse(["watch", "-effective", "-g"]).command == .watchEffective(.global, key: nil, suites: []))
        #expect(
            try parse(["explain", "-suite", "S1", "-suite", "-g", "D", "k"]).command
                == .explain(.name("D"), key: "k", suites: [.name("S1"), .global]))
        #expect(try parse(["completion", "fish"]).command == .completion(.fish))
        #expect(try parse(["man"]).command == .manualPage)
        #expect(try parse(["__complete", "keys", "D"]).command == .completeKeys(.name("D")))
        #expect(try parse(["printHostIdentifier"]).command == .printHostIdentifier)
        #expect(try parse(["--help", "anything"]).command == .help)
        #expect(try parse(["remove", "D"]).command == .delete(.name("D"), key: nil))
        #expect(try parse(["import", "D"]).command == .importDomain(.name("D"), source: nil))
    }

    @Test func migrateReadsFoundationThenGNUstepUnlessToldWhich() throws {
        #expect(
            try parse(["migrate"]).command
                == .migrate(sources: [.foundation, .gnustep], domains: [], overwrite: false, dryRun: false))
        #expect(
            try parse(["migrate", "-from", "dconf", "-dry-run", "org.gnome.desktop.interface"]).command
                == .migrate(
                    sources: [.dconf], domains: [.name("org.gnome.desktop.interface")], overwrite: false, dryRun: true))
        #expect(usageReason(["migrate", "-from", "kde"]) == "defaults: -from takes foundation, gnustep or dconf\n")
    }

    /// The parser resolves verbs without the table (``Verb/canonicalName(_:)``); both must know the same verbs.
    @Test(arguments: Verb.all)
    func everyVerbOfTheTableParses(verb: Verb) throws {
        for name in [verb.name] + verb.aliases {
            #expect(Verb.canonicalName(name) == verb.name)
            #expect(Verb.canonicalName(name.uppercased()) == verb.name)
        }
        // Past the verb, each fails (if at all) on its arguments, never as an unknown command.
        #expect(usageReason([verb.name.uppercased()])?.contains("unknown command") != true)
    }

    @Test func onlyTheTablesVerbsAreNames() {
        let known = Set(Verb.all.flatMap { [$0.name] + $0.aliases })
        for word in ["nope", "reads", "-format", "", "writ", "délete"] {
            #expect(!known.contains(word))
            #expect(Verb.canonicalName(word) == nil)
        }
    }

    @Test func versionIsAnOptionInTheVerbsPlace() throws {
        #expect(try parse(["--version"]) == Invocation(host: .any, command: .version))
        #expect(try parse(["-version"]).command == .version)
        #expect(try parse(["-currentHost", "--version"]) == Invocation(host: .current, command: .version))
        // Past the verb it is an argument, as -currentHost is: here a domain name, refused when run.
        #expect(try parse(["read", "--version"]).command == .read(.name("--version"), key: nil, format: nil))
    }

    /// A misspelled verb gets the nearest visible verb, alias or option, compared without regard to case.
    @Test(arguments: [
        ("raed", "read"), ("RAED", "read"), ("wirte", "write"), ("read-tpye", "read-type"), ("remvoe", "remove"),
        ("explian", "explain"), ("copmletion", "completion"), ("--hlep", "--help"), ("--versoin", "--version"),
    ])
    func anUnknownCommandSuggestsTheNearestName(typed: String, meant: String) {
        #expect(usageReason([typed]) == "defaults: unknown command '\(typed)'; did you mean '\(meant)'?\n")
    }

    @Test(arguments: ["printhostidentifer", "__compelte", "frobnicate", "xx"])
    func hiddenVerbsAndFarWordsAreNotSuggested(typed: String) {
        #expect(usageReason([typed]) == "defaults: unknown command '\(typed)'\n")
    }

    @Test func usageErrorsNameTheProblem() {
        #expect(usageReason([]) == "")
        #expect(usageReason(["nope"]) == "defaults: unknown command 'nope'\n")
        #expect(usageReason(["read", "D", "k", "more"]) == "defaults: unexpected argument 'more'\n")
        #expect(
            usageReason(["write", "D", "k", "-bool", "maybe"])
                == "defaults: -bool takes true, false, yes or no, not 'maybe'\n")
        #expect(usageReason(["watch", "D", "-keypath"]) == "defaults: watch takes a key, not a key path\n")
        #expect(usageReason(["watch", "-effective"]) == "defaults: watch -effective needs a domain\n")
        #expect(usageReason(["watch", "-effective", "D", "k", "extra"]) != nil)
        #expect(usageReason(["__complete", "other"]) == "defaults: __complete takes domains, or keys and a domain\n")
    }

    @Test func fleetStatusTakesNoOptionsAndOtherVerbsTakeAUser() throws {
        guard case .fleet(let status) = try parse(["fleet", "status"]).command else {
            Issue.record("fleet status is not a fleet command")
            return
        }
        #expect(status.action == .status && status.user == nil && status.kind == nil && status.target == nil)
        for options in [["-user", "ada"], ["-endpoints", "http://e:2379"], ["-forced"], ["-group", "lab"]] {
            #expect(
                usageReason(["fleet", "status"] + options)?.contains("fleet status takes no options") == true,
                "\(options)")
        }
        #expect(usageReason(["fleet", "status", "extra"]) != nil)
        guard case .fleet(let write) = try parse(["fleet", "write", "-forced", "-user", "ada", "d", "k", "v"]).command
        else {
            Issue.record("fleet write is not a fleet command")
            return
        }
        #expect(write.user == "ada")
        #expect(usageReason(["fleet", "read", "-forced", "-user"])?.contains("-user needs an etcd user name") == true)
        #expect(
            usageReason(["fleet", "frobnicate"])?.contains("write, read, delete, list, hosts, wait or status") == true)
    }

    @Test func fleetHostsAndWaitTakeTheirOptionsAndNoOthers() throws {
        guard
            case .fleet(let hosts) = try parse(["fleet", "hosts", "-group", "web", "-behind", "-format", "json"])
                .command
        else {
            Issue.record("fleet hosts is not a fleet command")
            return
        }
        #expect(
            hosts.action == .hosts && hosts.target == .group("web") && hosts.behindOnly && hosts.hostsFormat == .json)
        guard case .fleet(let wait) = try parse(["fleet", "wait", "-timeout", "2.5", "42"]).command else {
            Issue.record("fleet wait is not a fleet command")
            return
        }
        #expect(wait.action == .wait(revision: 42) && wait.timeoutSeconds == 2.5 && wait.target == nil)
        guard case .fleet(let write) = try parse(["fleet", "write", "-forced", "-wait", "d", "k", "v"]).command else {
            Issue.record("fleet write is not a fleet command")
            return
        }
        #expect(write.waits && write.timeoutSeconds == 60)
        #expect(usageReason(["fleet", "wait"])?.contains("fleet wait needs a revision") == true)
        #expect(usageReason(["fleet", "wait", "0"])?.contains("fleet wait needs a revision") == true)
        #expect(usageReason(["fleet", "wait", "-timeout", "-1", "3"])?.contains("-timeout needs a number") == true)
        #expect(usageReason(["fleet", "hosts", "-format", "xml"])?.contains("-format of fleet hosts") == true)
        #expect(usageReason(["fleet", "hosts", "-forced"])?.contains("fleet hosts lists hosts") == true)
        #expect(usageReason(["fleet", "list", "-behind"])?.contains("-behind and -format go with fleet hosts") == true)
        #expect(usageReason(["fleet", "read", "-forced", "-wait", "d"])?.contains("-wait goes with") == true)
        #expect(usageReason(["fleet", "list", "-timeout", "3"])?.contains("-timeout goes with") == true)
    }

    @Test(arguments: ["--help", "-h", "-help"])
    func aVerbFollowedByHelpAsksForThatVerbsHelp(option: String) throws {
        #expect(try parse(["fleet", option]).command == .verbHelp("fleet"))
        #expect(try parse(["Read", option]).command == .verbHelp("read"))
    }
}
