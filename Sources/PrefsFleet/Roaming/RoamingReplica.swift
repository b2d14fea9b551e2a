// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
package import PrefsPlist
package import PrefsStore

/// This host's side of one roaming user domain: the last version read from etcd (the base) and the local changes
/// not yet in etcd (pending), each stamped with when it was made (docs/FLEET.md, "Roaming user domains").
///
/// The local domain's values are always the base with the pending changes laid over it. A local edit is found by
/// comparing the domain with that; it becomes a pending change stamped with the time it was found. A version from
/// etcd replaces the base; a pending change survives it unless etcd changed the same key since the base and that
/// change is newer. What is pending is pushed as base + pending with a compare on the base's `mod_revision`, so a
/// push never overwrites a version this host has not merged.
///
/// The state is kept in `<prefs>/Fleet/roaming/<domain>.plist`, so changes made offline, or while prefsd was stopped,
/// are pushed when etcd can be reached again.
package struct RoamingReplica: Sendable {
    /// The domain.
    package let domain: DomainName
    /// Its etcd key.
    package let key: String
    /// This host's machine id, stamped on its changes.
    package let host: String
    /// The state file.
    package let statePath: String
    /// The last version read from etcd (or pushed).
    package private(set) var base = RoamingDocument()
    /// The `mod_revision` of ``base`` in etcd; 0 when the key does not exist there (yet).
    package private(set) var baseRevision: Int64 = 0
    /// The local changes not yet in etcd, by key.
    package private(set) var pending: [String: RoamingDocument.Entry] = [:]

    /// How long a removal is remembered in etcd (90 days): a host offline for longer that still has the key pushes
    /// it back.
    package static let tombstoneLifetime: Double = 90 * 86_400

    /// Creates the replica of one domain; ``load()`` reads its state.
    package init(domain: DomainName, key: String, host: String, directory: String) {
        self.domain = domain
        self.key = key
        self.host = host
        self.statePath = directory + "/" + (domain.isGlobal ? ".GlobalPreferences" : domain.rawValue) + ".plist"
    }

    /// The values the local domain holds when it is in step: the base with the pending changes over it.
    package var expectedValues: PlistDictionary {
        var values = base.values
        for (key, entry) in pending { values[key] = entry.value }
        return values
    }

    /// Reads the state an earlier run left.
    /// - Returns: A sentence for the log when the state file was unreadable or malformed and ignored (the domain's
    ///   values are then all taken as local changes, and merged key by key with etcd's version).
    package mutating func load(maxKeyBytes: Int) -> String? {
        let bytes: [UInt8]
        do {
            bytes = try POSIX.readFile(statePath, maxBytes: 64 << 20)
        } catch  where error.errno == 2 {  // ENOENT: never synchronized.
            return nil
        } catch {
            return "cannot read the roaming state \(statePath) (\(error)); the domain is merged with etcd again"
        }
        guard case .dictionary(let state)? = try? PlistSerialization.decode(bytes),
            case .integer(let number)? = state["BaseRevision"], let revision = number.int64Value,
            let baseValue = state["Base"],
            case .success(let base) = RoamingDocument.document(
                from: baseValue, maxKeyBytes: maxKeyBytes),
            let pendingValue = state["Pending"],
            case .success(let pending) = RoamingDocument.document(
                from: pendingValue, maxKeyBytes: maxKeyBytes)
        else {
            return "the roaming state \(statePath) is malformed; the domain is merged with etcd again"
        }
        self.base = base
        self.baseRevision = revision
        self.pending = pending.entries
        return nil
    }

    /// Writes the state atomically (temp file, `fsync`, `rename`, `fsync` of the directory).
    /// - Throws: ``EtcdError`` with code `unavailable` when it cannot be written.
    package func save() throws(EtcdError) {
        let state: PlistValue = .dictionary([
            "BaseRevision": .integer(.init(baseRevision)), "Base": base.fileValue,
            "Pending": RoamingDocument(entries: pending).fileValue,
        ])
        do {
            try POSIX.makeDirectory(TemporaryFileName.directory(ofPath: statePath), mode: 0o700)
            try POSIX.writeFileAtomically(
                try PlistSerialization.encode(state, format: .binary), to: statePath, newFileMode: 0o600,
                keepsExistingMode: false, directorySyncIsRequired: true)
        } catch {
            throw EtcdError(.unavailable, "cannot write the roaming state \(statePath): \(error)")
        }
    }

    /// Takes in the local domain's values: every key that differs from ``expectedValues`` becomes a pending change
    /// stamped `now`, or just after the stamp of the version it replaces when this host's clock is behind it (the
    /// edit was made after that version was seen, so it is newer whatever the clocks say).
    /// - Returns: Whether anything new is pending.
    @discardableResult
    package mutating func noteLocal(_ values: PlistDictionary, now: PlistDate) -> Bool {
        let expected = expectedValues
        var changed = false
        for key in Set(values.keys).union(expected.keys) where values[key] != expected[key] {
            var stamp = now
            if let seen = pending[key] ?? base.entries[key], seen.modified >= stamp {
                stamp = PlistDate(secondsSinceReferenceDate: seen.modified.secondsSinceReferenceDate + 0.001)
            }
            pending[key] = RoamingDocument.Entry(value: values[key], modified: stamp, host: host)
            changed = true
        }
        dropPendingThatMatchBase()
        return changed
    }

    /// Takes in etcd's version (from a watch, a range read or a failed compare), `nil` when the key does not exist.
    ///
    /// For each pending change, when etcd's version changed the same key since the base and its change is newer,
    /// etcd's wins and the pending change is dropped; otherwise the pending change stays, to be pushed. A key etcd
    /// lost altogether (the etcd key was deleted) is never dropped here: the base's keys become pending again.
    /// A version no newer than the base is ignored (a push's own echo, say).
    /// - Returns: Whether anything changed.
    @discardableResult
    package mutating func receive(_ remote: RoamingDocument?, modRevision: Int64) -> Bool {
        guard let remote else {
            guard baseRevision != 0 else { return false }
            // The etcd key was deleted: keep every key, and push them again.
            for (key, entry) in base.entries where pending[key] == nil { pending[key] = entry }
            base = RoamingDocument()
            baseRevision = 0
            return true
        }
        guard modRevision > baseRevision else { return false }
        for (key, mine) in pending {
            guard let theirs = remote.entries[key], theirs != base.entries[key] else { continue }
            if theirs.isNewer(than: mine) { pending[key] = nil }
        }
        base = remote
        baseRevision = modRevision
        dropPendingThatMatchBase()
        return true
    }

    /// Records that a version from etcd could not be used (not a roaming document, too large): the base stays, and
    /// the next push replaces that version (its compare is on `modRevision`).
    package mutating func refuse(modRevision: Int64) {
        if modRevision > baseRevision { baseRevision = modRevision }
    }

    /// What to push: the base with the pending changes over it, without tombstones older than
    /// ``tombstoneLifetime``; `nil` when nothing is pending.
    package func outgoing(now: PlistDate) -> RoamingDocument? {
        guard !pending.isEmpty else { return nil }
        var document = base
        for (key, entry) in pending { document.entries[key] = entry }
        return document.droppingTombstones(
            before: PlistDate(secondsSinceReferenceDate: now.secondsSinceReferenceDate - Self.tombstoneLifetime))
    }

    /// Records a successful push of `document` (from ``outgoing(now:)``) at `modRevision`.
    package mutating func pushed(_ document: RoamingDocument, modRevision: Int64) {
        base = document
        baseRevision = modRevision
        pending = [:]
    }

    /// A pending change that says what the base says (the same value, or a removal of a key the base does not have)
    /// has nothing to push.
    private mutating func dropPendingThatMatchBase() {
        for (key, entry) in pending where entry.value == base.entries[key]?.value { pending[key] = nil }
    }
}
