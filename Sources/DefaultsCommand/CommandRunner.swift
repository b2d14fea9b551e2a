// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsCommandLine
import PrefsPlist
import PrefsStore
import Synchronization

/// Runs one `defaults` command line: parses it, opens the storage it needs, and prints what macOS prints.
struct CommandRunner: Sendable {
    /// Opens the storage for a set of directories; `watchesFiles` is true for `watch`; `firstRead` is what the command
    /// reads first, if it knows (prefsd's connection reads it with its `hello`, in one round trip).
    typealias StorageOpener =
        @Sendable (_ paths: StorePaths, _ watchesFiles: Bool, _ firstRead: FirstRead?) throws(DefaultsError) ->
        any DomainAccess

    /// Standard output, standard error and standard input.
    let console: any Console
    /// The variables, machine id, working directory and host name.
    let environment: DefaultsEnvironment
    /// How storage is opened: on the files directly by default.
    let openStorage: StorageOpener
    /// What runs the fleet actions that talk to etcd: `defaults-fleet`'s; `nil` in `defaults`, which runs that
    /// executable for them (``FleetAdministration``).
    let fleetAdministration: (any FleetAdministration)?

    /// Creates a runner.
    /// - Parameters:
    ///   - console: Where output goes.
    ///   - environment: The process's environment, or a test's.
    ///   - openStorage: How storage is opened; by default on the files (``filesOpener``).
    ///   - fleetAdministration: What runs the fleet actions that talk to etcd, if this process has it.
    init(
        console: any Console, environment: DefaultsEnvironment, openStorage: @escaping StorageOpener = filesOpener,
        fleetAdministration: (any FleetAdministration)? = nil
    ) {
        self.console = console
        self.environment = environment
        self.openStorage = openStorage
        self.fleetAdministration = fleetAdministration
    }

    /// Opens the files directly, whatever runs: what tests use, and what a domain given as a file path gets.
    static let filesOpener: StorageOpener = { paths, watchesFiles, _ in
        StoreAccess(paths: paths, configuration: fileConfiguration(watchesFiles: watchesFiles))
    }

    /// The opener of the `defaults` executable: the user's directories by the route `PREFERENCES_DAEMON` chooses
    /// (prefsd when its socket answers, by default; docs/DEFAULTS.md), any other directory on the files.
    static func opener(environment: DefaultsEnvironment) -> StorageOpener {
        let userDirectory = environment.userPaths(machineID: nil).preferencesDirectory
        return { paths, watchesFiles, firstRead throws(DefaultsError) in
            guard paths.preferencesDirectory == userDirectory else {
                return try filesOpener(paths, watchesFiles, firstRead)
            }
            let storage = try checked {
                try AccessRoute.open(
                    paths: paths, clientName: "defaults", files: fileConfiguration(watchesFiles: watchesFiles),
                    firstRead: firstRead)
            }
            (storage as? DaemonAccess)?.noteDirectoryMismatch(with: paths)
            return storage
        }
    }

    /// How a command's store behaves: it watches files only for `watch`, and writes nothing at exit, because a
    /// command synchronizes before it exits; its warnings are printed by the command, not by the store.
    private static func fileConfiguration(watchesFiles: Bool) -> StoreConfiguration {
        StoreConfiguration(watchesFiles: watchesFiles, flushesAtExit: false, diagnostics: { _ in })
    }

    /// Runs a command line and returns the exit status: 0, 1 for a failure, 255 for a usage error.
    /// - Parameter arguments: The arguments, without the program name.
    func run(_ arguments: [String]) async -> Int32 {
        do {
            return await run(try Invocation.parse(arguments))
        } catch {
            report(error)
            return error.exitStatus
        }
    }

    /// Runs a parsed command line and returns the exit status.
    func run(_ invocation: Invocation) async -> Int32 {
        if case .fleet(let command) = invocation.command {
            do {
                return try await fleet(command)
            } catch {
                report(error)
                return error.exitStatus
            }
        }
        return runSynchronously(invocation)
    }

    /// Runs a command line on this thread, so that a one-shot `read` or `write` (and `watch`) never starts Swift
    /// concurrency's threads; `defaults-fleet`'s etcd actions run in a task while this thread waits.
    func runBlocking(_ arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            report(error)
            return error.exitStatus
        }
        switch invocation.command {
        case .fleet(let command) where command.action != .status && fleetAdministration == nil:
            return runFleetExecutable(arguments)
        case .fleet: return runConcurrently(invocation)
        case .browse: return runBrowserExecutable(arguments)
        default: return runSynchronously(invocation)
        }
    }

    /// Runs `fleet`, which uses Swift concurrency (the etcd client), and waits for it.
    ///
    /// Out of line so that the other commands do not pay for what starting a task needs (the compiler requests a
    /// task's metadata at the entry of the function that starts it).
    @inline(never)
    private func runConcurrently(_ invocation: Invocation) -> Int32 {
        let status = Mutex<Int32>(0)
        let finished = SystemCalls.Semaphore()
        Task.detached { [self] in
            let result = await run(invocation)
            status.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        return status.withLock { $0 }
    }

    /// Runs a command other than `fleet` on this thread and reports its error.
    private func runSynchronously(_ invocation: Invocation) -> Int32 {
        do {
            return try executeSynchronously(invocation)
        } catch {
            report(error)
            return error.exitStatus
        }
    }

    /// Writes an error to standard error; a usage error then writes the usage text to standard output, as macOS does.
    ///
    /// The reason comes first so that on a terminal, where both streams show, it heads the usage text instead of
    /// following fifty lines of it; scripts written for macOS still find the usage text on standard output and status
    /// 255.
    func report(_ error: DefaultsError) {
        console.writeError(error.message)
        if error.code == .usage { try? console.writeOutput(HelpText.text) }
    }

    /// Runs a parsed command other than `fleet` on this thread.
    /// - Returns: The exit status of a command that completed (`explain` of a key no layer holds returns 1).
    func executeSynchronously(_ invocation: Invocation) throws(DefaultsError) -> Int32 {
        let host = invocation.host
        switch invocation.command {
        case .help:
            try console.writeOutput(HelpText.text)
        case .verbHelp(let verb):
            try console.writeOutput(HelpText.text(of: verb))
        case .version:
            try console.writeOutput(PreferencesVersion.versionLine(program: "defaults"))
        case .printHostIdentifier:
            guard let machineID = environment.machineID else {
                throw DefaultsError(.storage, "defaults: this machine has no machine id (/etc/machine-id)")
            }
            try console.writeOutput(machineID + "\n")
        case .domains:
            try listDomains(host: host)
        case .readAll(let format):
            try readAll(host: host, format: format)
        case .read(let domain, let key, let format):
            try read(try target(domain, host), key: key, format: format)
        case .readType(let domain, let key):
            try readType(try target(domain, host), key: key)
        case .replaceDomain(let domain, let representation):
            try replaceDomain(
                try target(domain, host), representation: representation, ignoresSchema: invocation.ignoresSchema)
        case .write(let domain, let assignments):
            try write(assignments, to: try target(domain, host), ignoresSchema: invocation.ignoresSchema)
        case .rename(let domain, let old, let new):
            try rename(old, to: new, in: try target(domain, host), ignoresSchema: invocation.ignoresSchema)
        case .delete(let domain, let key):
            try delete(key, from: try target(domain, host))
        case .importDomain(let domain, let source):
            let target = try target(domain, host)
            guard let source else { throw DefaultsError(.invalidArgument, "\nNeed a path to read from\n") }
            try importDomain(target, from: source, ignoresSchema: invocation.ignoresSchema)
        case .exportDomain(let domain, let destination, let format):
            let target = try target(domain, host)
            guard let destination else { throw DefaultsError(.invalidArgument, "\nNeed a path to write to\n") }
            try exportDomain(target, to: destination, format: format)
        case .find(let word):
            try find(word, host: host)
        case .watch(let domain, let key):
            try watch(domain, key: key, host: host)
        case .watchEffective(let domain, let key, let suites):
            try watchEffective(domain, key: key, suites: suites, host: host)
        case .fleet:
            throw DefaultsError(.unsupported, "defaults: fleet needs the asynchronous runner")
        case .browse:
            throw DefaultsError(.unsupported, "defaults: browse runs the defaults-browse executable")
        case .explain(let domain, let key, let suites):
            return try explain(key, domain: domain, suites: suites, host: host)
        case .describe(let domain, let key):
            return try describe(try target(domain, host), key: key)
        case .migrate(let sources, let domains, let overwrite, let dryRun):
            return try migrate(from: sources, domains: domains, overwrite: overwrite, dryRun: dryRun, host: host)
        case .completion(let shell):
            try console.writeOutput(CompletionScript.text(for: shell))
        case .manualPage:
            try console.writeOutput(ManualPage.text)
        case .completeDomains:
            // Without the global domain: the scripts offer its names (-g, -globalDomain, NSGlobalDomain) themselves.
            try withUserStorage(host: host) { storage, scope throws(DefaultsError) in
                let names = try checked { try storage.domainNames(in: scope) }.filter { !$0.isGlobal }
                try console.writeOutput(names.map { $0.rawValue + "\n" }.joined())
            }
        case .completeKeys(let domain):
            let target = try target(domain, host)
            try withStorage(target.paths, firstRead: FirstRead(target.id)) { storage throws(DefaultsError) in
                let keys = (try checked { try storage.values(of: target.id) } ?? [:]).keys.sorted()
                try console.writeOutput(keys.map { $0 + "\n" }.joined())
            }
        }
        return 0
    }

    // MARK: Helpers shared by the verbs

    /// Resolves a domain argument.
    func target(_ selector: DomainSelector, _ host: HostSelector) throws(DefaultsError) -> DomainTarget {
        try DomainTarget.resolve(selector, host: host, in: environment)
    }

    /// Opens storage, runs `body`, and prints the warnings the storage collected (leaving out those about the file
    /// an error already names).
    /// - Parameter firstRead: What `body` reads first, if it knows.
    func withStorage<Result>(
        _ paths: StorePaths, watchesFiles: Bool = false, firstRead: FirstRead? = nil,
        _ body: (any DomainAccess) throws(DefaultsError) -> Result
    ) throws(DefaultsError) -> Result {
        let storage = try openStorage(paths, watchesFiles, firstRead)
        do {
            let result = try body(storage)
            printWarnings(storage.takeDiagnostics(), except: nil)
            return result
        } catch {
            printWarnings(storage.takeDiagnostics(), except: error.path)
            throw error
        }
    }

    /// Opens the user's storage for a host option (for the verbs without a domain); the scope is `.byHost` with a
    /// host option, else `.user`.
    func withUserStorage<Result>(
        host: HostSelector, _ body: (any DomainAccess, DomainScope) throws(DefaultsError) -> Result
    ) throws(DefaultsError) -> Result {
        let paths = environment.userPaths(machineID: try environment.machineID(for: host))
        return try withStorage(paths) { storage throws(DefaultsError) in
            try body(storage, host == .any ? .user : .byHost)
        }
    }

    /// Prints warnings to standard error.
    func printWarnings(_ diagnostics: [StoreDiagnostic], except path: String?) {
        for warning in diagnostics.map(DefaultsError.init) where path == nil || warning.path != path {
            console.writeError(warning.message)
        }
    }

    /// Runs a call of the access layer, reporting its failure as the command reports it.
    static func checked<Result>(_ call: () throws -> Result) throws(DefaultsError) -> Result {
        do {
            return try call()
        } catch let error as PrefsAccessError {
            throw DefaultsError(error)
        } catch let error as DefaultsError {
            throw error
        } catch {
            throw DefaultsError(.storage, "defaults: \(error)")
        }
    }

    /// ``checked(_:)``, for the verbs.
    func checked<Result>(_ call: () throws -> Result) throws(DefaultsError) -> Result {
        try Self.checked(call)
    }

    /// Makes the command's changes durable before it exits.
    /// - Parameter failure: macOS's first line when the write fails, such as `Could not write domain D; exiting`.
    /// - Throws: ``DefaultsError`` with that line and the reason on the next.
    func synchronize(_ storage: any DomainAccess, failure: String) throws(DefaultsError) {
        do throws(DefaultsError) {
            try checked { try storage.synchronize() }
        } catch {
            throw DefaultsError(error.code, failure + "\n" + error.message, path: error.path, cause: error.cause)
        }
    }

    /// A value printed as `read` prints it, or in a `-format`.
    /// - Parameter what: The value's name in an error message (`domain com.example.App`).
    func output(_ value: PlistValue, format: OutputFormat?, what: String) throws(DefaultsError) {
        guard let format else {
            try console.writeOutput(value.defaultsDescription + "\n")
            return
        }
        do {
            try console.writeOutput(try format.encode(value))
        } catch let error as DefaultsError {
            throw error
        } catch {
            throw DefaultsError(
                .invalidValue, "defaults: cannot print \(what) as \(format.rawValue): \(error)",
                cause: error as? PlistError)
        }
    }
}
