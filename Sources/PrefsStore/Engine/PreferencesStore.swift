// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
public import PrefsPlist
import Synchronization

/// The preferences of one user: domains in a Preferences directory, layered in search lists, written lazily and
/// atomically, shared safely with other processes, and observable.
///
/// - Reads come from memory. A domain is read from its file on first use and kept current: with
///   ``StoreConfiguration/watchesFiles``, inotify brings in other processes' writes and hand edits at once.
/// - `set` changes memory and returns; the domain is written within ``StoreConfiguration/flushDelay`` (changes in
///   one delay share one write), at ``synchronize(withdrawingOnFailure:)``, and when the process exits normally.
/// - A write takes the domain's `flock`, re-reads the file if another process changed it, applies only this
///   store's changes on top, and replaces the file atomically (temp file, `fsync`, `rename`, `fsync` directory).
/// - A file that does not parse is skipped by reads and renamed aside to `<name>.corrupt-<time>` before the
///   first write; it is never overwritten or deleted.
///
/// One store per Preferences directory and process is typical; several may coexist. The store is thread-safe.
public final class PreferencesStore: Sendable {
    /// The directories the store uses.
    public let paths: StorePaths
    /// How the store behaves.
    public let configuration: StoreConfiguration
    /// Where the domains are kept, by how their writes reach it.
    let source: Source
    let state: Mutex<StoreState>
    /// Serialises file work (loading, reloading, writing); taken before ``state``, never after it.
    let fileWork = Mutex<FileWorkState>(FileWorkState())
    /// The background thread: a store that watches files starts it at once, any other on its first flush deadline,
    /// so that a store used only for reads (a one-shot `defaults read`) starts no thread.
    let workerStart: Mutex<WorkerStart>
    /// How many times the store replaced or removed a domain file.
    let writes = Atomic<Int>(0)
    /// Counts released effective views, whose links are dropped the next time a view is created.
    let releasedViews = Atomic<Int>(0)

    /// Where an engine's domains are kept, by how their writes reach it.
    enum Source: Sendable {
        /// Written on the engine's schedule: within the flush delay, at `synchronize`, at exit (files, memory).
        case scheduled(any ScheduledDomainSource)
        /// Each write committed before it returns (prefsd).
        case committing(any CommittingDomainSource)
    }

    /// Opens the preferences in the given directories.
    /// - Parameters:
    ///   - paths: The directories; by default from the environment (`PREFERENCES_HOME`, `XDG_CONFIG_HOME`, …).
    ///   - configuration: Flush delay, limits, file watching and diagnostics.
    public convenience init(
        paths: StorePaths = .fromProcessEnvironment(), configuration: StoreConfiguration = StoreConfiguration()
    ) {
        let files = FileDomains(paths: paths, codec: .standard, limits: configuration.limits)
        self.init(paths: paths, configuration: configuration, source: .scheduled(files))
    }

    /// An engine whose domains a committing source keeps (prefsd, through the access layer): it caches them, and
    /// commits each write there before returning.
    /// - Parameters:
    ///   - paths: The directories the source keeps the domains in, which explanations name.
    ///   - configuration: Limits and diagnostics; the flush delay, file watching and flush at exit do not apply.
    ///   - source: The source.
    package convenience init(
        paths: StorePaths, configuration: StoreConfiguration, source: any CommittingDomainSource
    ) {
        self.init(paths: paths, configuration: configuration, source: .committing(source))
        source.attach(DomainSourceEvents(engine: self))
    }

    init(paths: StorePaths, configuration: StoreConfiguration, source: Source) {
        self.paths = paths
        self.configuration = configuration
        self.source = source
        self.state = Mutex(StoreState(flushDelay: configuration.flushDelay))
        // Only files are written and watched in the background: memory and a committing source need no thread, no
        // descriptors and no exit handler.
        guard case .scheduled(let scheduled) = source, scheduled.watchedPaths != nil else {
            self.workerStart = Mutex(.never)
            return
        }
        self.workerStart = Mutex(.pending)
        if configuration.watchesFiles { _ = startedWorker() }
        if configuration.flushesAtExit { ExitFlusher.register(self) }
    }

    /// The source of the engine's domains.
    package var domainSource: any DomainSource {
        switch source {
        case .scheduled(let scheduled): scheduled
        case .committing(let committing): committing
        }
    }

    deinit {
        ExitFlusher.unregister(self)
        worker?.stop()
        flushAllReportingErrors()
    }

    // MARK: Reading

    /// A key's value in one domain, or `nil` when the domain does not hold it.
    ///
    /// A domain whose file is corrupt or unreadable reads as empty (plus this process's unwritten changes); see
    /// ``domainIssue(_:)``.
    public func value(forKey key: String, in domain: DomainID) -> PlistValue? {
        let found = state.withLock { state -> PlistValue?? in
            guard let slot = state.slot(of: domain) else { return .none }
            return .some(state.domains[slot].values[key])
        }
        if let found { return found }
        guard let slot = presentSlot(domain) else { return nil }
        return state.withLock { $0.domains[slot].values[key] }
    }

    /// A domain's keys and values, or `nil` when it has no values and no file (or its removal is pending).
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` (`.corruptFile`, `.ioFailure`, `.limitExceeded`, `.unavailable`) when the
    ///   domain's file exists but cannot be used and this process has no changes on top of it.
    public func persistentDomain(_ domain: DomainID) throws(PrefsStoreError) -> PlistDictionary? {
        guard let slot = presentSlot(domain) else { return nil }
        let (values, issue, exists) = state.withLock { state in
            // A pending removal counts as no domain, as after the write.
            (
                state.domains[slot].values, state.domains[slot].issue,
                state.domains[slot].identity != nil && state.domains[slot].replacement == nil
            )
        }
        if let issue, values.isEmpty { throw issue }
        return values.isEmpty && !exists ? nil : values
    }

    /// A domain's values with its sequence number, consistent with each other.
    /// A domain's values, `nil` when it does not exist (as ``persistentDomain(_:)`` says), and its sequence number,
    /// read together: a write expecting that sequence succeeds only if the domain is still as read, absent included.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` as ``persistentDomain(_:)`` does.
    package func persistentDomainWithSequence(
        _ domain: DomainID
    ) throws(PrefsStoreError) -> (values: PlistDictionary?, sequence: UInt64) {
        guard let slot = presentSlot(domain) else { return (nil, 0) }
        let (values, sequence, issue, exists) = state.withLock { state in
            (
                state.domains[slot].values, state.domains[slot].sequence, state.domains[slot].issue,
                state.domains[slot].identity != nil && state.domains[slot].replacement == nil
            )
        }
        if let issue, values.isEmpty { throw issue }
        return (values.isEmpty && !exists ? nil : values, sequence)
    }

    public func snapshot(of domain: DomainID) -> StoreSnapshot {
        guard let slot = presentSlot(domain) else { return StoreSnapshot(values: [:], sequence: 0) }
        return state.withLock { StoreSnapshot(values: $0.domains[slot].values, sequence: $0.domains[slot].sequence) }
    }

    /// Why a domain's file cannot be used (corrupt, unreadable, too large), or `nil` when it is fine or missing.
    public func domainIssue(_ domain: DomainID) -> PrefsStoreError? {
        guard let slot = presentSlot(domain) else { return nil }
        return state.withLock { $0.domains[slot].issue }
    }

    /// The last failure writing a domain, until a write succeeds; the changes stay pending and are retried.
    public func writeError(_ domain: DomainID) -> PrefsStoreError? {
        state.withLock { state in state.slots[domain].flatMap { state.domains[$0].flushError } }
    }

    /// The domains that have a file in a scope's directory or unwritten values in this store, sorted.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.ioFailure` when the directory cannot be listed.
    public func domainNames(scope: DomainScope) throws(PrefsStoreError) -> [DomainName] {
        var names = try domainSource.domainNames(in: scope)
        state.withLock { state in
            for domain in state.domains where domain.id.scope == scope && !domain.values.isEmpty {
                names.insert(domain.id.name)
            }
        }
        return names.sorted()
    }

    /// The file that holds a domain.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` for a by-host domain without a machine id, or a scope
    ///   without a directory.
    public func path(for domain: DomainID) throws(PrefsStoreError) -> String {
        try paths.path(for: domain)
    }

    // MARK: Writing

    /// Sets or removes one key of a writable domain.
    /// - Parameters:
    ///   - value: The new value, or `nil` to remove the key.
    ///   - key: The key.
    ///   - domain: A user or by-host domain.
    ///   - origin: Who asks; the daemon passes its client's credentials.
    ///   - expectedSequence: Compare-and-set: change nothing unless the domain's sequence number (that of its
    ///     latest change, see ``snapshot(of:)``) is this one.
    /// - Returns: The domain's sequence number after the change (unchanged when the value was already set).
    /// - Throws: ``/PrefsDomain/PrefsStoreError``: `.readOnlyDomain` naming the file for forced, system and shipped domains;
    ///   `.limitExceeded` naming the limit; `.unavailable` for a by-host domain without a machine id;
    ///   `.versionConflict` when `expectedSequence` is not the domain's sequence number.
    @discardableResult
    public func set(
        _ value: PlistValue?, forKey key: String, in domain: DomainID, origin: ChangeOrigin = .thisProcess,
        expectedSequence: UInt64? = nil
    ) throws(PrefsStoreError) -> UInt64 {
        try checkWritable(domain)
        try checkKey(key, value: value, in: domain)
        if case .committing(let committing) = source {
            return try commit(
                .value(value, forKey: key), to: domain, via: committing, origin: origin,
                expectedVersion: expectedSequence)
        }
        let maxDomainBytes = configuration.limits.maxDomainBytes
        var outcome: WriteOutcome?
        while outcome == nil {
            outcome = try state.withLock { state throws(PrefsStoreError) -> WriteOutcome? in
                guard let slot = state.slot(of: domain) else { return nil }
                try checkSequence(
                    expectedSequence, of: state.domains[slot].sequence, at: state.domains[slot].location, in: domain)
                switch state.setValue(value, forKey: key, slot: slot, origin: origin, maxDomainBytes: maxDomainBytes) {
                case .applied(let wake):
                    return WriteOutcome(
                        wakeWorker: wake, deliver: state.endBatch(), sequence: state.domains[slot].sequence)
                case .tooLarge(let size): throw domainTooLarge(domain, size: size)
                }
            }
            if outcome == nil { _ = loadDomain(domain) }
        }
        guard let outcome else { return 0 }
        finish(outcome)
        return outcome.sequence
    }

    /// Sets and removes several keys of one domain as one change: all or none, one event batch, one write.
    /// - Parameters:
    ///   - changes: New values by key; a `nil` value removes the key.
    ///   - domain: A user or by-host domain.
    ///   - origin: Who asks.
    ///   - expectedSequence: Compare-and-set, as in ``set(_:forKey:in:origin:expectedSequence:)``.
    /// - Returns: The domain's sequence number after the change.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` as ``set(_:forKey:in:origin:expectedSequence:)``; nothing changes when it
    ///   throws.
    @discardableResult
    public func setMany(
        _ changes: [PlistKey: PlistValue?], in domain: DomainID, origin: ChangeOrigin = .thisProcess,
        expectedSequence: UInt64? = nil
    ) throws(PrefsStoreError) -> UInt64 {
        try checkWritable(domain)
        for (key, value) in changes { try checkKey(key.string, value: value, in: domain) }
        if case .committing(let committing) = source {
            return try commit(
                .values(changes), to: domain, via: committing, origin: origin, expectedVersion: expectedSequence)
        }
        let ordered = changes.sorted { $0.key < $1.key }.map { (key: $0.key.string, value: $0.value) }
        let slot = loadDomain(domain)
        let outcome = try state.withLock { state throws(PrefsStoreError) -> WriteOutcome in
            try checkSequence(
                expectedSequence, of: state.domains[slot].sequence, at: state.domains[slot].location, in: domain)
            return try applyChanges(ordered, slot: slot, in: &state, domain: domain, origin: origin)
        }
        finish(outcome)
        return outcome.sequence
    }

    /// Applies key changes to a loaded domain as one batch, within the domain size limit.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.limitExceeded`; nothing changes.
    func applyChanges(
        _ ordered: [(key: String, value: PlistValue?)], slot: Int, in state: inout StoreState, domain: DomainID,
        origin: ChangeOrigin
    ) throws(PrefsStoreError) -> WriteOutcome {
        var delta = 0
        for (key, value) in ordered {
            let old = state.domains[slot].values[key]
            delta += (value.map { PlistValue.estimatedEntrySize(key: key, value: $0, depth: 1) } ?? 0)
            delta -= (old.map { PlistValue.estimatedEntrySize(key: key, value: $0, depth: 1) } ?? 0)
        }
        let size = state.domains[slot].estimatedSize + delta
        if delta > 0, size > configuration.limits.maxDomainBytes { throw domainTooLarge(domain, size: size) }
        let wake = state.applyLocalChanges(ordered, slot: slot, origin: origin, sizeDelta: delta)
        return WriteOutcome(wakeWorker: wake, deliver: state.endBatch(), sequence: state.domains[slot].sequence)
    }

    /// Replaces a domain's contents.
    /// - Parameters:
    ///   - values: The new contents; empty removes the domain's file when written.
    ///   - domain: A user or by-host domain.
    ///   - origin: Who asks.
    ///   - expectedSequence: Compare-and-set, as in ``set(_:forKey:in:origin:expectedSequence:)``.
    /// - Returns: The domain's sequence number after the change.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` as ``set(_:forKey:in:origin:expectedSequence:)``.
    @discardableResult
    public func setPersistentDomain(
        _ values: PlistDictionary, for domain: DomainID, origin: ChangeOrigin = .thisProcess,
        expectedSequence: UInt64? = nil
    ) throws(PrefsStoreError) -> UInt64 {
        try checkWritable(domain)
        var size = PlistValue.estimatedDocumentOverhead
        for (key, value) in values {
            try checkKey(key, value: value, in: domain)
            size += PlistValue.estimatedEntrySize(key: key, value: value, depth: 1)
        }
        if size > configuration.limits.maxDomainBytes { throw domainTooLarge(domain, size: size) }
        if case .committing(let committing) = source {
            return try commit(
                .replacement(values), to: domain, via: committing, origin: origin, expectedVersion: expectedSequence)
        }
        let slot = loadDomain(domain)
        let outcome = try state.withLock { state throws(PrefsStoreError) -> WriteOutcome in
            try checkSequence(
                expectedSequence, of: state.domains[slot].sequence, at: state.domains[slot].location, in: domain)
            let wake = state.applyReplacement(values, slot: slot, origin: origin)
            return WriteOutcome(wakeWorker: wake, deliver: state.endBatch(), sequence: state.domains[slot].sequence)
        }
        finish(outcome)
        return outcome.sequence
    }

    /// Removes every key of a domain; its file is deleted when the change is written.
    /// - Parameters:
    ///   - domain: A user or by-host domain.
    ///   - origin: Who asks.
    ///   - expectedSequence: Compare-and-set, as in ``set(_:forKey:in:origin:expectedSequence:)``.
    /// - Returns: The domain's sequence number after the change.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.readOnlyDomain`, `.unavailable` or `.versionConflict`.
    @discardableResult
    public func removePersistentDomain(
        _ domain: DomainID, origin: ChangeOrigin = .thisProcess, expectedSequence: UInt64? = nil
    ) throws(PrefsStoreError) -> UInt64 {
        try setPersistentDomain([:], for: domain, origin: origin, expectedSequence: expectedSequence)
    }

    // MARK: Volatile layers

    /// Adds defaults to this store's registration layer, searched last; they are never written.
    ///
    /// A key registered again takes the new value.
    public func register(defaults: PlistDictionary) {
        let deliver = state.withLock { state in
            state.register(defaults)
            return state.endBatch()
        }
        if deliver { deliverQueued() }
    }

    /// The defaults registered with ``register(defaults:)``.
    public var registeredDefaults: PlistDictionary {
        state.withLock { $0.registered }
    }

    /// Replaces the volatile argument domain, searched by search lists that include it; it is never written.
    ///
    /// `Preferences.parseArguments(_:)`, in the `Preferences` module, turns `-key value` command-line pairs into such
    /// a dictionary.
    public func setArgumentDomain(_ values: PlistDictionary) {
        let deliver = state.withLock { state in
            state.setArguments(values)
            return state.endBatch()
        }
        if deliver { deliverQueued() }
    }

    /// The volatile argument domain.
    public var argumentDomain: PlistDictionary {
        state.withLock { $0.arguments }
    }

    // MARK: Helpers

    /// What a write leaves to do once the lock is released.
    struct WriteOutcome {
        var wakeWorker: Bool
        var deliver: Bool
        /// The domain's sequence number after the write.
        var sequence: UInt64 = 0
    }

    func finish(_ outcome: WriteOutcome) {
        if outcome.wakeWorker { startedWorker()?.wake() }
        if outcome.deliver { deliverQueued() }
    }

    /// Whether the store's worker has started (``workerStart``).
    enum WorkerStart: Sendable {
        /// Not yet: it starts on the store's first flush deadline.
        case pending
        /// Started.
        case running(StoreWorker)
        /// Never: the store is in memory, or the worker's descriptors could not be made (that was reported).
        case never
    }

    /// The worker, if it has started.
    var worker: StoreWorker? {
        workerStart.withLock { start in
            guard case .running(let worker) = start else { return nil }
            return worker
        }
    }

    /// Whether the worker thread has started; a store that does not watch files starts it on its first flush
    /// deadline only.
    package var hasStartedWorker: Bool { worker != nil }

    /// The worker, started first if it has not been.
    func startedWorker() -> StoreWorker? {
        let (worker, started, problem) = workerStart.withLock {
            start -> (worker: StoreWorker?, started: Bool, problem: PrefsStoreError?) in
            switch start {
            case .running(let worker): return (worker, false, nil)
            case .never: return (nil, false, nil)
            case .pending:
                let made = StoreWorker.start(
                    paths: paths, watchesFiles: configuration.watchesFiles,
                    watchesFleetCache: configuration.watchesFleetCache)
                start = made.worker.map { .running($0) } ?? .never
                return (made.worker, made.worker != nil, made.problem)
            }
        }
        // Outside the lock: the diagnostics handler may call the store. A wake sent meanwhile waits in the channel.
        if let problem { configuration.diagnostics(StoreDiagnostic(severity: .warning, domain: nil, error: problem)) }
        if started, let worker { worker.run(for: self) }
        return worker
    }

    /// Starts or wakes the worker when a write is scheduled or a file is to be read again (a failed write's retry, a
    /// file caught half-written), which a synchronous write or read may leave behind.
    func wakeWorkerIfScheduled() {
        let scheduled = state.withLock { state in
            state.unsettledRecheck != nil || state.domains.contains { $0.flushDeadline != nil }
        }
        if scheduled { startedWorker()?.wake() }
    }

    func checkWritable(_ domain: DomainID) throws(PrefsStoreError) {
        guard domain.scope.isWritable else {
            let path = (try? paths.path(for: domain)) ?? "its \(domain.scope) directory"
            throw PrefsStoreError(
                .readOnlyDomain,
                "domain \(domain.name) is read-only in the \(domain.scope) layer: \(path) is changed by its owner only",
                path: try? paths.path(for: domain))
        }
        // Only a by-host domain can lack a file location: it needs the machine id.
        if domain.scope == .byHost, paths.machineID == nil { _ = try paths.location(of: domain) }
        if case .scheduled(let scheduled) = source { try scheduled.checkWritable(domain) }
    }

    func checkKey(_ key: String, value: PlistValue?, in domain: DomainID) throws(PrefsStoreError) {
        if let value, let schema = configuration.schema(for: domain.name),
            let problem = schema.problem(key: key, value: value)
        {
            throw PrefsStoreError(.invalidValue, "setting " + problem + "; nothing was changed")
        }
        let limits = configuration.limits
        if key.utf8.count > limits.maxKeyBytes {
            throw PrefsStoreError(
                .limitExceeded,
                "key of \(key.utf8.count) bytes in domain \(domain) exceeds the key length limit "
                    + "(maxKeyBytes = \(limits.maxKeyBytes))")
        }
        if let value, value.depth > limits.maxDepth {
            throw PrefsStoreError(
                .limitExceeded,
                "value for key \(key) in domain \(domain) is nested \(value.depth) deep, beyond the depth limit "
                    + "(maxDepth = \(limits.maxDepth))")
        }
    }

    /// Compare-and-set: the domain's sequence number against the expected one. Takes the two fields it needs, not the
    /// domain's state, which would be copied for every write.
    private func checkSequence(
        _ expected: UInt64?, of sequence: UInt64, at location: @autoclosure () -> FileLocation?, in domain: DomainID
    ) throws(PrefsStoreError) {
        guard let expected, expected != sequence else { return }
        throw PrefsStoreError(
            .versionConflict,
            "domain \(domain) is at version \(sequence), not the expected \(expected): it changed since it was read",
            path: location().map { $0.directory + "/" + $0.fileName })
    }

    func domainTooLarge(_ domain: DomainID, size: Int) -> PrefsStoreError {
        PrefsStoreError(
            .limitExceeded,
            "domain \(domain) would grow to about \(size) bytes, beyond the domain size limit "
                + "(maxDomainBytes = \(configuration.limits.maxDomainBytes))",
            path: try? paths.path(for: domain))
    }
}
