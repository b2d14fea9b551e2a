import PrefsFleetScope
import PrefsPOSIX
import PrefsPlist
import PrefsStore

/// The host's copy of the managed domains that apply to it, and the cache files the store reads
/// (docs/FLEET.md, "Cache").
///
/// It keeps, per etcd key that targets this host (all hosts, one of its groups, its machine id), the last good
/// dictionary and its revision, and the revision applied last. Each change rewrites the merged file of every
/// domain it touches: for each key, the host's value wins over a group's (groups in the order the settings list
/// them) and a group's over the all-hosts value. Every file is replaced atomically (temp file, `rename`), merged
/// domains and then their sources first, the state (entries and revision) last. Only the state is made durable
/// (`fsync` of the file and of the directory): it holds every entry, so ``prepare()`` rebuilds the merged and sources
/// files from it at each start, and a crash at any point leaves a cache that this rebuild and a replay from the
/// recorded revision make whole. Two `fsync`s per change instead of six: with many hosts on one disk, the `fsync`s
/// were most of the time from etcd's event to the subscriber's.
package struct FleetMirror: Sendable {
    /// One managed key's last good contents.
    package struct Entry: Sendable, Hashable {
        /// The key's `mod_revision`.
        package var modRevision: Int64
        /// The domain's values.
        package var values: PlistDictionary
    }

    /// What a managed value may be.
    package struct Limits: Sendable, Hashable {
        /// The largest encoded value accepted; etcd's own request limit is 1.5 MiB by default.
        package var maxValueBytes: Int
        /// The deepest nesting accepted, as the store's `maxDepth`.
        package var maxDepth: Int
        /// The longest preference key accepted, as the store's `maxKeyBytes`.
        package var maxKeyBytes: Int

        package init(maxValueBytes: Int = 1 << 20, maxDepth: Int = 64, maxKeyBytes: Int = 1024) {
            self.maxValueBytes = maxValueBytes
            self.maxDepth = maxDepth
            self.maxKeyBytes = maxKeyBytes
        }
    }

    /// The directories (the fleet cache is ``StorePaths/fleetDirectory``).
    package let paths: StorePaths
    /// The key layout.
    package let layout: FleetKeyLayout
    /// The groups this host belongs to, the first winning over the later ones.
    package let groups: [String]
    /// The limits values are checked against.
    package let limits: Limits
    /// The entries that target this host, by etcd key.
    package private(set) var entries: [String: Entry] = [:]
    /// The last etcd revision applied (0: none yet).
    package private(set) var revision: Int64 = 0

    /// The fleet cache directory.
    package let directory: String

    /// Creates a mirror; ``prepare()`` reads what an earlier run left.
    /// - Throws: ``EtcdError`` with code `invalidArgument` when the paths have no fleet directory or no machine id.
    package init(
        paths: StorePaths, layout: FleetKeyLayout, groups: [String], limits: Limits = Limits()
    )
        throws(EtcdError)
    {
        guard let directory = paths.fleetDirectory else {
            throw EtcdError(.invalidArgument, "the preferences have no fleet cache directory")
        }
        guard paths.machineID != nil else {
            throw EtcdError(
                .invalidArgument,
                "this host has no machine id (\(StorePaths.machineIDPath) or PREFERENCES_MACHINE_ID): it cannot join "
                    + "a fleet")
        }
        self.paths = paths
        self.layout = layout
        self.groups = groups
        self.limits = limits
        self.directory = directory
    }

    /// The state file: the entries and the revision.
    package var statePath: String { directory + "/state.plist" }

    /// Creates the cache directory when it is missing (whole, by renaming a complete temp directory into place, so
    /// a store watching the Preferences directory sees `forced` and `default` at once) and reads the state an earlier
    /// run left, then rebuilds every merged and sources file from it (they are not made durable when written).
    /// - Returns: A sentence for the log when the state file was unreadable and ignored (the next sync rebuilds it).
    /// - Throws: ``EtcdError`` with code `unavailable` when the directories or files cannot be written.
    package mutating func prepare() throws(EtcdError) -> String? {
        do {
            try createDirectories()
        } catch {
            throw EtcdError(.unavailable, "cannot create the fleet cache \(directory): \(error)")
        }
        let bytes: [UInt8]
        do {
            bytes = try POSIX.readFile(statePath, maxBytes: 512 << 20)
        } catch  where error.errno == 2 {  // ENOENT: a new cache.
            return nil
        } catch {
            return "cannot read the fleet state \(statePath) (\(error)); a full read from etcd rebuilds it"
        }
        guard case .dictionary(let state)? = try? PlistSerialization.decode(bytes),
            case .integer(let number)? = state["Revision"], let revision = number.int64Value,
            case .dictionary(let stored)? = state["Entries"]
        else {
            return "the fleet state \(statePath) is malformed; a full read from etcd rebuilds it"
        }
        var entries: [String: Entry] = [:]
        for (key, value) in stored {
            guard case .dictionary(let entry) = value, case .integer(let modRevision)? = entry["ModRevision"],
                let modRevisionNumber = modRevision.int64Value, case .dictionary(let values)? = entry["Values"]
            else { continue }
            entries[key] = Entry(modRevision: modRevisionNumber, values: values)
        }
        self.entries = entries
        self.revision = revision
        // The merged files are not made durable when written: rebuild them from the state, which is.
        try rewrite(domainsInCache())
        return nil
    }

    /// Applies a watch's batch of changes, then records `revision` as applied.
    /// - Returns: The values refused (each to be logged); their keys keep their last good version.
    /// - Throws: ``EtcdError`` with code `unavailable` when a cache file cannot be written.
    package mutating func apply(
        _ events: [EtcdWatchEvent], revision newRevision: Int64
    ) throws(EtcdError)
        -> [FleetRefusal]
    {
        var refusals: [FleetRefusal] = []
        var touched = Set<DomainID>()
        for event in events {
            let key = event.keyValue.keyText
            let managed: FleetKeyLayout.ManagedKey
            do {
                managed = try layout.parse(key)
            } catch {
                if event.kind == .put {
                    refusals.append(FleetRefusal(key: key, revision: event.keyValue.modRevision, reason: error.message))
                }
                continue
            }
            guard applies(managed.target) else { continue }
            switch event.kind {
            case .delete:
                if entries.removeValue(forKey: key) != nil { touched.insert(domainID(managed)) }
            case .put:
                switch validate(event.keyValue.value) {
                case .success(let values):
                    entries[key] = Entry(modRevision: event.keyValue.modRevision, values: values)
                    touched.insert(domainID(managed))
                case .failure(let reason):
                    refusals.append(
                        FleetRefusal(key: key, revision: event.keyValue.modRevision, reason: reason.description))
                }
            }
        }
        try rewrite(touched)
        revision = max(revision, newRevision)
        try writeState()
        return refusals
    }

    /// Replaces everything with a full read at `revision` (first start, or after compaction).
    /// - Returns: The values refused; a refused key keeps its last good version when there was one.
    /// - Throws: ``EtcdError`` with code `unavailable` when a cache file cannot be written.
    package mutating func replaceAll(
        with keyValues: [EtcdKeyValue], revision newRevision: Int64
    ) throws(EtcdError)
        -> [FleetRefusal]
    {
        var refusals: [FleetRefusal] = []
        var fresh: [String: Entry] = [:]
        for keyValue in keyValues {
            let key = keyValue.keyText
            let managed: FleetKeyLayout.ManagedKey
            do {
                managed = try layout.parse(key)
            } catch {
                refusals.append(FleetRefusal(key: key, revision: keyValue.modRevision, reason: error.message))
                continue
            }
            guard applies(managed.target) else { continue }
            switch validate(keyValue.value) {
            case .success(let values): fresh[key] = Entry(modRevision: keyValue.modRevision, values: values)
            case .failure(let reason):
                refusals.append(FleetRefusal(key: key, revision: keyValue.modRevision, reason: reason.description))
                if let kept = entries[key] { fresh[key] = kept }
            }
        }
        var touched = domainsInCache()
        for key in Set(entries.keys).union(fresh.keys) where entries[key] != fresh[key] {
            if let managed = try? layout.parse(key) { touched.insert(domainID(managed)) }
        }
        entries = fresh
        try rewrite(touched)
        revision = newRevision
        try writeState()
        return refusals
    }

    /// The merged values of one fleet domain and the source of each key, as the cache holds them.
    package func merged(_ domain: DomainID) -> (values: PlistDictionary, sources: [String: FleetSource]) {
        let kind: FleetKind = domain.scope == .fleetForced ? .forced : .default
        var contributions: [(rank: Int, key: String, entry: Entry)] = []
        for (key, entry) in entries {
            guard let managed = try? layout.parse(key), managed.kind == kind, managed.domain == domain.name,
                applies(managed.target)
            else { continue }
            contributions.append((rank(of: managed.target), key, entry))
        }
        contributions.sort { $0.rank < $1.rank }
        var values = PlistDictionary()
        var sources: [String: FleetSource] = [:]
        for contribution in contributions {
            for (key, value) in contribution.entry.values {
                values[key] = value
                sources[key] = FleetSource(key: contribution.key, revision: contribution.entry.modRevision)
            }
        }
        return (values, sources)
    }

    /// Whether a target names this host.
    package func applies(_ target: FleetTarget) -> Bool {
        switch target {
        case .all: true
        case .group(let name): groups.contains(name)
        case .host(let machineID): machineID == paths.machineID
        }
    }

    /// The order in which targets are laid over each other: all hosts, the groups from last listed to first, the
    /// host.
    private func rank(of target: FleetTarget) -> Int {
        switch target {
        case .all: 0
        case .group(let name): 1 + (groups.count - (groups.firstIndex(of: name) ?? groups.count))
        case .host: groups.count + 2
        }
    }

    /// Checks a value: a property-list dictionary within the size, depth and key-length limits.
    package func validate(_ bytes: [UInt8]) -> Result<PlistDictionary, Reason> {
        guard bytes.count <= limits.maxValueBytes else {
            return .failure(
                Reason(
                    "the value is \(bytes.count) bytes, more than the limit of \(limits.maxValueBytes) (FleetMaxValueBytes)"
                ))
        }
        let value: PlistValue
        do {
            value = try PlistSerialization.decode(
                bytes,
                limits: PlistLimits(
                    maxInputBytes: limits.maxValueBytes, maxDepth: limits.maxDepth + 1,
                    maxObjectCount: 1 << 20))
        } catch {
            return .failure(Reason("the value is not a property list: \(error)"))
        }
        guard case .dictionary(let dictionary) = value else {
            return .failure(Reason("the value is a property list but not a dictionary"))
        }
        for (key, _) in dictionary where key.utf8.count > limits.maxKeyBytes {
            return .failure(Reason("the value has a key longer than \(limits.maxKeyBytes) bytes"))
        }
        return .success(dictionary)
    }

    /// Why a value was refused.
    package struct Reason: Error, Sendable, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    private func domainID(_ managed: FleetKeyLayout.ManagedKey) -> DomainID {
        DomainID(managed.domain, scope: managed.kind == .forced ? .fleetForced : .fleetDefault)
    }

    /// The domains of every entry and of every file in the cache, those no entry accounts for (left by a run with
    /// other groups, say) included.
    private func domainsInCache() -> Set<DomainID> {
        var domains = Set<DomainID>()
        for key in entries.keys {
            if let managed = try? layout.parse(key) { domains.insert(domainID(managed)) }
        }
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

    /// Rewrites the merged file and the sources file of each domain; an empty domain loses both.
    private func rewrite(_ domains: Set<DomainID>) throws(EtcdError) {
        for domain in domains.sorted(by: { $0.description < $1.description }) {
            let (values, sources) = merged(domain)
            guard let path = try? paths.path(for: domain), let sourcesPath = paths.fleetSourcesPath(for: domain) else {
                continue
            }
            do {
                if values.isEmpty {
                    try removeIfPresent(path)
                    try removeIfPresent(sourcesPath)
                } else {
                    // The merged file first: its rename is what stores see, so subscribers hear of the change one
                    // file and two fsyncs sooner; the sources sidecar only serves `explain`.
                    try write(
                        PlistSerialization.encode(.dictionary(values), format: .binary), to: path, durably: false)
                    try write(
                        PlistSerialization.encode(FleetSource.fileValue(sources), format: .binary), to: sourcesPath,
                        durably: false)
                }
            } catch let error as EtcdError {
                throw error
            } catch {
                throw EtcdError(.unavailable, "cannot write the fleet cache for \(domain): \(error)")
            }
        }
    }

    private func writeState() throws(EtcdError) {
        var stored = PlistDictionary()
        for (key, entry) in entries {
            stored[key] = .dictionary([
                "ModRevision": .integer(.init(entry.modRevision)), "Values": .dictionary(entry.values),
            ])
        }
        let state: PlistValue = .dictionary(["Revision": .integer(.init(revision)), "Entries": .dictionary(stored)])
        do {
            try write(try PlistSerialization.encode(state, format: .binary), to: statePath)
        } catch let error as EtcdError {
            throw error
        } catch {
            throw EtcdError(.unavailable, "cannot encode the fleet state: \(error)")
        }
    }

    private func write(_ bytes: [UInt8], to path: String, durably: Bool = true) throws(EtcdError) {
        do {
            try POSIX.writeFileAtomically(
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

    private func createDirectories() throws(SystemCallError) {
        let parent = TemporaryFileName.directory(ofPath: directory)
        try POSIX.makeDirectory(parent, mode: 0o700)
        if !POSIX.isDirectory(directory) {
            let staging = parent + "/.Fleet.tmp-\(POSIX.processID)"
            try POSIX.makeDirectory(staging, mode: 0o700)
            for name in ["forced", "default", "sources", "sources/forced", "sources/default"] {
                try POSIX.makeDirectory(staging + "/" + name, mode: 0o700)
            }
            try POSIX.renameFile(staging, to: directory)
        }
        for name in ["forced", "default", "sources", "sources/forced", "sources/default"] {
            try POSIX.makeDirectory(directory + "/" + name, mode: 0o700)
        }
    }
}
