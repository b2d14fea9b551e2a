// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX
public import PrefsPlist
import Synchronization

extension PreferencesStore {
    /// How many times ``update(_:origin:maxAttempts:_:)`` reads and computes again by default before it gives up.
    ///
    /// Each failed attempt means another writer committed in between, so N writers racing on one domain need at most
    /// N attempts each; the default leaves room for hundreds.
    public static let defaultUpdateAttempts = 1000

    /// Changes a domain atomically: `body` gets the domain as it is now and edits it, and the edit is committed only
    /// if no other writer (thread, process or hand edit) changed the domain in between; otherwise the domain is read
    /// again and `body` runs again.
    ///
    /// This is how an increment or an append never loses another process's concurrent one. The commit holds the
    /// domain's `flock`, checks that the file is still the version `body` saw, and writes it durably before
    /// returning (temp file, `fsync`, `rename`), so a successful update is on disk. `body` runs with no lock held; it
    /// may run several times, so it must compute its edit from its argument alone. An edit that changes nothing
    /// writes nothing.
    /// - Parameters:
    ///   - domain: A user or by-host domain.
    ///   - origin: Who asks.
    ///   - maxAttempts: How many times to read and compute before giving up.
    ///   - body: Edits the domain's keys and values in place; its result is returned.
    /// - Returns: What `body` returned on the attempt that committed, and the domain's sequence number afterwards.
    /// - Throws: ``/PrefsDomain/PrefsStoreError``: as ``setMany(_:in:origin:expectedSequence:)``; `.ioFailure` when the domain
    ///   cannot be written (no space left, a read-only file system): the edit is then withdrawn, with this `origin`'s
    ///   other unwritten changes of the domain, so nothing of it is seen or written later; `.versionConflict` when
    ///   other writers changed the domain before every one of `maxAttempts` commits.
    @discardableResult
    public func update<Outcome>(
        _ domain: DomainID, origin: ChangeOrigin = .thisProcess, maxAttempts: Int = defaultUpdateAttempts,
        _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsStoreError) -> (outcome: Outcome, sequence: UInt64) {
        try checkWritable(domain)
        let scheduled: any ScheduledDomainSource
        switch source {
        case .committing(let committing):
            return try updateCommitting(domain, via: committing, origin: origin, maxAttempts: maxAttempts, body)
        case .scheduled(let source): scheduled = source
        }
        let slot = loadDomain(domain)
        var backoff = UpdateBackoff()
        for _ in 0..<max(maxAttempts, 1) {
            // The file as it is now, with this store's unwritten changes on top.
            fileWork.withLock { work in reloadIfChanged(slot: slot, origin: .external, &work) }
            deliverQueued()
            let (base, sequence, identity, unreadable) = state.withLock { state in
                let domain = state.domains[slot]
                return (domain.values, domain.sequence, domain.identity, domain.issueIsCorrupt ? nil : domain.issue)
            }
            // A file that cannot be read at all (a symbolic link, a device, no permission) is never replaced: the
            // write would fail, so the update fails now instead of retrying against a file it cannot know.
            if let unreadable { throw unreadable }
            var values = base
            let outcome = body(&values)
            let changes = Self.changes(from: base, to: values)
            if changes.isEmpty { return (outcome, sequence) }
            for (key, value) in changes { try checkKey(key, value: value, in: domain) }
            if let committed = try commit(
                changes, slot: slot, domain: domain, origin: origin, ifSequence: sequence, fileIdentity: identity,
                in: scheduled)
            {
                return (outcome, committed)
            }
            backoff.wait()
        }
        throw PrefsStoreError(
            .versionConflict,
            "domain \(domain) changed under each of \(max(maxAttempts, 1)) attempts to update it; nothing was changed",
            path: try? paths.path(for: domain))
    }

    /// Changes one key as an update: `transform` gets the key's value as this store sees it and returns the new one,
    /// which reads see at once; the domain is written within the flush delay (or at
    /// ``synchronize(withdrawingOnFailure:)``), like a `set`, but the write does not store that value: it replays
    /// `transform` on the key's value in the file as it is then, under the domain's lock. So an increment made here
    /// and one made by another process meanwhile both count, and updates cost what a `set` costs, with no file work
    /// until the write.
    ///
    /// `transform` runs now, under the store's lock, and again at the write (and when another process's change to
    /// the domain is read in before it): it must compute from its argument alone and must not use the store. A
    /// transform that changes nothing now is not kept.
    /// - Parameters:
    ///   - key: The key.
    ///   - domain: A user or by-host domain.
    ///   - origin: Who asks.
    ///   - transform: The key's new value from its current one (`nil`: absent, or remove).
    /// - Returns: The key's new value as this store sees it now, and the domain's sequence number.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` as ``set(_:forKey:in:origin:expectedSequence:)``; nothing changes.
    @discardableResult
    public func update(
        forKey key: String, in domain: DomainID, origin: ChangeOrigin = .thisProcess,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsStoreError) -> (value: PlistValue?, sequence: UInt64) {
        try checkWritable(domain)
        try checkKey(key, value: nil, in: domain)
        if case .committing(let committing) = source {
            return try updateCommitting(key: key, in: domain, via: committing, origin: origin, transform)
        }
        let slot = loadDomain(domain)
        let maxDepth = configuration.limits.maxDepth
        let maxDomainBytes = configuration.limits.maxDomainBytes
        let (value, outcome) = try state.withLock { state throws(PrefsStoreError) -> (PlistValue?, WriteOutcome?) in
            let old = state.domains[slot].values[key]
            let new = transform(old)
            if new == old { return (old, nil) }
            if let new, new.depth > maxDepth { try checkKey(key, value: new, in: domain) }
            let delta =
                (new.map { PlistValue.estimatedEntrySize(key: key, value: $0, depth: 1) } ?? 0)
                - (old.map { PlistValue.estimatedEntrySize(key: key, value: $0, depth: 1) } ?? 0)
            let size = state.domains[slot].estimatedSize + delta
            if delta > 0, size > maxDomainBytes { throw domainTooLarge(domain, size: size) }
            let wake = state.applyUpdate(transform, forKey: key, to: new, slot: slot, origin: origin, sizeDelta: delta)
            return (
                new,
                WriteOutcome(wakeWorker: wake, deliver: state.endBatch(), sequence: state.domains[slot].sequence)
            )
        }
        guard let outcome else { return (value, snapshot(of: domain).sequence) }
        finish(outcome)
        return (value, outcome.sequence)
    }

    /// Commits an update's changes if the domain is still at `sequence` and its file still `fileIdentity`: under the
    /// domain's lock, the changes are applied and the domain is written at once; a failed write withdraws `origin`'s
    /// changes.
    /// - Returns: The sequence number after the commit, or `nil` when another writer came first.
    private func commit(
        _ changes: [(key: String, value: PlistValue?)], slot: Int, domain: DomainID, origin: ChangeOrigin,
        ifSequence sequence: UInt64, fileIdentity: FileIdentity?, in source: any ScheduledDomainSource
    ) throws(PrefsStoreError) -> UInt64? {
        let committed: WriteOutcome?
        do throws(PrefsStoreError) {
            committed = try fileWork.withLock { work throws(PrefsStoreError) -> WriteOutcome? in
                try source.withDomainLock(domain) { () throws(PrefsStoreError) -> WriteOutcome? in
                    // Every writer holds the lock and replaces the file (a new inode); a hand edit changes its size
                    // or time.
                    let location = state.withLock { $0.domains[slot].location }
                    let current = try location.flatMap { location throws(PrefsStoreError) in
                        try source.identity(at: location, of: domain)
                    }
                    guard current == fileIdentity else { return nil }
                    let outcome = try state.withLock { state throws(PrefsStoreError) -> WriteOutcome? in
                        guard state.domains[slot].sequence == sequence, state.domains[slot].identity == fileIdentity
                        else { return nil }
                        return try applyChanges(changes, slot: slot, in: &state, domain: domain, origin: origin)
                    }
                    guard let outcome else { return nil }
                    try flush(slot: slot, &work, lockHeld: true, withdrawingOnFailure: origin)
                    return outcome
                }
            }
        } catch {
            // A failed write withdrew the change: its events and those taking it back go out before the error.
            deliverQueued()
            throw error
        }
        guard let outcome = committed else { return nil }
        finish(WriteOutcome(wakeWorker: false, deliver: true, sequence: outcome.sequence))
        return outcome.sequence
    }

    /// The key changes that turn `old` into `new`, sorted by key.
    package static func changes(
        from old: PlistDictionary, to new: PlistDictionary
    ) -> [(key: String, value: PlistValue?)] {
        var changes: [(key: String, value: PlistValue?)] = []
        var keptKeys = 0
        for (key, value) in new.storage {
            if let oldValue = old.storage[key] {
                keptKeys += 1
                if oldValue == value { continue }
            }
            changes.append((key.string, value))
        }
        // A key of `old` is gone only when fewer of them were found in `new` than `old` has: one lookup per key then.
        if keptKeys < old.count {
            for key in old.storage.keys where new.storage[key] == nil { changes.append((key.string, nil)) }
        }
        return changes.sorted { PlistKey($0.key) < PlistKey($1.key) }
    }
}

/// The pause between two attempts of an update that lost a race: short and randomised, growing with each loss, so
/// that writers racing on one domain spread out instead of colliding again.
package struct UpdateBackoff {
    private var losses = 0

    /// A backoff that has not waited yet.
    package init() {}

    /// Sleeps a random time up to a ceiling that doubles with each call, from 0.2 ms to 5 ms.
    package mutating func wait() {
        losses += 1
        let ceiling = min(1 << min(losses, 6), 50) * 100  // microseconds: 0.2 ms doubling to 5 ms
        POSIX.sleep(microseconds: Int.random(in: 0...ceiling))
    }
}
