// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX
package import PrefsPlist
import Synchronization

/// The domain files of a Preferences directory and the system layers: the source of a store on files, and of the
/// shipped layer under every route.
///
/// It does the file work of one domain at a time: reads (following the symbolic links a dotfile manager makes),
/// `flock`, a write that merges with what the file holds now and replaces it atomically, a corrupt file set aside
/// before the first write, and the stale temp files of writers that died. The engine decides when; the store's
/// worker watches the directories.
package final class FileDomains: ScheduledDomainSource {
    /// The directories.
    let paths: StorePaths
    let codec: StoreCodec
    let limits: StoreLimits
    /// The scopes whose directory a write was found allowed in (``checkWritable(_:)``), so that each is probed once,
    /// and again only after a write in it failed.
    private let writableScopes = Mutex<Set<DomainScope>>([])

    init(paths: StorePaths, codec: StoreCodec, limits: StoreLimits) {
        self.paths = paths
        self.codec = codec
        self.limits = limits
    }

    /// The files in `paths`, read and written with the standard codec (XML out, any format in).
    /// - Parameters:
    ///   - paths: The directories.
    ///   - limits: The limits a file must keep to be read.
    package convenience init(paths: StorePaths, limits: StoreLimits = .default) {
        self.init(paths: paths, codec: .standard, limits: limits)
    }

    /// `files in /home/ada/.config/preferences`.
    package var description: String { "files in \(paths.preferencesDirectory)" }

    var watchedPaths: StorePaths? { paths }

    /// A domain's values as its file holds them now, `nil` when it has no usable file: a one-off read, as of the
    /// shipped layer, which nothing watches.
    package func storedValues(of domain: DomainID) -> PlistDictionary? {
        guard let location = try? paths.location(of: domain) else { return nil }
        guard case .values(let values, _) = reload(location, domain: domain) else { return nil }
        return values
    }

    // MARK: DomainSource

    package func mayHold(_ domain: DomainID) -> Bool {
        // A read-only layer without a directory (no fleet cache, no system directory) has nothing to load.
        if !domain.scope.isWritable, paths.directory(of: domain.scope) == nil { return false }
        do {
            return try FileSystem.identity(of: paths.location(of: domain).path, home: paths.homeDirectory) != nil
        } catch {
            // Loading reports what is wrong.
            return true
        }
    }

    package func domainNames(in scope: DomainScope) throws(PrefsStoreError) -> Set<DomainName> {
        guard let directory = paths.directory(of: scope) else { return [] }
        var names = Set<DomainName>()
        do {
            for fileName in try FileSystem.directoryEntries(directory) {
                if let id = paths.domain(forFileName: fileName, scope: scope) { names.insert(id.name) }
            }
        } catch {
            throw PrefsStoreError(.ioFailure, "cannot list the \(scope) domains", path: directory, cause: error)
        }
        return names
    }

    // MARK: ScheduledDomainSource

    func load(_ domain: DomainID) -> SourceLoad {
        do throws(PrefsStoreError) {
            let location = try paths.location(of: domain)
            return SourceLoad(location: location, contents: reload(location, domain: domain))
        } catch {
            return SourceLoad(location: nil, locationError: error, contents: .missing)
        }
    }

    func reload(_ location: FileLocation, domain: DomainID) -> DomainFile.Contents {
        DomainFile.load(location, domain: domain, codec: codec, limits: limits, home: paths.homeDirectory)
    }

    func identity(at location: FileLocation, of domain: DomainID) throws(PrefsStoreError) -> FileIdentity? {
        do {
            return try FileSystem.identity(of: location.path, home: paths.homeDirectory)
        } catch {
            throw PrefsStoreError(
                .ioFailure, "cannot examine the file of domain \(domain)", path: location.path, cause: error)
        }
    }

    /// Probes a scope's directory at the first write in it, and again after a write in it failed (a remount, a
    /// changed mode), so that the check costs nothing otherwise.
    func checkWritable(_ domain: DomainID) throws(PrefsStoreError) {
        guard !writableScopes.withLock({ $0.contains(domain.scope) }) else { return }
        // A scope has one directory: the path is made only when it is probed, not on every write.
        let directory = try paths.location(of: domain).directory
        if let problem = FileSystem.writeAccessProblem(directory) {
            throw PrefsStoreError(
                .ioFailure,
                "cannot write domain \(domain): its directory \(directory) is not writable (\(problem))",
                path: directory)
        }
        writableScopes.withLock { _ = $0.insert(domain.scope) }
    }

    func withDomainLock<Result>(
        _ domain: DomainID, _ body: () throws(PrefsStoreError) -> Result
    ) throws(PrefsStoreError) -> Result {
        let lock = try lockDomain(domain)
        defer { FileSystem.unlock(lock) }
        return try body()
    }

    /// The file work of one write, under the domain's lock: merge with the file as it is now, then replace it.
    func write(_ plan: StoreState.FlushPlan, lockHeld: Bool) throws(PrefsStoreError) -> SourceWrite {
        do {
            return try writeFile(plan, lockHeld: lockHeld)
        } catch {
            // The directory may have become read-only: the next write probes it again.
            writableScopes.withLock { _ = $0.remove(plan.id.scope) }
            throw error
        }
    }

    private func writeFile(_ plan: StoreState.FlushPlan, lockHeld: Bool) throws(PrefsStoreError) -> SourceWrite {
        let id = plan.id
        let location = try paths.location(of: id)
        let lock = lockHeld ? nil : try lockDomain(id)
        defer { if let lock { FileSystem.unlock(lock) } }
        // A link the store follows is written through: its target is replaced in its own directory.
        let written = FileSystem.writtenLocation(of: location, home: paths.homeDirectory)
        let isFollowedLink = written != location
        if plan.checkStaleTemporaryFiles { DomainFile.removeStaleTemporaryFiles(of: written) }

        // Another process may have written since the engine last read the file: start from what is there now.
        var onDisk: PlistDictionary = [:]
        var currentIdentity = try identity(at: location, of: id)
        var notices: [StoreDiagnostic] = []
        // The file is the version the engine knows (or there is none, as it knows): nothing to merge.
        let isKnownVersion = currentIdentity == plan.knownIdentity && plan.knownIssue == nil
        if let identity = currentIdentity {
            if identity == plan.knownIdentity, plan.knownIssue == nil {
                onDisk = plan.knownDisk
            } else {
                switch loadSettled(location, domain: id) {
                case .missing:
                    currentIdentity = nil
                case .values(let values, let identity):
                    onDisk = values
                    currentIdentity = identity
                case .broken(let error, _, isCorrupt: true):
                    notices.append(try setAsideCorruptFile(written, domain: id, error: error))
                    currentIdentity = nil
                case .broken(let error, _, isCorrupt: false):
                    throw error
                }
            }
        }

        var result = plan.replacement?.values ?? onDisk
        // Updates replay on the file's value of their key as it is now, under the lock.
        for (key, change) in plan.pending { result[key] = change.resolved(on: result[key]) }
        // Only the changed keys can differ, unless the whole domain was replaced.
        let unchanged =
            plan.replacement == nil ? plan.pending.keys.allSatisfy { onDisk[$0] == result[$0] } : result == onDisk
        if unchanged && notices.isEmpty {
            return SourceWrite(written: onDisk, identity: currentIdentity, readOtherWriters: !isKnownVersion)
        }
        do {
            // An emptied domain loses its file, but a followed link keeps its target (empty), which the dotfile
            // manager tracks.
            if result.isEmpty && !isFollowedLink {
                try FileSystem.removeFile(location)
                return SourceWrite(
                    written: [:], identity: nil, readOtherWriters: !isKnownVersion, replacedFile: true,
                    notices: notices)
            }
            let bytes = try encode(result, domain: id, path: written.path)
            let identity = try FileSystem.writeAtomically(bytes, to: written)
            return SourceWrite(
                written: result, identity: identity, readOtherWriters: !isKnownVersion, replacedFile: true,
                notices: notices)
        } catch let error as SystemCallError {
            throw PrefsStoreError(.ioFailure, "cannot write domain \(id)", path: location.path, cause: error)
        } catch let error as PrefsStoreError {
            throw error
        } catch {
            throw PrefsStoreError(.ioFailure, "cannot write domain \(id): \(error)", path: location.path)
        }
    }

    /// Takes a domain's `flock` (creating its directories), which every writer of the domain's file holds.
    /// - Returns: The lock's descriptor, for `FileSystem.unlock`.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.ioFailure` naming the lock file.
    private func lockDomain(_ id: DomainID) throws(PrefsStoreError) -> Int32 {
        let location = try paths.location(of: id)
        let lockLocation = try paths.lockLocation(of: id)
        do {
            try FileSystem.makeDirectories(location.directory)
            try FileSystem.makeDirectories(lockLocation.directory)
            return try FileSystem.lockExclusively(lockLocation.path)
        } catch {
            throw PrefsStoreError(
                .ioFailure, "cannot lock domain \(id) for writing", path: lockLocation.path, cause: error)
        }
    }

    /// Loads a file for a write, giving a hand edit in progress time to finish: an empty or unparsable file that
    /// changed in the last two seconds is read again for up to a second before it counts as empty or corrupt.
    private func loadSettled(_ location: FileLocation, domain: DomainID) -> DomainFile.Contents {
        var contents = reload(location, domain: domain)
        var attempts = 0
        while attempts < 20, contents.isUnsettled(now: FileSystem.currentTimeSince1970()) {
            FileSystem.sleep(milliseconds: 50)
            contents = reload(location, domain: domain)
            attempts += 1
        }
        return contents
    }

    private func encode(
        _ values: PlistDictionary, domain: DomainID, path: String
    ) throws(PrefsStoreError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try codec.encode(.dictionary(values))
        } catch {
            throw PrefsStoreError(.encodingFailed, "cannot encode domain \(domain): \(error)", path: path)
        }
        if bytes.count > limits.maxDomainBytes {
            throw PrefsStoreError(
                .limitExceeded,
                "domain \(domain) encodes to \(bytes.count) bytes, beyond the domain size limit "
                    + "(maxDomainBytes = \(limits.maxDomainBytes))",
                path: path)
        }
        return bytes
    }

    /// Renames a corrupt file aside, returning the notice that says so.
    private func setAsideCorruptFile(
        _ location: FileLocation, domain: DomainID, error: PrefsStoreError
    ) throws(PrefsStoreError) -> StoreDiagnostic {
        let newName: String
        do {
            newName = try DomainFile.setAside(location)
        } catch {
            throw PrefsStoreError(
                .ioFailure, "cannot set aside the corrupt file of domain \(domain)", path: location.path, cause: error)
        }
        let notice = PrefsStoreError(
            .corruptFile, "\(error.description); it was renamed to \(newName) before writing domain \(domain)",
            path: location.directory + "/" + newName)
        return StoreDiagnostic(severity: .warning, domain: domain, error: notice)
    }
}
