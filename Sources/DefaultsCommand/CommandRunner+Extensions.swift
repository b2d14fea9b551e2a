// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsPlist
import PrefsStore

extension CommandRunner {
    /// `explain [-suite <domain>]... <domain> <key>`: the effective value and where it comes from.
    /// - Returns: 0 when a layer holds the key, 1 when none does.
    func explain(
        _ key: String, domain: DomainSelector, suites: [DomainSelector], host: HostSelector
    ) throws(DefaultsError) -> Int32 {
        let searchList = try searchList(domain, suites: suites, host: host, "explain searches")
        let paths = environment.userPaths(machineID: try environment.machineID(for: host))
        return try withStorage(paths) { storage throws(DefaultsError) in
            let resolution = try checked { try storage.resolve(key, in: searchList) }
            // The explanation reports broken layers itself; the store's warnings about them (each naming its domain)
            // would say it twice. What concerns no domain (prefsd serving other directories) is said.
            printWarnings(storage.takeDiagnostics().filter { $0.domain == nil }, except: nil)
            let explanation = KeyExplanation(resolution)
            try console.writeOutput(explanation.text)
            return explanation.winner == nil ? 1 : 0
        }
    }

    /// `watch [<domain> [<key>]]`: one line per change until SIGINT or SIGTERM, which end it with status 0.
    func watch(_ domain: DomainSelector?, key: String?, host: HostSelector) throws(DefaultsError) {
        // Before any thread is started, so that every thread inherits the blocked signals and only this one takes them.
        let stopSignals = SystemCalls.StopSignals.block()
        defer { stopSignals.unblock() }
        let scope: DomainScope = host == .any ? .user : .byHost
        var target: DomainTarget?
        if let domain { target = try self.target(domain, host) }
        let paths: StorePaths
        if let target {
            paths = target.paths
        } else {
            paths = environment.userPaths(machineID: try environment.machineID(for: host))
        }
        let storage = try openStorage(paths, true, nil)
        let watcher = ChangeWatcher(
            storage: storage, console: console,
            // Lines name a domain as `domains` lists it (NSGlobalDomain), or a file as given.
            subject: target.map { .domain($0.id, label: $0.isFile ? $0.displayName : $0.id.name.rawValue, key: key) }
                ?? .everyDomain(scope))
        try watcher.start()
        watcher.run(until: stopSignals)
        printWarnings(storage.takeDiagnostics(), except: nil)
    }

    /// `watch -effective [-suite <domain>]... <domain> [<key>]`: one line per change of what an application with that
    /// domain (and those suites) reads, from every layer, until SIGINT or SIGTERM, which end it with status 0.
    func watchEffective(
        _ domain: DomainSelector, key: String?, suites: [DomainSelector], host: HostSelector
    ) throws(DefaultsError) {
        let stopSignals = SystemCalls.StopSignals.block()
        defer { stopSignals.unblock() }
        let searchList = try searchList(domain, suites: suites, host: host, "watch -effective watches")
        let storage = try openStorage(environment.userPaths(machineID: try environment.machineID(for: host)), true, nil)
        let watcher = EffectiveChangeWatcher(storage: storage, console: console, searchList: searchList, key: key)
        try watcher.start()
        watcher.run(until: stopSignals)
        printWarnings(storage.takeDiagnostics(), except: nil)
    }

    /// The search list of an application with `domain` and `suites`, which must be domain names, not files;
    /// `refusal` begins the error's sentence (`explain searches`).
    private func searchList(
        _ domain: DomainSelector, suites: [DomainSelector], host: HostSelector, _ refusal: String
    ) throws(DefaultsError) -> SearchList {
        func name(_ selector: DomainSelector) throws(DefaultsError) -> DomainName {
            let target = try target(selector, host)
            guard !target.isFile else {
                throw DefaultsError(
                    .invalidArgument,
                    "defaults: \(refusal) the layers of a domain name, not a file (\(target.displayName))")
            }
            return target.id.name
        }
        return SearchList(domain: try name(domain), suites: try suites.map(name))
    }
}
