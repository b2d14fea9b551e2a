// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist

/// What the store knows of one loaded domain: its file as last read or written, this process's changes not yet
/// written, and the merge of the two that reads see.
struct DomainState {
    /// A change made in this process and not yet written; `serial` tells a newer change to the same key apart.
    ///
    /// A `set` makes the key's value `value`. An update (``PreferencesStore/update(forKey:in:origin:_:)``) records
    /// its transform instead: when the base is the file (`value` is `nil` and `isSet` false), the transforms are
    /// replayed at the write on the key's value in the file as it is then, under the domain's lock, so another
    /// process's change to the key in between is built on, never overwritten.
    struct PendingChange {
        /// The value set here (the base of the updates after it), when ``isSet``.
        var value: PlistValue?
        var serial: UInt64
        /// Whether a value was set here; otherwise the updates apply to the file's value.
        var isSet = true
        /// The updates made since the key was last set here (or since its last write), in order.
        var updates: [KeyUpdate] = []
        /// The serial of the set (or first update) that began this run of updates: a write that took the run's first
        /// updates leaves the later ones pending.
        var runSerial: UInt64
        /// Who made the latest change: a synchronous write that fails withdraws its caller's pending changes.
        var origin: ChangeOrigin
        /// For an in-memory cache of another store (a daemon client's), the version of the domain there that this
        /// change produced; the cache's stored contents of that version or later include it (or something newer).
        var version: UInt64?

        /// A value set in this process.
        init(value: PlistValue?, serial: UInt64, origin: ChangeOrigin) {
            self.value = value
            self.serial = serial
            self.runSerial = serial
            self.origin = origin
        }

        /// An update of the key's value in the file.
        init(update: @escaping KeyUpdate, serial: UInt64, origin: ChangeOrigin) {
            self.value = nil
            self.serial = serial
            self.isSet = false
            self.updates = [update]
            self.runSerial = serial
            self.origin = origin
        }

        /// The key's value once this change is applied to `current`, its value without it (in the file, or in the
        /// replacement that precedes it).
        func resolved(on current: PlistValue?) -> PlistValue? {
            var result = isSet ? value : current
            for update in updates { result = update(result) }
            return result
        }
    }

    /// A pending update of one key: its new value from its current one.
    typealias KeyUpdate = @Sendable (PlistValue?) -> PlistValue?

    /// A whole-domain replacement (`setPersistentDomain`, `removePersistentDomain`) not yet written.
    struct PendingReplacement {
        var values: PlistDictionary
        var serial: UInt64
        /// Who replaced the domain.
        var origin: ChangeOrigin
        /// As ``PendingChange/version``.
        var version: UInt64?
    }

    /// An effective view whose search list includes this domain, at `position` in its layers.
    ///
    /// A class, so that walking the links copies a strong reference rather than a (costlier) weak one.
    final class ViewLink: Sendable {
        weak let view: EffectiveView?
        let position: Int

        init(view: EffectiveView, position: Int) {
            self.view = view
            self.position = position
        }
    }

    let id: DomainID
    /// The domain's file, or `nil` when it has none (by-host without a machine id, a scope without a directory).
    let location: FileLocation?
    /// Why ``location`` is `nil`.
    let locationError: PrefsStoreError?

    /// What reads see: ``disk`` (or ``replacement``) with ``pending`` applied.
    var values: PlistDictionary = [:]
    /// The file's dictionary as last read or written (empty when the file is missing or broken).
    var disk: PlistDictionary = [:]
    /// The identity of the file ``disk`` came from; `nil` when there is no file.
    var identity: FileIdentity?
    /// Why the file could not be used; reads then skip it.
    var issue: PrefsStoreError?
    /// Whether ``issue`` is a corrupt file, which the next write sets aside.
    var issueIsCorrupt = false

    var pending: [PlistKey: PendingChange] = [:]
    var replacement: PendingReplacement?
    var nextSerial: UInt64 = 1
    /// The per-domain event counter.
    var sequence: UInt64 = 0
    /// For an in-memory cache of another store, the version of the domain there that ``disk`` is: local changes of
    /// that version or earlier are in it (``PreferencesStore/setStoredContents(_:of:version:startsOver:origin:)``).
    var storedVersion: UInt64 = 0
    /// An upper bound on the encoded size of ``values``.
    var estimatedSize = PlistValue.estimatedDocumentOverhead

    /// When the pending changes must be written; `nil` when there are none waiting.
    var flushDeadline: Deadline?
    /// Consecutive failed writes, for backing off.
    var failedFlushes = 0
    /// The last write's failure, until a write succeeds.
    var flushError: PrefsStoreError?
    /// Whether stale temp files of this domain have been looked for.
    var checkedStaleTemporaryFiles = false

    var viewLinks: [ViewLink] = []

    /// A domain without a file, as an in-memory store keeps.
    init(id: DomainID) {
        self.init(id: id, location: nil, locationError: nil)
    }

    init(id: DomainID, location: FileLocation?, locationError: PrefsStoreError?) {
        self.id = id
        self.location = location
        self.locationError = locationError
    }

    /// Whether this process has changes for the domain that are not on disk yet.
    var hasUnwrittenChanges: Bool { !pending.isEmpty || replacement != nil }

    /// The merge reads see: the replacement or the file, with the pending key changes on top.
    func mergedValues() -> PlistDictionary {
        var merged = replacement?.values ?? disk
        for (key, change) in pending { merged[key] = change.resolved(on: merged[key]) }
        return merged
    }

    /// Recomputes ``estimatedSize`` from ``values``.
    mutating func recomputeEstimatedSize() {
        estimatedSize = values.reduce(PlistValue.estimatedDocumentOverhead) {
            $0 + PlistValue.estimatedEntrySize(key: $1.key, value: $1.value, depth: 1)
        }
    }

    /// Adopts what was read from the file.
    mutating func adopt(_ contents: DomainFile.Contents) {
        switch contents {
        case .missing:
            disk = [:]
            identity = nil
            issue = nil
            issueIsCorrupt = false
        case .values(let values, let fileIdentity):
            disk = values
            identity = fileIdentity
            issue = nil
            issueIsCorrupt = false
        case .broken(let error, let fileIdentity, let isCorrupt):
            disk = [:]
            identity = fileIdentity
            issue = error
            issueIsCorrupt = isCorrupt
        }
    }
}
