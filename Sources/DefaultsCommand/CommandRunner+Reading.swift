// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsPOSIX
import PrefsPlist
import PrefsStore

extension CommandRunner {
    /// `domains`: the names, sorted, joined by `, `, without the global domain.
    func listDomains(host: HostSelector) throws(DefaultsError) {
        try withUserStorage(host: host) { storage, scope throws(DefaultsError) in
            let names = try checked { try storage.domainNames(in: scope) }.filter { !$0.isGlobal }
            try console.writeOutput(names.map(\.rawValue).joined(separator: ", ") + "\n")
        }
    }

    /// `read` without a domain: every domain as one dictionary keyed by name (`Apple Global Domain` for the global
    /// one). A domain whose file is broken is left out, with a warning.
    func readAll(host: HostSelector, format: OutputFormat?) throws(DefaultsError) {
        try withUserStorage(host: host) { storage, scope throws(DefaultsError) in
            var all: PlistDictionary = [:]
            for name in try checked({ try storage.domainNames(in: scope) }) {
                let values: PlistDictionary?
                do throws(DefaultsError) {
                    values = try checked { try storage.values(of: DomainID(name, scope: scope)) }
                } catch  where error.code == .corruptDomain || error.code == .storage {
                    continue  // the storage's warning names the file and the problem
                }
                if let values { all[name.isGlobal ? "Apple Global Domain" : name.rawValue] = .dictionary(values) }
            }
            try output(.dictionary(all), format: format, what: "the domains")
        }
    }

    /// `read <domain> [<key>]`.
    func read(_ target: DomainTarget, key: PlistKeyPath?, format: OutputFormat?) throws(DefaultsError) {
        let first = FirstRead(target.id, key: key?.topLevelKey)
        try withStorage(target.paths, firstRead: first) { storage throws(DefaultsError) in
            guard let key else {
                guard let values = try checked({ try storage.values(of: target.id) }) else {
                    throw DefaultsError(.notFound, "\nDomain \(target.displayName) does not exist\n")
                }
                try output(.dictionary(values), format: format, what: "domain \(target.displayName)")
                return
            }
            // Only the top-level key is read (through prefsd, a large domain is not sent whole for it); a key path
            // goes on inside its value.
            let top = try checked { try storage.value(forKey: key.topLevelKey, in: target.id) }
            let holder: PlistDictionary = top.map { [key.topLevelKey: $0] } ?? [:]
            guard let value = key.value(in: holder) else { throw missingPair(target, key) }
            try output(value, format: format, what: "key \(key) of domain \(target.displayName)")
        }
    }

    /// `read-type <domain> <key>`: `Type is string`, `Type is integer`, …
    func readType(_ target: DomainTarget, key: PlistKeyPath) throws(DefaultsError) {
        try withStorage(target.paths, firstRead: FirstRead(target.id)) { storage throws(DefaultsError) in
            guard let value = try checked({ try storage.values(of: target.id) }).flatMap(key.value(in:)) else {
                throw missingPair(target, key)
            }
            switch value {
            case .uid, .null:
                throw DefaultsError(.invalidValue, "Found a value that is not of a known property list type")
            default:
                try console.writeOutput("Type is \(value.typeName)\n")
            }
        }
    }

    /// `export <domain> <path | ->`: binary to a path (replaced atomically), XML to standard output, or `-format`.
    /// A domain that does not exist exports as an empty dictionary, as on macOS.
    func exportDomain(_ target: DomainTarget, to destination: String, format: OutputFormat?) throws(DefaultsError) {
        let toStandardOutput = destination.trimmingBlanks == "-"
        try withStorage(target.paths, firstRead: FirstRead(target.id)) { storage throws(DefaultsError) in
            let values = try checked { try storage.values(of: target.id) } ?? [:]
            let chosen = format ?? (toStandardOutput ? .xml : .binary)
            let bytes: [UInt8]
            do {
                bytes = try chosen.encode(.dictionary(values))
            } catch {
                throw DefaultsError(
                    .invalidValue, "Could not export domain \(target.identifier) to \(destination) due to \(error)",
                    cause: error as? PlistError)
            }
            if toStandardOutput {
                try console.writeOutput(bytes)
                return
            }
            let path = try environment.absolutePath(destination)
            do throws(SystemCallError) {
                // A new file gets 0666 less the umask, as `defaults export` does on macOS; an existing one keeps its
                // mode. A device, FIFO or symbolic link is written through, never replaced (docs/DEFAULTS.md).
                try POSIX.writeUserFile(bytes, to: path, newFileMode: 0o666)
            } catch {
                throw DefaultsError(
                    .io, "Could not export domain \(target.identifier) to \(destination) due to \(error.message)",
                    cause: error)
            }
        }
    }

    /// `find <word>`: for each domain (the global one first) with keys whose domain name, key or string values
    /// contain the word without regard to case, `Found N keys in domain 'D': { … }`.
    func find(_ word: String, host: HostSelector) throws(DefaultsError) {
        let needle = word.lowercased()
        func contains(_ text: String) -> Bool { text.lowercased().containsText(needle) }
        func contains(_ value: PlistValue) -> Bool {
            switch value {
            case .string(let text): contains(text)
            case .array(let elements): elements.contains(where: contains)
            case .dictionary(let entries): entries.contains { contains($0.key) || contains($0.value) }
            default: false
            }
        }
        try withUserStorage(host: host) { storage, scope throws(DefaultsError) in
            let names = try checked { try storage.domainNames(in: scope) }
            let ordered = names.filter(\.isGlobal) + names.filter { !$0.isGlobal }
            var found = false
            for name in ordered {
                let values: PlistDictionary
                do throws(DefaultsError) {
                    guard let existing = try checked({ try storage.values(of: DomainID(name, scope: scope)) }) else {
                        continue
                    }
                    values = existing
                } catch  where error.code == .corruptDomain || error.code == .storage {
                    continue
                }
                let domainMatches = contains(name.rawValue)
                let matches = values.filter { domainMatches || contains($0.key) || contains($0.value) }
                guard !matches.isEmpty else { continue }
                found = true
                let display = name.isGlobal ? "Apple Global Domain" : name.rawValue
                try console.writeOutput(
                    "Found \(matches.count) keys in domain '\(display)': "
                        + PlistValue.dictionary(matches).defaultsDescription + "\n")
            }
            if !found { console.writeError("No domain, key, nor value containing '\(word)'\n") }
        }
    }

    /// macOS's message for a key that a domain does not hold.
    func missingPair(_ target: DomainTarget, _ key: PlistKeyPath) -> DefaultsError {
        DefaultsError(.notFound, "\nThe domain/default pair of (\(target.identifier), \(key)) does not exist\n")
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (macOS compares `-` after trimming them).
    var trimmingBlanks: Substring {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return view
    }
}
