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
        // A committing source has every change already: it makes them durable.
        if case .committing(let committing) = source { return try committing.synchronize() }
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
        if case .committing(let committing) = source { return try committing.synchronize() }
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
        // Outside the file work: a committing source reports the snapshots it takes, and a report waits for it.
        if case .committing(let committing) = source { committing.prepare([domain]) }
        let (slot, deliver) = fileWork.withLock { _ -> (Int, Bool) in
            if let slot = state.withLock({ $0.slots[domain] }) { return (slot, false) }
            var loaded = DomainState(id: domain)
            switch source {
            case .scheduled(let scheduled):
                let load = scheduled.load(domain)
                loaded = DomainState(id: domain, location: load.location, locationError: load.locationError)
                loaded.adopt(load.contents)
                if let location = load.location { watchLinkTarget(of: domain, at: location) }
                // Version 0 means "no file, never changed", which is also what a read of a domain that is not
                // loaded answers (``presentSlot(_:)``); a file found at load is content that version 0 must not
                // stand for, or a compare-and-set based on that read would overwrite it.
                if loaded.identity != nil { loaded.sequence = 1 }
            case .committing(let committing):
                let snapshot = committing.snapshot(of: domain)
                loaded.disk = snapshot.values
                loaded.storedVersion = snapshot.version
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
    /// checked is loaded, to report why. A committing source is asked to prepare the domain each time, so that one
    /// that lost its storage (prefsd restarted) takes it up again on the next read.
    func presentSlot(_ domain: DomainID) -> Int? {
        if case .committing(let committing) = source { committing.prepare([domain]) }
        let (loaded, announced) = state.withLock { ($0.slot(of: domain), $0.announced[domain] != nil) }
        if let loaded { return loaded }
        // Contents announced for a file not written yet.
        if announced || domainSource.mayHold(domain) { return loadDomain(domain) }
        return nil
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
        guard let location, !isAnnounced, case .scheduled(let scheduled) = source else { return }
        do throws(PrefsStoreError) {
            if try scheduled.identity(at: location, of: id) == knownIdentity { return }
        } catch {
            // Loading reports what is wrong.
        }
        let contents = scheduled.reload(location, domain: id)
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
        // A committing source has every change already.
        guard case .scheduled(let scheduled) = source,
            let plan = state.withLock({ $0.takeFlushPlan(slot: slot) })
        else { return }
        do {
            let write = try scheduled.write(plan, lockHeld: lockHeld)
            if write.replacedFile { writes.add(1, ordering: .relaxed) }
            state.withLock { state in
                state.deliveries += write.notices.map { .diagnostic($0) }
                state.completeFlush(
                    plan, written: write.written, identity: write.identity, readOtherWriters: write.readOtherWriters)
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
