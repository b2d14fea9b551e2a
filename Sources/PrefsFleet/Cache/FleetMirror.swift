// SPDX-License-Identifier: Apache-2.0
package import PrefsDomain
import PrefsPOSIX
package import PrefsPlist
package import PrefsStore

/// The host's copy of the managed domains that apply to it, and the cache files the store reads
/// (docs/FLEET.md, "Cache").
///
/// It keeps, per etcd key that targets this host (all hosts, one of its groups, its machine id), the last good
/// dictionary and its revision, and the revision applied last. Each change rewrites the merged file of every
/// domain it touches: for each key, the host's value wins over a group's (groups in the order the settings list
/// them) and a group's over the all-hosts value. The files are written by the ``FleetCache``: directly, or through a
/// ``FleetCacheWriter`` (prefsd's), which tells the store first and writes on a thread of lower priority.
package struct FleetMirror: Sendable {
    /// One managed key's last good contents.
    package struct Entry: Sendable, Hashable {
        /// The key's `mod_revision`.
        package var modRevision: Int64
        /// The domain's values.
        package var values: PlistDictionary

        package init(modRevision: Int64, values: PlistDictionary) {
            self.modRevision = modRevision
            self.values = values
        }

        /// The entry as the state and its log store it: `{ModRevision, Values}`.
        var plistValue: PlistValue {
            .dictionary(["ModRevision": .integer(.init(modRevision)), "Values": .dictionary(values)])
        }

        /// Entries by etcd key, as the state and its log store them.
        static func plistValue(_ entries: [String: Entry]) -> PlistValue {
            var stored = PlistDictionary()
            for (key, entry) in entries { stored[key] = entry.plistValue }
            return .dictionary(stored)
        }

        /// Reads an entry as the state and its log store it.
        init?(plistValue: PlistValue) {
            guard case .dictionary(let entry) = plistValue, case .integer(let number)? = entry["ModRevision"],
                let modRevision = number.int64Value, case .dictionary(let values)? = entry["Values"]
            else { return nil }
            self.init(modRevision: modRevision, values: values)
        }
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
    package private(set) var layout: FleetKeyLayout
    /// The groups this host belongs to, the first winning over the later ones.
    package private(set) var groups: [String]
    /// The limits values are checked against.
    package private(set) var limits: Limits
    /// The entries that target this host, by etcd key.
    package private(set) var entries: [String: Entry] = [:]
    /// The last etcd revision applied (0: none yet).
    package private(set) var revision: Int64 = 0

    /// The cache's files.
    package private(set) var cache: FleetCache
    /// Writes the files in the background once set (prefsd); without it, each change is written before `apply`
    /// returns.
    package var writer: FleetCacheWriter?

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
        self.cache = FleetCache(paths: paths, directory: directory)
    }

    /// Takes the key layout, groups and value limit of reloaded settings. The entries and files stay as they are
    /// until the next ``replaceAll(with:revision:)``, which the caller makes next: it keeps only the keys that
    /// target the host now and lays them over each other in the new order.
    package mutating func reconfigure(layout: FleetKeyLayout, groups: [String], maxValueBytes: Int) {
        self.layout = layout
        self.groups = groups
        limits.maxValueBytes = maxValueBytes
    }

    /// Creates the cache directory when it is missing and reads the state an earlier run left (the state file and
    /// its log), then rebuilds every merged and sources file from it (they are not made durable when written).
    /// - Returns: A sentence for the log when part of the state was unreadable and ignored (the next full read from
    ///   etcd, or the watch from the revision kept, rebuilds it).
    /// - Throws: ``EtcdError`` with code `unavailable` when the directories or files cannot be written.
    package mutating func prepare() throws(EtcdError) -> String? {
        try cache.create()
        let state = try cache.readState()
        entries = state.entries
        revision = state.revision
        try rewrite(domainsInCache())
        return state.problem
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
        var record = FleetStateLog.Record(revision: newRevision, entries: [:], removed: [])
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
                if entries.removeValue(forKey: key) != nil {
                    touched.insert(domainID(managed))
                    record.entries[key] = nil
                    record.removed.append(key)
                }
            case .put:
                switch validate(event.keyValue.value) {
                case .success(let values):
                    let entry = Entry(modRevision: event.keyValue.modRevision, values: values)
                    entries[key] = entry
                    record.entries[key] = entry
                    record.removed.removeAll { $0 == key }
                    touched.insert(domainID(managed))
                case .failure(let reason):
                    refusals.append(
                        FleetRefusal(key: key, revision: event.keyValue.modRevision, reason: reason.description))
                }
            }
        }
        try rewrite(touched)
        revision = max(revision, newRevision)
        // A batch that changed nothing here and refused nothing is not recorded: the next record carries its
        // revision, and until then a restart only watches those events again.
        guard !touched.isEmpty || !refusals.isEmpty else {
            writer?.stageRevision(revision)
            return refusals
        }
        record.revision = revision
        if let writer {
            writer.stage(record, entries: entries)
        } else {
            try cache.append(record, entries: entries)
        }
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
        if let writer {
            writer.stageState(entries: entries, revision: revision)
        } else {
            try cache.writeState(entries: entries, revision: revision)
        }
        return refusals
    }

    /// The merged values of one fleet domain and the source of each key, as the cache holds them.
    package func merged(_ domain: DomainID) -> (values: PlistDictionary, sources: [String: FleetSource]) {
        guard let kind = FleetKind(domain.scope) else { return ([:], [:]) }
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
        DomainID(managed.domain, scope: managed.kind.scope)
    }

    /// The domains of every entry and of every file in the cache, those no entry accounts for (left by a run with
    /// other groups, say) included.
    private func domainsInCache() -> Set<DomainID> {
        var domains = cache.domainsWithFiles()
        for key in entries.keys {
            if let managed = try? layout.parse(key) { domains.insert(domainID(managed)) }
        }
        return domains
    }

    /// Rewrites the merged file and the sources file of each domain (an empty domain loses both), or stages them
    /// with the ``writer``.
    private func rewrite(_ domains: Set<DomainID>) throws(EtcdError) {
        for domain in domains.sorted(by: { $0.description < $1.description }) {
            let (values, sources) = merged(domain)
            let contents = FleetCache.DomainContents(values: values, sources: sources)
            if let writer {
                writer.stage(contents, of: domain)
            } else {
                try cache.writeSources(contents, of: domain)
                _ = try cache.writeMerged(contents, of: domain)
            }
        }
    }
}
