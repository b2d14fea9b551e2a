// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
package import PrefsPlist
package import PrefsStore

/// Where another program keeps a user's settings: what `defaults migrate` and `Preferences(…migratingFrom:)` adopt.
///
/// - Foundation's `UserDefaults` on Linux writes `$XDG_CONFIG_HOME/<domain>.plist` (`~/.config` by default); an
///   application's standard domain is its executable's name, and the global domain is `NSGlobalDomain.plist`.
/// - GNUstep writes `<defaults directory>/<domain>.plist` (XML or OpenStep), the global domain in
///   `NSGlobalDomain.plist`. The directory is `$GNUSTEP_USER_DEFAULTS_DIR` (relative to the home directory unless
///   absolute, as in `GNUstep.conf`), else `~/GNUstep/Defaults`.
/// - dconf, GNOME's settings, keeps one database, `$XDG_CONFIG_HOME/dconf/user`, whose directories are domains
///   (``DconfDatabase``, ``DconfSettings``); the source's directory is `$XDG_CONFIG_HOME/dconf`, and a domain's
///   "path" is its dconf directory, `/org/gnome/desktop/interface/`.
package struct MigrationSource: Sendable, Hashable, CustomStringConvertible {
    /// The program that wrote the settings.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case foundation, gnustep, dconf

        /// What `defaults migrate` reads without `-from`: the property-list files, Foundation's first. dconf only
        /// when asked for: its settings are GNOME's, not an application's own.
        package static let defaultKinds: [Kind] = [.foundation, .gnustep]
    }

    /// The program that wrote the files.
    package let kind: Kind
    /// The directory holding one `<domain>.plist` per domain.
    package let directory: String

    /// The largest file read; a larger one is reported, as a domain file beyond the store's limit is.
    package static let maxFileBytes = StoreLimits.default.maxDomainBytes

    /// A source at an explicit directory.
    package init(kind: Kind, directory: String) {
        self.kind = kind
        self.directory = directory
    }

    /// The source's directory as the environment locates it, or `nil` when it names no home directory.
    /// - Parameters:
    ///   - kind: The program.
    ///   - environment: The variables `XDG_CONFIG_HOME`, `GNUSTEP_USER_DEFAULTS_DIR` and `HOME`.
    package static func located(_ kind: Kind, environment: [String: String]) -> MigrationSource? {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? POSIX.homeDirectoryOfCurrentUser()
        switch kind {
        case .foundation, .dconf:
            let suffix = kind == .dconf ? "/dconf" : ""
            if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
                return MigrationSource(kind: kind, directory: config + suffix)
            }
            return home.map { MigrationSource(kind: kind, directory: $0 + "/.config" + suffix) }
        case .gnustep:
            if let configured = environment["GNUSTEP_USER_DEFAULTS_DIR"], !configured.isEmpty {
                if configured.hasPrefix("/") { return MigrationSource(kind: kind, directory: configured) }
                return home.map { MigrationSource(kind: kind, directory: $0 + "/" + configured) }
            }
            return home.map { MigrationSource(kind: kind, directory: $0 + "/GNUstep/Defaults") }
        }
    }

    /// The variables ``located(_:environment:)`` reads, and `PATH`, where `dconf` is looked for.
    package static let environmentVariables = ["XDG_CONFIG_HOME", "GNUSTEP_USER_DEFAULTS_DIR", "HOME", "PATH"]

    /// `foundation settings in /home/ada/.config`.
    package var description: String { "\(kind.rawValue) settings in \(directory)" }

    /// The file that holds a domain here (`NSGlobalDomain.plist` for the global domain); for dconf, the domain's
    /// dconf directory (`/org/gnome/desktop/interface/`).
    package func path(of domain: DomainName) -> String {
        if kind == .dconf { return DconfSettings.path(of: domain) }
        return directory + "/" + domain.rawValue + ".plist"
    }

    /// The domains that have a file here, sorted, and the `.plist` files whose names are not domain names; for
    /// dconf, the domains of its database and the directories that name none (``DconfDatabase/read()``, which
    /// `defaults migrate` calls once instead).
    /// - Throws: ``PrefsAccessError`` with code `.ioFailure` when the directory cannot be listed.
    package func domains() throws(PrefsAccessError) -> (domains: [DomainName], skipped: [String]) {
        if kind == .dconf {
            let settings = try dconfDatabase.read()
            return (settings.domains.map(\.name), settings.skipped.map(\.path))
        }
        let entries: [String]
        do {
            entries = try POSIX.directoryEntries(directory)
        } catch {
            throw PrefsAccessError(.ioFailure, "cannot list \(description): \(error)", path: directory, cause: error)
        }
        var domains: [DomainName] = []
        var skipped: [String] = []
        for entry in entries where entry.hasSuffix(".plist") {
            let stem = String(entry.dropLast(".plist".count))
            if let name = try? DomainName(stem) { domains.append(name) } else { skipped.append(entry) }
        }
        return (domains.sorted(), skipped.sorted())
    }

    /// A domain's values as this source holds them, or `nil` when it has no file for the domain (for dconf, no
    /// directory).
    /// - Throws: ``PrefsAccessError``: `.corrupt` for a file that is not a property-list dictionary (naming the
    ///   file and the parser's reason; for dconf, the first key whose value is not GVariant text),
    ///   `.limitExceeded` for one larger than ``maxFileBytes``, `.ioFailure` when it cannot be read.
    package func values(of domain: DomainName) throws(PrefsAccessError) -> PlistDictionary? {
        if kind == .dconf {
            guard let found = try dconfDatabase.read().domain(named: domain) else { return nil }
            if let problem = found.problems.first { throw problem }
            return found.values
        }
        let path = path(of: domain)
        let bytes: [UInt8]
        do {
            let contents = try POSIX.readFile(
                path, maxBytes: Self.maxFileBytes, regularFileOnly: true, followsSymbolicLinks: true)
            guard let read = contents.bytes else {
                throw PrefsAccessError(
                    .limitExceeded,
                    "\(path) is \(contents.size) bytes, more than a domain may hold (\(Self.maxFileBytes))", path: path)
            }
            bytes = read
        } catch let error as PrefsAccessError {
            throw error
        } catch let error as SystemCallError {
            if error.isNotFound { return nil }
            throw PrefsAccessError(.ioFailure, "cannot read \(path): \(error)", path: path, cause: error)
        } catch {
            throw PrefsAccessError(.ioFailure, "cannot read \(path): \(error)", path: path)
        }
        let value: PlistValue
        do {
            value = try PlistSerialization.decode(bytes)
        } catch {
            throw PrefsAccessError(.corrupt, "\(path) is not a property list: \(error)", path: path, cause: error)
        }
        guard case .dictionary(let values) = value else {
            throw PrefsAccessError(.corrupt, "\(path) holds a \(value.typeName), not a dictionary", path: path)
        }
        return values
    }

    /// The database of a dconf source, with `dconf` looked for in this process's `PATH`.
    private var dconfDatabase: DconfDatabase {
        DconfDatabase(self, searchPath: POSIX.environmentVariable("PATH"))
    }
}
