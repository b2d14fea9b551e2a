import PrefsPlist

/// What the store knows of one loaded domain: its file as last read or written, this process's changes not yet
/// written, and the merge of the two that reads see.
struct DomainState {
    /// A change made in this process and not yet written; `serial` tells a newer change to the same key apart.
    struct PendingChange {
        var value: PlistValue?
        var serial: UInt64
    }

    /// A whole-domain replacement (`setPersistentDomain`, `removePersistentDomain`) not yet written.
    struct PendingReplacement {
        var values: [String: PlistValue]
        var serial: UInt64
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
    var values: [String: PlistValue] = [:]
    /// The file's dictionary as last read or written (empty when the file is missing or broken).
    var disk: [String: PlistValue] = [:]
    /// The identity of the file ``disk`` came from; `nil` when there is no file.
    var identity: FileIdentity?
    /// Why the file could not be used; reads then skip it.
    var issue: PrefsStoreError?
    /// Whether ``issue`` is a corrupt file, which the next write sets aside.
    var issueIsCorrupt = false

    var pending: [String: PendingChange] = [:]
    var replacement: PendingReplacement?
    var nextSerial: UInt64 = 1
    /// The per-domain event counter.
    var sequence: UInt64 = 0
    /// An upper bound on the encoded size of ``values``.
    var estimatedSize = PlistValue.estimatedDocumentOverhead

    /// When the pending changes must be written; `nil` when there are none waiting.
    var flushDeadline: ContinuousClock.Instant?
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
    func mergedValues() -> [String: PlistValue] {
        var merged = replacement?.values ?? disk
        for (key, change) in pending { merged[key] = change.value }
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
