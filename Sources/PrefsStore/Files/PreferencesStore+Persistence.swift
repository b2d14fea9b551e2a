// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Synchronization

/// State of the file work lock: what the watcher remembers between batches of inotify events.
struct FileWorkState {
    /// Names moved away, by inotify cookie, to recognise a store's temp file renamed into place.
    var moveSources: [UInt32: String] = [:]
}

extension PreferencesStore {
    /// Writes every domain with unwritten changes and reads in changes other processes made on disk.
    ///
    /// Returns only after every write is durable (`fsync`ed, directory included).
    /// - Parameter caller: Who waits for the changes to be durable. When given, a domain that cannot be written
    ///   loses that writer's unwritten changes (they are withdrawn, with change events, and never written later):
    ///   a failed synchronize leaves nothing of the caller's behind. Without it, the failed changes stay pending
    ///   and are retried, as a background write's are.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` for the first domain that could not be written; the others are still
    ///   written.
    public func synchronize(withdrawingOnFailure caller: ChangeOrigin? = nil) throws(PrefsStoreError) {
        var firstError: PrefsStoreError?
        _ = worker?.rewatchIfNeeded()  // every loaded domain is re-read below anyway
        fileWork.withLock { work in
            for slot in state.withLock({ $0.dirtySlots }) {
                do throws(PrefsStoreError) {
                    try flush(slot: slot, &work, withdrawingOnFailure: caller)
                } catch {
                    firstError = firstError ?? error
                }
            }
            let count = state.withLock { $0.domains.count }
            for slot in 0..<count { reloadIfChanged(slot: slot, origin: .external, &work) }
        }
        wakeWorkerIfScheduled()
        deliverQueued()
        if let firstError { throw firstError }
    }

    /// Writes one domain's unwritten changes durably and reads in changes made to it on disk.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` when the domain cannot be written; its changes stay pending.
    public func synchronize(_ domain: DomainID) throws(PrefsStoreError) {
        // A domain that is not loaded and has no file has nothing to write or read in.
        guard let slot = presentSlot(domain) else { return }
        var failure: PrefsStoreError?
        fileWork.withLock { work in
            do throws(PrefsStoreError) {
                try flush(slot: slot, &work)
            } catch {
                failure = error
            }
            reloadIfChanged(slot: slot, origin: .external, &work)
        }
        wakeWorkerIfScheduled()
        deliverQueued()
        if let failure { throw failure }
    }

    /// How many times the store replaced or removed a domain file.
    var writeCount: Int { writes.load(ordering: .relaxed) }

    /// How many domains the store holds in memory (each stays loaded once used, and is watched from then on).
    package var loadedDomainCount: Int { state.withLock { $0.domains.count } }

    /// Loads a domain on first use and returns its slot.
    func loadDomain(_ domain: DomainID) -> Int {
        if let slot = state.withLock({ $0.slots[domain] }) { return slot }
        let (slot, deliver) = fileWork.withLock { _ -> (Int, Bool) in
            if let slot = state.withLock({ $0.slots[domain] }) { return (slot, false) }
            var loaded: DomainState
            do throws(PrefsStoreError) {
                // An in-memory domain has no file: it starts empty and is never read back.
                if isInMemory { return state.withLock { ($0.install(DomainState(id: domain)), false) } }
                let location = try paths.location(of: domain)
                loaded = DomainState(id: domain, location: location, locationError: nil)
                loaded.adopt(
                    DomainFile.load(
                        location, domain: domain, codec: codec, limits: configuration.limits,
                        home: paths.homeDirectory))
                watchLinkTarget(of: domain, at: location)
                // Version 0 means "no file, never changed", which is also what a read of a domain that is not loaded
                // answers (``presentSlot(_:)``); a file found at load is content that version 0 must not stand for,
                // or a compare-and-set based on that read would overwrite it.
                if loaded.identity != nil { loaded.sequence = 1 }
            } catch {
                loaded = DomainState(id: domain, location: nil, locationError: error)
            }
            return state.withLock { state in
                // Contents announced for the file stand for it (they may be newer than what was just read).
                if let announced = state.announced[domain] {
                    loaded.disk = announced.values
                    loaded.issue = nil
                    if loaded.sequence == 0 { loaded.sequence = 1 }
                }
                return (state.install(loaded), state.endBatch())
            }
        }
        if deliver { deliverQueued() }
        return slot
    }

    /// The slot of a domain that is loaded, or that has a file (which is then loaded); `nil` for a domain that is
    /// not loaded and has no file.
    ///
    /// Reads go through here, so that reading names that exist nowhere (a client asking for ever new domains) leaves
    /// nothing behind: such a domain reads as empty with version 0 and is not loaded. A domain whose file cannot be
    /// checked is loaded, to report why.
    func presentSlot(_ domain: DomainID) -> Int? {
        let (loaded, announced) = state.withLock { ($0.slot(of: domain), $0.announced[domain] != nil) }
        if let loaded { return loaded }
        if isInMemory { return nil }
        // Contents announced for a file not written yet.
        if announced { return loadDomain(domain) }
        // A read-only layer without a directory (no fleet cache, no system directory) has nothing to load.
        if !domain.scope.isWritable, paths.directory(of: domain.scope) == nil { return nil }
        do {
            if try FileSystem.identity(of: paths.location(of: domain).path, home: paths.homeDirectory) == nil {
                return nil
            }
        } catch {
            // Loading reports what is wrong.
        }
        return loadDomain(domain)
    }

    /// Writes the domains whose flush delay has passed (the worker calls this).
    func flushDueDomains() {
        let rewatched = Set(worker?.rewatchIfNeeded() ?? [])
        fileWork.withLock { work in
            if !rewatched.isEmpty {
                let slots = state.withLock { state in
                    state.domains.indices.filter { rewatched.contains(state.domains[$0].id.scope) }
                }
                for slot in slots { reloadIfChanged(slot: slot, origin: .external, &work) }
            }
            for slot in state.withLock({ $0.takeUnsettledSlots(at: .now) }) {
                reloadIfChanged(slot: slot, origin: .external, &work)
            }
            for slot in state.withLock({ $0.dueSlots(at: .now) }) {
                // A failure is queued as a diagnostic and retried later.
                try? flush(slot: slot, &work)
            }
        }
        deliverQueued()
    }

    /// Writes every unwritten change, reporting failures as diagnostics (at exit and when the store goes away).
    func flushAllReportingErrors() {
        fileWork.withLock { work in
            for slot in state.withLock({ $0.dirtySlots }) {
                try? flush(slot: slot, &work)
            }
        }
        deliverQueued()
    }

    /// Re-reads a loaded domain's file if it is no longer the version the store knows.
    func reloadIfChanged(slot: Int, origin: ChangeOrigin, _ work: inout FileWorkState) {
        let (id, location, knownIdentity, isAnnounced) = state.withLock { state in
            (
                state.domains[slot].id, state.domains[slot].location, state.domains[slot].identity,
                state.announced[state.domains[slot].id] != nil
            )
        }
        guard let location, !isAnnounced else { return }
        do {
            if try FileSystem.identity(of: location.path, home: paths.homeDirectory) == knownIdentity { return }
        } catch {
            // Loading reports what is wrong.
        }
        let contents = DomainFile.load(
            location, domain: id, codec: codec, limits: configuration.limits, home: paths.homeDirectory)
        watchLinkTarget(of: id, at: location)
        state.withLock { state in
            // Announced meanwhile: the announced contents stand for the file, which may lag them.
            if state.announced[id] != nil { return }
            // An editor that rewrites in place truncates first: do not take a half-written file for the domain.
            if contents.isUnsettled(now: FileSystem.currentTimeSince1970()) {
                state.markUnsettled(slot: slot)
            } else {
                state.unsettledSlots.remove(slot)
                // Stores replace files, so a file changed under the same inode was edited in place by someone else,
                // whatever event brought it here (the rename of an earlier write, say).
                var origin = origin
                if let known = knownIdentity, let identity = contents.identity,
                    known.device == identity.device, known.inode == identity.inode
                {
                    origin = .external
                }
                state.applyFileContents(contents, slot: slot, origin: origin)
                _ = state.endBatch()
            }
        }
    }

    /// Watches the target of a domain file that is a symbolic link the store follows, so that a change of the
    /// target (which its own directory reports) reaches the domain; an lstat, only in a store that watches.
    private func watchLinkTarget(of domain: DomainID, at location: FileLocation) {
        guard let worker, worker.watcher != nil else { return }
        let written = FileSystem.writtenLocation(of: location, home: paths.homeDirectory)
        if written != location { worker.watchLinkTarget(written, of: domain) }
    }

    /// Writes one domain if it has unwritten changes; on failure they stay pending and a retry is scheduled, except
    /// those of the writer that waits for this write (`caller`), which are withdrawn.
    /// - Parameters:
    ///   - lockHeld: Whether the caller holds the domain's `flock` already (``update(_:origin:_:)``).
    ///   - caller: The writer of a synchronous write, whose changes a failed write withdraws.
    func flush(
        slot: Int, _ work: inout FileWorkState, lockHeld: Bool = false, withdrawingOnFailure caller: ChangeOrigin? = nil
    ) throws(PrefsStoreError) {
        guard let plan = state.withLock({ $0.takeFlushPlan(slot: slot) }) else { return }
        if isInMemory {
            // Memory is the storage: the changes count as written.
            var written = plan.replacement?.values ?? plan.knownDisk
            for (key, change) in plan.pending { written[key] = change.resolved(on: written[key]) }
            state.withLock { state in
                state.completeFlush(plan, written: written, identity: nil, readOtherWriters: false)
                _ = state.endBatch()
            }
            return
        }
        do {
            let (written, identity, readOtherWriters) = try write(plan, lockHeld: lockHeld)
            state.withLock { state in
                state.completeFlush(plan, written: written, identity: identity, readOtherWriters: readOtherWriters)
                _ = state.endBatch()
            }
        } catch {
            state.withLock { state in
                state.restoreFailedFlush(plan, error: error, withdrawing: caller)
                _ = state.endBatch()
            }
            throw error
        }
    }

    /// The file work of one write, under the domain's lock: merge with the file as it is now, then replace it.
    /// - Returns: What the file holds afterwards, its identity (`nil` when there is no file), and whether the file
    ///   had to be read again because it was not the version the store knew (so other writers' changes are in).
    private func write(
        _ plan: StoreState.FlushPlan, lockHeld: Bool
    ) throws(PrefsStoreError) -> (written: PlistDictionary, identity: FileIdentity?, readOtherWriters: Bool) {
        let id = plan.id
        let location = try paths.location(of: id)
        let lock = lockHeld ? nil : try lockDomain(id)
        defer { if let lock { FileSystem.unlock(lock) } }
        // A link the store follows is written through: its target is replaced in its own directory.
        let written = FileSystem.writtenLocation(of: location, home: paths.homeDirectory)
        let isFollowedLink = written != location
        if plan.checkStaleTemporaryFiles { DomainFile.removeStaleTemporaryFiles(of: written) }

        // Another process may have written since this store last read the file: start from what is there now.
        var onDisk: PlistDictionary = [:]
        var currentIdentity: FileIdentity?
        do {
            currentIdentity = try FileSystem.identity(of: location.path, home: paths.homeDirectory)
        } catch {
            throw PrefsStoreError(
                .ioFailure, "cannot examine the file of domain \(id)", path: location.path, cause: error)
        }
        var setAside = false
        // The file is the version the store knows (or there is none, as the store knows): nothing to merge.
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
                    try setAsideCorruptFile(written, domain: id, error: error)
                    setAside = true
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
        if unchanged && !setAside { return (onDisk, currentIdentity, !isKnownVersion) }
        do {
            // An emptied domain loses its file, but a followed link keeps its target (empty), which the dotfile
            // manager tracks.
            if result.isEmpty && !isFollowedLink {
                try FileSystem.removeFile(location)
                writes.add(1, ordering: .relaxed)
                return ([:], nil, !isKnownVersion)
            }
            let bytes = try encode(result, domain: id, path: written.path)
            let identity = try FileSystem.writeAtomically(bytes, to: written)
            writes.add(1, ordering: .relaxed)
            return (result, identity, !isKnownVersion)
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
    func lockDomain(_ id: DomainID) throws(PrefsStoreError) -> Int32 {
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
        var contents = DomainFile.load(
            location, domain: domain, codec: codec, limits: configuration.limits, home: paths.homeDirectory)
        var attempts = 0
        while attempts < 20, contents.isUnsettled(now: FileSystem.currentTimeSince1970()) {
            FileSystem.sleep(milliseconds: 50)
            contents = DomainFile.load(
                location, domain: domain, codec: codec, limits: configuration.limits, home: paths.homeDirectory)
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
        let limit = configuration.limits.maxDomainBytes
        if bytes.count > limit {
            throw PrefsStoreError(
                .limitExceeded,
                "domain \(domain) encodes to \(bytes.count) bytes, beyond the domain size limit "
                    + "(maxDomainBytes = \(limit))",
                path: path)
        }
        return bytes
    }

    private func setAsideCorruptFile(
        _ location: FileLocation, domain: DomainID, error: PrefsStoreError
    ) throws(PrefsStoreError) {
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
        state.withLock {
            $0.deliveries.append(.diagnostic(StoreDiagnostic(severity: .warning, domain: domain, error: notice)))
        }
    }

    /// Calls observers and the diagnostics handler with what is queued, outside every lock, in order.
    ///
    /// One thread delivers at a time; a thread that finds another delivering leaves its items to it.
    func deliverQueued() {
        while true {
            let items: [StoreState.Delivery]? = state.withLock { state in
                guard !state.isDelivering, !state.deliveries.isEmpty else { return nil }
                state.isDelivering = true
                let items = state.deliveries
                state.deliveries = []
                return items
            }
            guard let items else { return }
            for item in items {
                switch item {
                case .events(let handler, let flag, let events):
                    if !flag.isCancelled { handler(events) }
                case .diagnostic(let diagnostic):
                    configuration.diagnostics(diagnostic)
                }
            }
            state.withLock { $0.isDelivering = false }
        }
    }
}
