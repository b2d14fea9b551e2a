// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsClient
import PrefsPOSIX
import PrefsPlist
import PrefsWire

extension CommandRunner {
    /// Runs `defaults fleet …`: `status` asks prefsd; the other actions go to the runner's fleet administration.
    func fleet(_ command: FleetCommand) async throws(DefaultsError) -> Int32 {
        if command.action == .status { return try fleetStatus() }
        guard let fleetAdministration else {
            // runBlocking(_:) runs defaults-fleet before it gets here; a runner made in-process has no fallback.
            throw DefaultsError(.unsupported, "defaults: this fleet action needs the defaults-fleet executable")
        }
        let console = console
        let context = FleetContext(
            variables: environment.variables,
            writeOutput: { text throws(DefaultsError) in try console.writeOutput(text) },
            writeError: { text in console.writeError(text) })
        try await fleetAdministration.run(command, context: context)
        return 0
    }

    /// Runs the fleet actions that talk to etcd in the `defaults-fleet` executable, which replaces this process with
    /// the same arguments and environment (so its output and exit status are the command's). Looked for beside this
    /// executable (a build directory, or `make install`'s `bin`), then in `../libexec/preferences` from there (the
    /// Debian package, and `make install`).
    /// - Returns: 1 when it is not installed or cannot be run; otherwise it does not return.
    func runFleetExecutable(_ arguments: [String]) -> Int32 {
        runCompanion("defaults-fleet", for: "fleet", arguments)
    }

    /// Runs `browse` in the `defaults-browse` executable (the terminal browser, with ncurses), as
    /// ``runFleetExecutable(_:)`` runs `fleet`.
    /// - Returns: 1 when it is not installed or cannot be run; otherwise it does not return.
    func runBrowserExecutable(_ arguments: [String]) -> Int32 {
        runCompanion("defaults-browse", for: "browse", arguments)
    }

    /// Replaces this process with a companion executable, found beside this one or in `../libexec/preferences`.
    private func runCompanion(_ name: String, for verb: String, _ arguments: [String]) -> Int32 {
        guard let executable = SystemCalls.executablePath() else {
            console.writeError("defaults: cannot find this executable's path (/proc/self/exe) to run \(name)\n")
            return 1
        }
        let directory = executable.lastIndex(of: "/").map { String(executable[..<$0]) } ?? "."
        let candidates = [directory + "/" + name, directory + "/../libexec/preferences/" + name]
        guard let helper = candidates.first(where: SystemCalls.isExecutable) else {
            console.writeError(
                "defaults: \(verb) needs \(name), which is not installed (looked for "
                    + candidates.joined(separator: " and ") + ")\n")
            return 1
        }
        // Its own path as argv[0], as git runs its subcommands: the package's defaults-fleet is prefsd under that name,
        // and the name is what makes it the fleet administration; defaults-browse takes its arguments with the verb.
        let failure = SystemCalls.execute(helper, arguments: [helper] + arguments)
        console.writeError("defaults: cannot run \(helper): \(failure.message)\n")
        return 1
    }

    /// Runs `defaults fleet status`: asks this host's prefsd for its fleet state and prints it as `name: value` lines.
    /// Only prefsd talks to etcd, so without it there is nothing to report.
    private func fleetStatus() throws(DefaultsError) -> Int32 {
        let socketPath = AccessRoute.defaultSocketPath
        let result: WireResult
        do {
            result = try DaemonAccess(socketPath: socketPath, clientName: "defaults").send(.fleetStatus)
        } catch  where (error.cause as? PrefsClientError)?.code == .daemonUnavailable {
            throw DefaultsError(
                .storage,
                "defaults: fleet status needs prefsd, which is not running (nothing answers on \(socketPath)): "
                    + error.message)
        } catch {
            throw DefaultsError(.storage, "defaults: fleet status: \(error.message)", cause: error)
        }
        guard case .fleetStatus(let status) = result else {
            throw DefaultsError(.storage, "defaults: prefsd answered fleet status with a reply to \(result.operation)")
        }
        try console.writeOutput(Self.fleetStatusLines(status).map { $0 + "\n" }.joined())
        return 0
    }

    /// The lines `defaults fleet status` prints.
    static func fleetStatusLines(_ status: WireFleetStatus?) -> [String] {
        guard let status else { return ["state: not in a fleet (prefsd has no FleetEndpoints setting)"] }
        var lines = ["state: \(status.state.rawValue)"]
        if let endpoint = status.endpoint { lines.append("endpoint: \(endpoint)") }
        if let name = status.hostName { lines.append("host: \(name)") }
        if let machineID = status.machineID { lines.append("machine id: \(machineID)") }
        if !status.groups.isEmpty { lines.append("groups: \(status.groups.joined(separator: ", "))") }
        lines.append("revision: \(status.appliedRevision)")
        if let policy = status.policyRevision {
            let behind = max(0, policy - status.appliedRevision)
            lines.append("policy revision: \(policy)" + (behind > 0 ? " (\(behind) behind)" : ""))
        }
        if let latest = status.latestRevision, let lag = status.lag {
            lines.append("latest revision: \(latest)")
            lines.append("lag: \(lag)")
        }
        if let key = status.hostKey {
            lines.append("registered: \(key)" + (status.hostLeaseSeconds.map { " (lease \($0) s)" } ?? ""))
        } else if status.machineID != nil {
            lines.append("registered: no" + (status.registrationError.map { " (\($0))" } ?? ""))
        }
        if let key = status.hostKey, let problem = status.registrationError {
            lines.append("registration error: \(problem) (the entry at \(key) may expire)")
        }
        if let error = status.lastError {
            lines.append("last error: \(error)")
            if let date = status.lastErrorDate {
                lines.append("last error date: \(PlistValue.date(date).defaultsDescription)")
            }
        }
        lines.append("refused values: \(status.refusedValues)")
        if let user = status.roamingUser {
            lines.append("roaming: \(status.roamingDomains.joined(separator: ", ")) as \(user)")
            lines.append("roaming changes waiting: \(status.roamingPending)")
        }
        lines.append("cache: \(status.cacheDirectory)")
        return lines
    }
}
