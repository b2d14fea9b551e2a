// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// The same `defaults` command on a broken domain file (corrupt, a directory, a symbolic link, a FIFO, too large),
/// once on the files and once through prefsd: the same output, exit status, warnings and files afterwards. A difference between the routes
/// is a failure.
@Suite("one answer on every route")
struct RouteIndependenceTests {
    static let defaults = BuiltProduct("defaults").path

    /// A plist cut off in the middle of a tag: not a property list, with a line and column to report.
    static let corruptXML = "<?xml version=\"1.0\"?>\n<plist><dict><key>a</key>\n<integer>1</inte"

    /// What stands where a domain's file should be.
    enum Breakage: String, CaseIterable, Sendable {
        case corrupt, directory, symbolicLink, fifo, tooLarge
    }

    /// The commands run on a broken domain, `D` standing for its name and `IMPORT` for a good property list to import;
    /// each case has a domain of its own, so that
    /// the daemon meets the broken file the first time it reads the domain, as after a hand edit.
    static let commands: [[String]] = [
        ["write", "D", "b", "-int", "1"],
        ["write", "D", "list", "-array-add", "x"],
        ["write", "D", "{ x = 1; }"],
        ["read", "D"],
        ["read", "D", "b"],
        ["read-type", "D", "a"],
        ["delete", "D", "b"],
        ["delete", "D"],
        ["rename", "D", "a", "z"],
        ["export", "D", "-"],
        ["import", "D", "IMPORT"],
        ["read"],
        ["find", "a"],
        ["domains"],
    ]

    /// What one command did, with the Preferences directory's path and the set-aside times made comparable.
    struct Outcome: Equatable, CustomStringConvertible {
        var status: Int32
        var output: String
        var warnings: [String]
        var files: [String]

        var description: String {
            "status \(status), output \(output.debugDescription), warnings \(warnings), files \(files)"
        }
    }

    @Test(
        "a broken file: every verb answers on prefsd as on the files",
        arguments: Breakage.allCases, Array(commands.indices))
    func brokenFile(breakage: Breakage, index: Int) throws {
        let domain = "com.example.broken\(index)"
        let arguments = Self.commands[index].map { $0 == "D" ? domain : $0 }

        let files = try DaemonHome()
        let onFiles = try Self.run(arguments, domain: domain, breakage, in: files, route: "off")

        let served = try DaemonHome()
        let daemon = try DaemonProcess(served)
        try daemon.waitUntilServing(served)
        let throughDaemon = try Self.run(arguments, domain: domain, breakage, in: served, route: "on")
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)

        #expect(throughDaemon == onFiles, "\(breakage): defaults \(arguments.joined(separator: " "))")
        // The reason reaches the user on either route (`domains` reads no domain).
        if arguments != ["domains"] {
            #expect(onFiles.warnings.contains { $0.contains("the file of domain \(domain)") }, "\(onFiles)")
        }
    }

    @Test("through prefsd a write to a corrupt domain sets the file aside and succeeds, as on the files")
    func writeSetsTheFileAside() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        try Self.writeCorrupt("com.example.bad", in: home)

        let write = try Self.defaults(["write", "com.example.bad", "b", "-int", "1"], in: home, route: "on")
        #expect(write.status == 0, "\(write.error)")
        #expect(write.error.contains("com.example.bad.plist, the file of domain com.example.bad, is corrupt"))
        let read = try Self.defaults(["read", "com.example.bad", "b"], in: home, route: "on")
        #expect(read.output == "1\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: home.preferences)
        #expect(names.contains { $0.hasPrefix("com.example.bad.plist.corrupt-") }, "\(names)")
        #expect(try home.storedValues("com.example.bad") == ["b": 1])
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("a domain file kept as a link by a dotfile manager is read and written through the link on either route")
    func stowedDomainFile() throws {
        let domain = "com.example.stowed"
        let commands: [[String]] = [
            ["read", domain], ["write", domain, "fontSize", "-int", "12"], ["read", domain, "fontSize"],
            ["delete", domain, "theme"], ["export", domain, "-"], ["delete", domain], ["read", domain],
            ["write", domain, "theme", "light"],
        ]
        var transcripts: [String: [String]] = [:]
        for route in ["off", "on"] {
            let home = try DaemonHome()
            // GNU stow's shape: the Preferences directory's entry is a relative link into the package's tree.
            let package = home.directory.file("dotfiles/prefs")
            try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
            let target = package + "/\(domain).plist"
            try Data("<plist><dict><key>theme</key><string>dark</string></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: target))
            let link = home.preferences + "/\(domain).plist"
            try FileManager.default.createSymbolicLink(
                atPath: link, withDestinationPath: "../dotfiles/prefs/\(domain).plist")
            let variables = ["HOME": home.directory.path]
            let daemon = route == "on" ? try DaemonProcess(home, environment: variables) : nil
            try daemon?.waitUntilServing(home)

            var transcript: [String] = []
            for command in commands {
                var environment = home.environment.merging(variables) { $1 }
                environment["PREFERENCES_DAEMON"] = route
                let result = try runProgram(Self.defaults, command, environment: environment)
                transcript.append(
                    "\(command.joined(separator: " ")) → \(result.status) \(result.output)\(result.error)")
            }
            transcripts[route] = transcript
            #expect(
                (try? FileManager.default.destinationOfSymbolicLink(atPath: link))
                    == "../dotfiles/prefs/\(domain).plist", "\(route): the link stays a link")
            let stored = try PlistSerialization.decode(Array(try Data(contentsOf: URL(fileURLWithPath: target))))
            #expect(stored == ["theme": "light"], "\(route)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: package) == ["\(domain).plist"])
            daemon?.signal(SIGTERM)
            #expect(daemon?.finish() ?? 0 == 0)
        }
        let onFiles = try #require(transcripts["off"])
        #expect(onFiles[2] == "read \(domain) fontSize → 0 12\n", "\(onFiles)")
        #expect(transcripts["on"] == onFiles)
    }

    @Test("a hand edit of a domain's file is what the next commands see and keep, on either route")
    func handEditSticks() throws {
        let domain = "com.example.edited"
        var transcripts: [String: [String]] = [:]
        for route in ["off", "on"] {
            let home = try DaemonHome()
            let daemon = route == "on" ? try DaemonProcess(home) : nil
            try daemon?.waitUntilServing(home)
            #expect(try Self.defaults(["write", domain, "a", "-int", "1"], in: home, route: route).status == 0)
            // An editor's save: a new file renamed over the old one, with a key the store never wrote.
            let path = home.preferences + "/\(domain).plist"
            try Data(
                "<plist><dict><key>a</key><integer>2</integer><key>b</key><string>by hand</string></dict></plist>".utf8
            )
            .write(to: URL(fileURLWithPath: path + ".save"))
            #expect(rename(path + ".save", path) == 0)
            // prefsd learns of the edit from inotify; the files route reads the file itself.
            #expect(eventually { (try? Self.defaults(["read", domain, "a"], in: home, route: route).output) == "2\n" })
            transcripts[route] = try Self.transcript(
                [
                    ["read", domain], ["write", domain, "c", "-int", "3"], ["read", domain, "b"],
                    ["export", domain, "-"],
                ],
                in: home, route: route)
            #expect(try home.storedValues(domain) == ["a": 2, "b": "by hand", "c": 3], "\(route)")
            daemon?.signal(SIGTERM)
            #expect(daemon?.finish() ?? 0 == 0)
        }
        #expect(transcripts["off"]?.first?.contains("b = \"by hand\"") == true, "\(transcripts)")
        #expect(transcripts["on"] == transcripts["off"])
    }

    @Test("a write that would take a domain past its size limit is refused alike on either route, nothing changed")
    func tooLargeWriteIsRefused() throws {
        let domain = "com.example.large"
        // A domain just under the 4 MiB limit, and a value of 100,000 bytes that takes it over.
        let near = String(repeating: "n", count: 4_150_000)
        let big = String(repeating: "b", count: 100_000)
        var transcripts: [String: [String]] = [:]
        for route in ["off", "on"] {
            let home = try DaemonHome()
            let daemon = route == "on" ? try DaemonProcess(home) : nil
            try daemon?.waitUntilServing(home)
            let path = home.preferences + "/\(domain).plist"
            let original = Data("<plist><dict><key>near</key><string>\(near)</string></dict></plist>".utf8)
            try original.write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -10)], ofItemAtPath: path)
            transcripts[route] = try Self.transcript(
                [["write", domain, "big", big], ["read", domain, "big"], ["write", domain, "small", "-int", "1"]],
                in: home, route: route
            ).map { $0.replacingOccurrences(of: big, with: "<100,000 bytes>") }
            let stored = try home.storedValues(domain)
            #expect(stored?["big"] == nil && stored?["small"] == 1 && stored?["near"]?.stringValue == near, "\(route)")
            daemon?.signal(SIGTERM)
            #expect(daemon?.finish() ?? 0 == 0)
        }
        let onFiles = try #require(transcripts["off"])
        #expect(onFiles[0].contains("beyond the domain size limit"), "\(onFiles)")
        #expect(onFiles[0].hasPrefix("write \(domain) big <100,000 bytes> → 1 "), "\(onFiles)")
        #expect(transcripts["on"] == onFiles)
    }

    /// Each command's line, status, output and standard error, with the home's paths made comparable.
    static func transcript(_ commands: [[String]], in home: DaemonHome, route: String) throws -> [String] {
        try commands.map { command in
            let result = try defaults(command, in: home, route: route)
            return "\(command.joined(separator: " ")) → \(result.status) \(result.output)\(result.error)"
                .replacingOccurrences(of: home.directory.path, with: "<home>")
        }
    }

    @Test("a write of a key a forced layer holds is stored and says, on either route, that the forced value wins")
    func forcedKeyWriteWarns() throws {
        var warnings: [String: String] = [:]
        for route in ["off", "on"] {
            let home = try DaemonHome()
            let forced = home.directory.file("system/forced")
            try FileManager.default.createDirectory(atPath: forced, withIntermediateDirectories: true)
            try Data("<plist><dict><key>Theme</key><string>corporate</string></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: forced + "/com.example.app.plist"))
            let daemon = route == "on" ? try DaemonProcess(home) : nil
            try daemon?.waitUntilServing(home)

            let write = try Self.defaults(["write", "com.example.app", "Theme", "dark"], in: home, route: route)
            #expect(write.status == 0, "\(route): \(write.error)")
            warnings[route] = write.error.replacingOccurrences(of: home.directory.path, with: "<home>")
            let other = try Self.defaults(["write", "com.example.app", "Size", "-int", "2"], in: home, route: route)
            #expect(other.error == "", "\(route): a key no forced layer holds")
            let read = try Self.defaults(["read", "com.example.app", "Theme"], in: home, route: route)
            #expect(read.output == "dark\n", "\(route): the user's value is stored")

            daemon?.signal(SIGTERM)
            #expect(daemon?.finish() ?? 0 == 0)
        }
        #expect(
            warnings["off"]
                == "defaults: warning: Theme is stored in com.example.app, but corporate from forced com.example.app "
                + "(<home>/system/forced/com.example.app.plist) is in effect: a forced value wins over the user's "
                + "(defaults explain com.example.app Theme)\n")
        #expect(warnings["on"] == warnings["off"])
    }

    @Test(
        "a setting of prefsd out of its range is refused when written, on either route, and nothing changes",
        arguments: [
            ["write", "prefsd", "MaxConnections", "-int", "0"],
            ["write", "prefsd", "LogLevel", "loud"],
            ["write", "prefsd", "{ MaxDepth = 1000; }"],
            ["write", "prefsd", "IdleTimeoutSeconds", "-float", "0.01", "--", "MaxSuites", "-int", "8"],
        ])
    func badDaemonSettingIsRefused(arguments: [String]) throws {
        var outcomes: [String: (status: Int32, output: String, error: String)] = [:]
        for route in ["off", "on"] {
            let home = try DaemonHome()
            let daemon = route == "on" ? try DaemonProcess(home) : nil
            try daemon?.waitUntilServing(home)
            outcomes[route] = try Self.defaults(arguments, in: home, route: route)
            #expect(try home.storedValues("prefsd") == nil, "\(route): nothing was written")
            daemon?.signal(SIGTERM)
            #expect(daemon?.finish() ?? 0 == 0)
        }
        // The shipped schema (Domains/Schemas/prefsd.schema.plist) refuses it first, naming itself; with -force, the
        // rules compiled into the store still do.
        let schema = DaemonProcess.repository + "/Domains/Schemas/prefsd.schema.plist"
        #expect(outcomes["off"]?.status == 1)
        #expect(outcomes["off"]?.error.hasPrefix("defaults: ") == true, "\(outcomes)")
        #expect(
            outcomes["off"]?.error.hasSuffix(
                " (schema \(schema)); nothing was written (-force writes it anyway)\n") == true, "\(outcomes)")
        #expect(outcomes["on"]?.status == outcomes["off"]?.status)
        #expect(outcomes["on"]?.output == outcomes["off"]?.output)
        #expect(outcomes["on"]?.error == outcomes["off"]?.error)
    }

    @Test(
        "with -force, a setting of prefsd out of its range is still refused by the store, on either route",
        arguments: [
            ["write", "-force", "prefsd", "MaxConnections", "-int", "0"],
            ["write", "-force", "prefsd", "{ MaxDepth = 1000; }"],
        ])
    func forcedBadDaemonSettingIsRefused(arguments: [String]) throws {
        var outcomes: [String: (status: Int32, output: String, error: String)] = [:]
        for route in ["off", "on"] {
            let home = try DaemonHome()
            let daemon = route == "on" ? try DaemonProcess(home) : nil
            try daemon?.waitUntilServing(home)
            outcomes[route] = try Self.defaults(arguments, in: home, route: route)
            #expect(try home.storedValues("prefsd") == nil, "\(route): nothing was written")
            daemon?.signal(SIGTERM)
            #expect(daemon?.finish() ?? 0 == 0)
        }
        #expect(outcomes["off"]?.status == 1)
        #expect(outcomes["off"]?.error.hasPrefix("defaults: setting ") == true, "\(outcomes)")
        #expect(outcomes["off"]?.error.hasSuffix("; nothing was changed\n") == true, "\(outcomes)")
        #expect(outcomes["on"]?.status == outcomes["off"]?.status)
        #expect(outcomes["on"]?.error == outcomes["off"]?.error)
    }

    @Test("a command whose directories prefsd does not serve says so once, naming both, instead of silently")
    func directoriesTheDaemonDoesNotServe() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let other = try DaemonHome()
        let otherDaemon = try DaemonProcess(other)
        try otherDaemon.waitUntilServing(other)

        func warning(_ changes: [String: String]) throws -> String {
            var environment = home.environment.merging(changes) { $1 }
            environment["PREFERENCES_DAEMON"] = "on"
            let result = try runProgram(Self.defaults, ["explain", "prefsd", "FlushDelay"], environment: environment)
            #expect(result.status == 0, "\(result.error)")
            return result.error
        }
        #expect(try warning([:]) == "", "the daemon serves the command's directories")
        let system = home.directory.file("elsewhere")
        #expect(
            try warning(["PREFERENCES_SYSTEM_DIR": system])
                == "defaults: warning: prefsd on \(home.socketPath) serves \(home.preferences), but its system layer "
                + "is \(home.directory.file("system")), not \(system) (PREFERENCES_SYSTEM_DIR); its answers come "
                + "from its own directories; start it with the same variables, or run with PREFERENCES_DAEMON=off\n")
        // Another daemon serves the command's Preferences directory, on another socket.
        #expect(
            try warning(["PREFERENCES_HOME": other.preferences])
                == "defaults: warning: prefsd on \(home.socketPath) (pid \(daemon.pid)) does not serve "
                + "\(other.preferences) (PREFERENCES_HOME): prefsd pid \(otherDaemon.pid) on \(other.socketPath) does; "
                + "its answers come from its own directories; start it with the same variables, or run with "
                + "PREFERENCES_DAEMON=off\n")
        // No daemon serves it at all.
        otherDaemon.signal(SIGTERM)
        #expect(otherDaemon.finish() == 0)
        #expect(
            try warning(["PREFERENCES_HOME": other.preferences]).contains(
                "does not serve \(other.preferences) (PREFERENCES_HOME): no prefsd has claimed it"))
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    /// Writes the corrupt file, dated ten seconds ago so that no writer waits for a hand edit to settle.
    static func writeCorrupt(_ domain: String, in home: DaemonHome) throws {
        try breakFile(of: domain, .corrupt, in: home)
    }

    /// Puts what `breakage` names where the domain's file belongs.
    static func breakFile(of domain: String, _ breakage: Breakage, in home: DaemonHome) throws {
        let path = home.preferences + "/\(domain).plist"
        switch breakage {
        case .corrupt:
            try Data(corruptXML.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -10)], ofItemAtPath: path)
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .symbolicLink:
            // Outside the home directory (the test's own, not the temporary one): a link the store refuses.
            let target = home.directory.file("elsewhere.plist")
            try Data("<plist><dict><key>a</key><integer>1</integer></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        case .fifo:
            guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): errno \(errno)") }
        case .tooLarge:
            // Over the store's 4 MiB domain limit: a valid property list it refuses to read whole.
            let filler = String(repeating: "x", count: 5 << 20)
            try Data("<plist><dict><key>a</key><string>\(filler)</string></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -10)], ofItemAtPath: path)
        }
    }

    static func defaults(
        _ arguments: [String], in home: DaemonHome, route: String
    ) throws -> (status: Int32, output: String, error: String) {
        var environment = home.environment
        environment["PREFERENCES_DAEMON"] = route
        return try runProgram(defaults, arguments, environment: environment)
    }

    /// Runs one command on a freshly broken domain and describes what it did.
    static func run(
        _ arguments: [String], domain: String, _ breakage: Breakage, in home: DaemonHome, route: String
    ) throws -> Outcome {
        try breakFile(of: domain, breakage, in: home)
        let imported = home.directory.file("import.plist")
        try Data("<plist><dict><key>b</key><integer>2</integer></dict></plist>".utf8)
            .write(to: URL(fileURLWithPath: imported))
        let result = try defaults(arguments.map { $0 == "IMPORT" ? imported : $0 }, in: home, route: route)
        func comparable(_ text: String) -> String {
            text.replacingOccurrences(of: home.preferences, with: "<preferences>")
                .replacingOccurrences(of: home.directory.path, with: "<home>")
                .replacingOccurrences(of: #"corrupt-\d{8}T\d{6}Z"#, with: "corrupt-<time>", options: .regularExpression)
        }
        // The files route also says where it set the file aside: prefsd sets it aside at its own write and logs it.
        let warnings = comparable(result.error).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init
        )
        .filter { !$0.contains("; it was renamed to ") }
        let files = try FileManager.default.contentsOfDirectory(atPath: home.preferences)
            .filter { !$0.hasPrefix(".") && $0 != "prefsd.plist" }.map(comparable).sorted()
        return Outcome(status: result.status, output: comparable(result.output), warnings: warnings, files: files)
    }
}
