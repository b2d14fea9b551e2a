// SPDX-License-Identifier: Apache-2.0
package import PrefsPOSIX
package import PrefsPlist
package import PrefsStore

/// The files of the fleet cache (docs/FLEET.md, "Cache"): per domain a merged file (what stores read) and a sources
/// file (what `explain` reads), and the state: `state.plist` with every entry, and the log of changes applied since.
///
/// Merged and sources files are replaced atomically but not made durable: the state is, and each start rebuilds them
/// from it. The log is folded into `state.plist` once it is larger than both ``minimumLogBytesToFold`` and the state.
package struct FleetCache: Sendable {
    /// One domain's merged values and, per key, the etcd key and revision its value came from.
    package struct DomainContents: Sendable, Hashable {
        package var values: PlistDictionary
        package var sources: [String: FleetSource]

        package init(values: PlistDictionary, sources: [String: FleetSource]) {
            self.values = values
            self.sources = sources
        }
    }

    /// The directories (the cache is ``StorePaths/fleetDirectory``).
    package let paths: StorePaths
    /// The cache directory.
    package let directory: String
    /// The log's size, to know when to fold it into the state.
    private var logBytes = 0
    /// The state file's size when last read or written.
    private var stateBytes = 0
    /// A log larger than this and than the state file is folded into the state.
    package static let minimumLogBytesToFold = 256 << 10

    package init(paths: StorePaths, directory: String) {
        self.paths = paths
        self.directory = directory
    }

    /// The state file: every entry and the revision, as of the last time the log was folded into it.
    package var statePath: String { directory + "/state.plist" }
    /// The changes applied since the state file was written.
    package var log: FleetStateLog { FleetStateLog(path: directory + "/state.log") }

    /// Creates the cache directory when it is missing: whole, by renaming a complete temp directory into place, so
    /// that a store watching the Preferences directory sees `forced` and `default` at once.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the directory.
    package func create() throws(EtcdError) {
        let names = ["forced", "default", "sources", "sources/forced", "sources/default"]
        do {
            let parent = TemporaryFileName.directory(ofPath: directory)
            try POSIX.makeDirectory(parent, mode: 0o700)
            if !POSIX.isDirectory(directory) {
                let staging = parent + "/.Fleet.tmp-\(POSIX.processID)"
                try POSIX.makeDirectory(staging, mode: 0o700)
                for name in names { try POSIX.makeDirectory(staging + "/" + name, mode: 0o700) }
                try POSIX.renameFile(staging, to: directory)
            }
            for name in names { try POSIX.makeDirectory(directory + "/" + name, mode: 0o700) }
        } catch {
            throw EtcdError(.unavailable, "cannot create the fleet cache \(directory): \(error)")
        }
    }

    /// What ``readState()`` found.
    package struct State: Sendable {
        package var entries: [String: FleetMirror.Entry]
        package var revision: Int64
        /// A sentence for the log when something had to be ignored or cut.
        package var problem: String?
    }

    /// Reads the state file, then the log's records after its revision; a torn tail of the log is cut.
    /// - Returns: The entries and revision (none and 0 for a new cache, or with a problem when the state file is
    ///   unreadable or malformed: a full read from etcd then rebuilds it).
    /// - Throws: ``EtcdError`` with code `unavailable` when the log cannot be read or cut.
    package mutating func readState() throws(EtcdError) -> State {
        var entries: [String: FleetMirror.Entry] = [:]
        var revision: Int64 = 0
        stateBytes = 0
        do {
            let bytes = try POSIX.readFile(statePath, maxBytes: FleetStateLog.maxBytes)
            guard case .dictionary(let stored)? = try? PlistSerialization.decode(bytes),
                case .integer(let number)? = stored["Revision"], let storedRevision = number.int64Value,
                case .dictionary(let storedEntries)? = stored["Entries"]
            else {
                return State(
                    entries: [:], revision: 0,
                    problem: "the fleet state \(statePath) is malformed; a full read from etcd rebuilds it")
            }
            for (key, value) in storedEntries {
                if let entry = FleetMirror.Entry(plistValue: value) { entries[key] = entry }
            }
            revision = storedRevision
            stateBytes = bytes.count
        } catch  where error.errno == 2 {
            // ENOENT: no state written yet (a new cache, before its first full read), but maybe a log.
        } catch {
            return State(
                entries: [:], revision: 0,
                problem: "cannot read the fleet state \(statePath) (\(error)); a full read from etcd rebuilds it")
        }
        // Records at or before the state's revision are already in it: a crash came between a fold and the log's cut.
        let logged = try log.read()
        for record in logged.records where record.revision > revision {
            for key in record.removed { entries[key] = nil }
            entries.merge(record.entries) { _, new in new }
            revision = record.revision
        }
        logBytes = logged.validBytes
        var problem: String?
        if logged.validBytes < logged.totalBytes {
            try log.truncate(to: logged.validBytes)
            logBytes = logged.validBytes
            problem =
                "the fleet state log \(log.path) ended with \(logged.totalBytes - logged.validBytes) bytes that are not "
                + "a whole record (a write a crash interrupted); they were cut, and etcd's history from revision "
                + "\(revision + 1) replaces them"
        }
        return State(entries: entries, revision: revision, problem: problem)
    }

    /// The domains that have a merged file in the cache.
    package func domainsWithFiles() -> Set<DomainID> {
        var domains = Set<DomainID>()
        for scope in [DomainScope.fleetForced, .fleetDefault] {
            guard let scopeDirectory = paths.directory(of: scope) else { continue }
            for fileName in (try? POSIX.directoryEntries(scopeDirectory)) ?? [] where fileName.hasSuffix(".plist") {
                let stem = String(fileName.dropLast(".plist".count))
                let name = stem == ".GlobalPreferences" ? DomainName.global : try? DomainName(stem)
                if let name, !name.isGlobal || stem == ".GlobalPreferences" {
                    domains.insert(DomainID(name, scope: scope))
                }
            }
        }
        return domains
    }

    /// Replaces a domain's sources file, or removes it when the domain is empty.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the file.
    package func writeSources(_ contents: DomainContents, of domain: DomainID) throws(EtcdError) {
        guard let path = paths.fleetSourcesPath(for: domain) else { return }
        if contents.values.isEmpty {
            try removeIfPresent(path)
        } else {
            try write(try Self.encoded(FleetSource.fileValue(contents.sources)), to: path, durably: false)
        }
    }

    /// Replaces a domain's merged file, or removes it when the domain is empty.
    /// - Returns: The new file's status; `nil` when it was removed.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the file.
    package func writeMerged(_ contents: DomainContents, of domain: DomainID) throws(EtcdError) -> FileStatus? {
        guard let path = try? paths.path(for: domain) else { return nil }
        if contents.values.isEmpty {
            try removeIfPresent(path)
            return nil
        }
        return try write(try Self.encoded(.dictionary(contents.values)), to: path, durably: false)
    }

    /// Records an applied batch durably: appended to the log, which is folded into the state when it has grown.
    /// - Parameters:
    ///   - record: The batch.
    ///   - entries: Every entry once the batch is applied, for a fold.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the file that cannot be written.
    package mutating func append(
        _ record: FleetStateLog.Record, entries: @autoclosure () -> [String: FleetMirror.Entry]
    ) throws(EtcdError) {
        do {
            logBytes = try log.append(record)
        } catch {
            // A write cut short (a full disk) would leave part of a record, and the records appended after it would
            // be lost to the next start, which stops there: cut it off (when that fails too, the start does).
            try? log.truncate(to: logBytes)
            throw error
        }
        if logBytes > max(Self.minimumLogBytesToFold, stateBytes) {
            try writeState(entries: entries(), revision: record.revision)
        }
    }

    /// Writes the state file durably, then empties the log, whose records it now holds.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the file that cannot be written.
    package mutating func writeState(entries: [String: FleetMirror.Entry], revision: Int64) throws(EtcdError) {
        let bytes = try Self.encoded(
            .dictionary(["Revision": .integer(.init(revision)), "Entries": FleetMirror.Entry.plistValue(entries)]))
        try write(bytes, to: statePath, durably: true)
        stateBytes = bytes.count
        // A crash before this cut leaves records the state already holds, which a start skips by their revision.
        try log.truncate(to: 0)
        logBytes = 0
    }

    private static func encoded(_ value: PlistValue) throws(EtcdError) -> [UInt8] {
        do {
            return try PlistSerialization.encode(value, format: .binary)
        } catch {
            throw EtcdError(.unavailable, "cannot encode the fleet cache: \(error)")
        }
    }

    @discardableResult
    private func write(_ bytes: [UInt8], to path: String, durably: Bool) throws(EtcdError) -> FileStatus {
        do {
            return try POSIX.writeFileAtomically(
                bytes, to: path, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true,
                synchronizes: durably)
        } catch {
            throw EtcdError(.unavailable, "cannot write the fleet cache file \(path): \(error)")
        }
    }

    private func removeIfPresent(_ path: String) throws(EtcdError) {
        do {
            try POSIX.removeFile(path)
        } catch {
            throw EtcdError(.unavailable, "cannot remove the fleet cache file \(path): \(error)")
        }
    }
}
