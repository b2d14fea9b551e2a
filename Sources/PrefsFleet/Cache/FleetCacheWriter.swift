// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PrefsPOSIX
import PrefsPlist
package import PrefsStore
import Synchronization

/// Writes prefsd's fleet cache on a thread of its own, at a lower priority than the threads that serve clients
/// (docs/FLEET.md, "Cache").
///
/// The mirror stages each change and goes on: the store is told the new values at once (its observers hear of them
/// before any file is written), and this thread writes the files after. On a busy machine (fifty hosts on two cores,
/// each change waking all of them) the writes then wait until every host has told its subscribers, instead of
/// sharing the processors with that; with processors to spare they follow at once. Changes staged while the thread
/// writes are gathered: a domain's files are written with its latest contents, and the log records of several
/// batches go in one append, so a burst costs one `fdatasync`. The state on disk lags the announced values only by
/// those writes: a crash loses none of etcd's changes, since the watch resumes from the revision the state holds.
///
/// A write that fails (a full disk) is logged and tried again a second later, with whatever was staged meanwhile.
package final class FleetCacheWriter: Sendable {
    /// What waits to be written.
    private struct Staged: Sendable {
        var domains: [DomainID: FleetCache.DomainContents] = [:]
        var record: FleetStateLog.Record?
        /// Whether the whole state must be written (after a full read), which holds every record staged before.
        var wholeState = false
        /// Every entry and the revision as of the last staging, for the state file.
        var entries: [String: FleetMirror.Entry] = [:]
        var revision: Int64 = 0
        /// The newest revision staged by any call, also one that had nothing to write: once everything staged is
        /// written, the files hold it.
        var announced: Int64 = 0
        var finishing = false

        var isEmpty: Bool { domains.isEmpty && record == nil && !wholeState }
    }

    /// The nice value the thread adds to its own.
    package static let niceness: Int32 = 19
    /// The pause before a failed write is tried again.
    package static let retryPause: Duration = .seconds(1)

    /// The store told of every change before its files are written.
    package let store: PreferencesStore?
    private let staged = Mutex(Staged())
    /// Only the thread uses it; the mutex makes that provable.
    private let cache: Mutex<FleetCache>
    private let wake = DispatchSemaphore(value: 0)
    /// Set when no thread could be started: each staging then writes at once, on the caller's thread.
    private let writesInline = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let report: @Sendable (EtcdError) -> Void
    private let written: @Sendable (Int64) -> Void

    /// Starts the thread; when none can be started, the writes are made at once by each staging, and `report`
    /// says so.
    /// - Parameters:
    ///   - cache: The cache, read already; from now on only this writer uses it.
    ///   - store: The store to tell of each change first.
    ///   - report: Receives each failed write (for the log).
    ///   - written: Receives the revision the files on disk hold, each time everything staged is written: the
    ///     revision every program of the host reads, through prefsd or on the files.
    package init(
        cache: FleetCache, store: PreferencesStore?, report: @escaping @Sendable (EtcdError) -> Void,
        written: @escaping @Sendable (Int64) -> Void = { _ in }
    ) {
        self.cache = Mutex(cache)
        self.store = store
        self.report = report
        self.written = written
        do {
            try POSIX.startThread { [self] in run() }
        } catch {
            writesInline.store(true, ordering: .releasing)
            report(
                EtcdError(
                    .unavailable,
                    "cannot start the fleet cache writer (\(error)); the cache is written before each change is served")
            )
        }
    }

    /// Wakes the thread, or writes at once without one.
    private func writeSoon() {
        if writesInline.load(ordering: .acquiring) {
            _ = writeStaged()
        } else {
            wake.signal()
        }
    }

    /// Stages a domain's new contents and tells the store.
    package func stage(_ contents: FleetCache.DomainContents, of domain: DomainID) {
        // Staged before the store hears of it, so that the files never hold older values than the store.
        staged.withLock { $0.domains[domain] = contents }
        store?.announceFileContents(
            contents.values, fleetSources: contents.sources, of: domain, origin: .otherProcess(pid: POSIX.processID))
        writeSoon()
    }

    /// Stages a batch's log record.
    /// - Parameters:
    ///   - record: The batch.
    ///   - entries: Every entry once it is applied.
    package func stage(_ record: FleetStateLog.Record, entries: [String: FleetMirror.Entry]) {
        staged.withLock { staged in
            staged.record = staged.record.map { $0.followed(by: record) } ?? record
            staged.entries = entries
            staged.revision = record.revision
            staged.announced = max(staged.announced, record.revision)
        }
        writeSoon()
    }

    /// Stages a revision whose batch changed nothing here: the files hold it once what was staged before is written.
    package func stageRevision(_ revision: Int64) {
        staged.withLock { $0.announced = max($0.announced, revision) }
        writeSoon()
    }

    /// Stages the whole state (after a full read): it replaces every record staged before.
    package func stageState(entries: [String: FleetMirror.Entry], revision: Int64) {
        staged.withLock { staged in
            staged.record = nil
            staged.wholeState = true
            staged.entries = entries
            staged.revision = revision
            staged.announced = max(staged.announced, revision)
        }
        writeSoon()
    }

    /// Writes what is staged, then ends the thread; returns when it has (at shutdown, so that nothing is left).
    package func finish() {
        if writesInline.load(ordering: .acquiring) {
            _ = writeStaged()
            return
        }
        staged.withLock { $0.finishing = true }
        wake.signal()
        finished.wait()
    }

    private func run() {
        do {
            try POSIX.lowerPriorityOfCurrentThread(by: Self.niceness)
        } catch {
            report(EtcdError(.unavailable, "the fleet cache writer runs at normal priority: \(error)"))
        }
        while true {
            wake.wait()
            while writeStaged() == false {
                // A write failed: try again after a pause (the changes staged meanwhile wake the thread, and are
                // written with the retry), unless shutting down.
                let retry = DispatchTime.now() + .seconds(Int(Self.retryPause.components.seconds))
                while !staged.withLock({ $0.finishing }), wake.wait(timeout: retry) == .success {}
                if staged.withLock({ $0.finishing }) { break }
            }
            if staged.withLock({ $0.finishing }) {
                finished.signal()
                return
            }
        }
    }

    /// Writes everything staged until nothing is left.
    /// - Returns: Whether every write succeeded.
    private func writeStaged() -> Bool {
        while true {
            let domains = staged.withLock { $0.domains.keys.sorted { $0.description < $1.description } }
            for domain in domains {
                guard let contents = staged.withLock({ $0.domains.removeValue(forKey: domain) }) else { continue }
                do {
                    try cache.withLock { cache throws(EtcdError) in
                        try cache.writeSources(contents, of: domain)
                        _ = try cache.writeMerged(contents, of: domain)
                    }
                } catch {
                    // Kept for the retry, unless newer contents were staged meanwhile.
                    staged.withLock { staged in
                        if staged.domains[domain] == nil { staged.domains[domain] = contents }
                    }
                    report(error)
                    return false
                }
            }
            let (record, wholeState, entries, revision) = staged.withLock { staged in
                let taken = (staged.record, staged.wholeState, staged.entries, staged.revision)
                staged.record = nil
                staged.wholeState = false
                return taken
            }
            do {
                try cache.withLock { cache throws(EtcdError) in
                    if wholeState {
                        try cache.writeState(entries: entries, revision: revision)
                    } else if let record {
                        try cache.append(record, entries: entries)
                    }
                }
            } catch {
                staged.withLock { staged in
                    if wholeState {
                        staged.wholeState = true
                    } else if let record, !staged.wholeState {
                        staged.record = staged.record.map { record.followed(by: $0) } ?? record
                    }
                }
                report(error)
                return false
            }
            // Only once nothing is left: a record may have been taken before files of its batch staged later.
            if let announced = staged.withLock({ $0.isEmpty ? $0.announced : nil }) {
                if announced > 0 { written(announced) }
                return true
            }
        }
    }
}

extension FleetStateLog.Record {
    /// This batch, then `later`, as one record.
    package func followed(by later: FleetStateLog.Record) -> FleetStateLog.Record {
        var combined = self
        for key in later.removed {
            combined.entries[key] = nil
            if !combined.removed.contains(key) { combined.removed.append(key) }
        }
        for (key, entry) in later.entries {
            combined.entries[key] = entry
            combined.removed.removeAll { $0 == key }
        }
        combined.revision = max(revision, later.revision)
        return combined
    }
}
