// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsPlist
import PrefsStore

extension CommandRunner {
    /// `migrate`: adopts the settings Foundation or GNUstep apps wrote, or the user's dconf database holds, one atomic
    /// change per domain, and prints what each domain took, replaced and kept.
    /// - Returns: 0, or 1 when a file or a dconf value could not be read or a domain could not be written (the others
    ///   are still done).
    func migrate(
        from kinds: [MigrationSource.Kind], domains selectors: [DomainSelector], overwrite: Bool, dryRun: Bool,
        host: HostSelector
    ) throws(DefaultsError) -> Int32 {
        var named: [DomainName] = []
        for selector in selectors {
            switch selector {
            case .global: named.append(.global)
            case .name(let text): named.append(try DomainTarget.domainName(text))
            case .path(let text), .application(let text):
                throw .usage("migrate takes domain names, not \(text)")
            }
        }
        let sources = kinds.compactMap { MigrationSource.located($0, environment: environment.variables) }
        guard !sources.isEmpty else {
            throw DefaultsError(.invalidArgument, "defaults: no home directory: set HOME to find other apps' settings")
        }
        let paths = environment.userPaths(machineID: try environment.machineID(for: host))
        let scope: DomainScope = host == .any ? .user : .byHost
        return try withStorage(paths) { storage throws(DefaultsError) -> Int32 in
            var failed = false
            var found = false
            var adopted: [(domain: DomainName, kind: MigrationSource.Kind)] = []
            // One domain adopted (or compared, in a dry run), and its line printed.
            func adopt(_ values: PlistDictionary, _ name: DomainName, _ source: MigrationSource) throws(DefaultsError) {
                let plan: MigrationPlan
                do throws(PrefsAccessError) {
                    plan = try storage.migrate(
                        values, into: DomainID(name, scope: scope), overwrite: overwrite, dryRun: dryRun)
                } catch {
                    console.writeError("defaults: \(name.rawValue) from \(source.kind.rawValue): \(error.message)\n")
                    failed = true
                    return
                }
                try console.writeOutput(Self.describe(plan, of: name, from: source, dryRun: dryRun) + "\n")
                if !dryRun { adopted.append((name, source.kind)) }
            }
            for source in sources {
                if source.kind == .dconf {
                    let settings: DconfSettings
                    do throws(PrefsAccessError) {
                        settings = try DconfDatabase(source, searchPath: environment.variables["PATH"]).read()
                    } catch {
                        console.writeError("defaults: \(error.message)\n")
                        failed = true
                        continue
                    }
                    for warning in settings.warnings { console.writeError("defaults: dconf dump: \(warning)\n") }
                    if settings.omitsSettings {
                        console.writeError(
                            "defaults: dconf dump / left out keys or directories whose names a key file cannot hold "
                                + "(with '=', '[', ']' or a control character, or a space at either end): they are not "
                                + "adopted\n")
                        failed = true
                    }
                    for problem in settings.malformedLines {
                        console.writeError("defaults: \(problem.message)\n")
                        failed = true
                    }
                    if named.isEmpty {
                        for skipped in settings.skipped {
                            console.writeError("defaults: skipped dconf \(skipped.description)\n")
                        }
                    }
                    let domains = named.isEmpty ? settings.domains : named.compactMap { settings.domain(named: $0) }
                    for domain in domains {
                        found = true
                        for problem in domain.problems {
                            console.writeError(
                                "defaults: \(domain.name.rawValue) from dconf: \(problem.message); its other keys are "
                                    + "adopted\n")
                            failed = true
                        }
                        try adopt(domain.values, domain.name, source)
                    }
                    continue
                }
                var domains = named
                if named.isEmpty {
                    do throws(PrefsAccessError) {
                        let listing = try source.domains()
                        domains = listing.domains
                        for file in listing.skipped {
                            console.writeError("defaults: skipped \(source.directory)/\(file): not a domain name\n")
                        }
                    } catch {
                        console.writeError("defaults: \(error.message)\n")
                        failed = true
                        continue
                    }
                }
                for domain in domains {
                    let values: PlistDictionary
                    do throws(PrefsAccessError) {
                        guard let read = try source.values(of: domain) else { continue }
                        values = read
                    } catch {
                        console.writeError(
                            "defaults: \(domain.rawValue) from \(source.kind.rawValue): \(error.message)\n")
                        failed = true
                        continue
                    }
                    found = true
                    try adopt(values, domain, source)
                }
            }
            if !found && !failed {
                let places = sources.map(\.directory).joined(separator: " or ")
                let what =
                    named.isEmpty ? "no settings" : "no settings for " + named.map(\.rawValue).joined(separator: ", ")
                console.writeError("defaults: \(what) in \(places)\n")
                return named.isEmpty ? 0 : 1
            }
            if !adopted.isEmpty {
                try checked { try storage.recordMigrations(adopted) }
                try synchronize(storage, failure: "Could not write the adopted settings; exiting")
            }
            return failed ? 1 : 0
        }
    }

    /// `com.example.App from foundation (/home/ada/.config/com.example.App.plist): took Count, Theme; kept Mode
    /// (set here; -overwrite replaces it)`; for dconf, the dconf directory in parentheses
    /// (`org.gnome.desktop.interface from dconf (/org/gnome/desktop/interface/): took …`).
    static func describe(
        _ plan: MigrationPlan, of domain: DomainName, from source: MigrationSource, dryRun: Bool
    ) -> String {
        "\(domain.rawValue) from \(source.kind.rawValue) (\(source.path(of: domain))): "
            + plan.summary(dryRun: dryRun, keptNote: "set here; -overwrite replaces it")
    }
}
