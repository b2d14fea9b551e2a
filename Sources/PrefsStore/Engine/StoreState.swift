// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist

/// Everything a ``PreferencesStore`` holds in memory, guarded by one lock.
///
/// Methods here never do I/O: they apply a change, keep effective views current, count sequence numbers and queue
/// events for observers. The store does the file work around them.
struct StoreState {
    /// A layer of an effective view, resolved to where its values live.
    enum LayerSlot: Hashable {
        case domain(Int)
        case arguments
        case registered
    }

    /// A registered observer.
    struct Observer {
        let filter: ChangeFilter
        let handler: @Sendable ([ChangeEvent]) -> Void
        let flag: ObservationFlag
        /// Keeps the effective view of an effective filter alive while observed.
        let view: EffectiveView?
    }

    /// Work for whoever delivers: an observer's batch, or a diagnostic.
    enum Delivery {
        case events(@Sendable ([ChangeEvent]) -> Void, ObservationFlag, [ChangeEvent])
        case diagnostic(StoreDiagnostic)
    }

    struct WeakView {
        weak var view: EffectiveView?
    }

    let flushDelay: Duration

    var domains: [DomainState] = []
    var slots: [DomainID: Int] = [:]
    /// The contents announced for files this process alone writes (``PreferencesStore/announceFileContents(_:fleetSources:of:origin:)``),
    /// loaded or not: they stand for those files, which may lag them.
    var announced: [DomainID: AnnouncedContents] = [:]
    /// The slot ``slot(of:)`` found last.
    var recentSlot: Int?
    var registered: PlistDictionary = [:]
    var arguments: PlistDictionary = [:]

    var views: [SearchList: WeakView] = [:]
    /// The count of released views when their links were last dropped.
    var releasedViewsForgotten = 0
    var observers: [UInt64: Observer] = [:]
    /// The observers of each target, with the key each one watches: a change is matched against these without
    /// copying the observers themselves (a change to a domain that a thousand clients watch visits every entry).
    var observersByTarget: [ChangeFilter.Target: Watchers] = [:]
    var nextObserverID: UInt64 = 1
    /// Events of the operation in progress, each once, and who receives which; moved to ``deliveries`` when it
    /// ends. An observer that receives every event of the operation (the usual case) is handed this very array, so a
    /// change that a thousand observers watch is one array, not a thousand.
    var batchEvents: [ChangeEvent] = []
    var batchRecipients: [BatchRecipient] = []

    /// One observer's receipt of one event of ``batchEvents``.
    struct BatchRecipient: Comparable {
        let observer: UInt64
        let event: Int

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.observer, lhs.event) < (rhs.observer, rhs.event)
        }
    }
    var deliveries: [Delivery] = []
    var isDelivering = false

    /// When the worker next wakes to write; `nil` when it waits for nothing but file events.
    var workerDeadline: Deadline?
    /// Domains whose file looked half-written (empty or unparsable, just modified) when re-read; not applied yet.
    var unsettledSlots = Set<Int>()
    /// When to look at ``unsettledSlots`` again.
    var unsettledRecheck: Deadline?

    init(flushDelay: Duration) {
        self.flushDelay = flushDelay
    }

    // MARK: Domains

    /// Adds a freshly loaded domain and returns its slot.
    mutating func install(_ domain: DomainState) -> Int {
        if let slot = slots[domain.id] { return slot }
        var domain = domain
        domain.values = domain.mergedValues()
        domain.recomputeEstimatedSize()
        domains.append(domain)
        slots[domain.id] = domains.count - 1
        if let issue = domain.issue {
            deliveries.append(.diagnostic(StoreDiagnostic(severity: .warning, domain: domain.id, error: issue)))
        }
        return domains.count - 1
    }

    /// The slot of a loaded domain; the last one asked for is remembered, since callers tend to repeat it.
    mutating func slot(of domain: DomainID) -> Int? {
        if let recent = recentSlot, domains[recent].id == domain { return recent }
        guard let slot = slots[domain] else { return nil }
        recentSlot = slot
        return slot
    }

    /// What ``setValue(_:forKey:slot:origin:maxDomainBytes:)`` did.
    enum SetResult {
        /// The change is made; `wake` says whether the worker must be woken for an earlier flush.
        case applied(wake: Bool)
        /// Nothing changed: the domain would grow to about `size` bytes, beyond its limit.
        case tooLarge(size: Int)
    }

    /// Sets or removes one key made in this process (the hot path of `set`: one hash lookup per table touched).
    mutating func setValue(
        _ value: PlistValue?, forKey key: String, slot: Int, origin: ChangeOrigin, maxDomainBytes: Int
    ) -> SetResult {
        let exactKey = PlistKey(key)
        let index = domains[slot].values.storage.index(forKey: exactKey)
        let old = index.map { domains[slot].values.storage.values[$0] }
        var delta = 0
        switch (old, value) {
        case (nil, nil): break
        case (let old?, nil): delta = -PlistValue.estimatedEntrySize(key: key, value: old, depth: 1)
        case (nil, let value?): delta = PlistValue.estimatedEntrySize(key: key, value: value, depth: 1)
        case (let old?, let value?): delta = value.estimatedXMLSize(depth: 1) - old.estimatedXMLSize(depth: 1)
        }
        if delta > 0, domains[slot].estimatedSize + delta > maxDomainBytes {
            return .tooLarge(size: domains[slot].estimatedSize + delta)
        }
        let serial = domains[slot].nextSerial
        domains[slot].nextSerial &+= 1
        domains[slot].pending[exactKey] = DomainState.PendingChange(value: value, serial: serial, origin: origin)
        switch (index, value) {
        case (let index?, let value?): domains[slot].values.storage.values[index] = value
        case (let index?, nil): domains[slot].values.storage.remove(at: index)
        case (nil, let value?): domains[slot].values.storage[exactKey] = value
        case (nil, nil): break
        }
        domains[slot].estimatedSize += delta
        if old != value { recordChange(slot: slot, key: key, old: old, new: value, origin: origin) }
        return .applied(wake: scheduleFlush(slot: slot))
    }

    /// Applies key changes made in this process.
    /// - Returns: Whether the worker must be woken for an earlier flush.
    mutating func applyLocalChanges(
        _ changes: some Sequence<(key: String, value: PlistValue?)>, slot: Int, origin: ChangeOrigin, sizeDelta: Int
    ) -> Bool {
        for (key, value) in changes {
            let serial = domains[slot].nextSerial
            domains[slot].nextSerial &+= 1
            domains[slot].pending[PlistKey(key)] = DomainState.PendingChange(
                value: value, serial: serial, origin: origin)
            let old = domains[slot].values.updateValue(forKey: key, to: value)
            if old != value { recordChange(slot: slot, key: key, old: old, new: value, origin: origin) }
        }
        domains[slot].estimatedSize += sizeDelta
        return scheduleFlush(slot: slot)
    }

    /// Records an update of one key made in this process: its value changes now, and its transform is kept so that
    /// the write replays it on the file's value of the key as it is then.
    /// - Returns: Whether the worker must be woken for an earlier flush.
    mutating func applyUpdate(
        _ update: @escaping DomainState.KeyUpdate, forKey key: String, to value: PlistValue?, slot: Int,
        origin: ChangeOrigin, sizeDelta: Int
    ) -> Bool {
        let serial = domains[slot].nextSerial
        domains[slot].nextSerial &+= 1
        let exactKey = PlistKey(key)
        if domains[slot].pending[exactKey] != nil {
            // In place: a copy of the change would copy its list of updates on every append.
            domains[slot].pending[exactKey]!.updates.append(update)
            domains[slot].pending[exactKey]!.serial = serial
            domains[slot].pending[exactKey]!.origin = origin
        } else {
            domains[slot].pending[exactKey] = DomainState.PendingChange(update: update, serial: serial, origin: origin)
        }
        let old = domains[slot].values.updateValue(forKey: key, to: value)
        if old != value { recordChange(slot: slot, key: key, old: old, new: value, origin: origin) }
        domains[slot].estimatedSize += sizeDelta
        return scheduleFlush(slot: slot)
    }

    /// Replaces a domain's contents with a value set in this process.
    /// - Returns: Whether the worker must be woken for an earlier flush.
    mutating func applyReplacement(_ values: PlistDictionary, slot: Int, origin: ChangeOrigin) -> Bool {
        let serial = domains[slot].nextSerial
        domains[slot].nextSerial &+= 1
        domains[slot].replacement = DomainState.PendingReplacement(values: values, serial: serial, origin: origin)
        domains[slot].pending = [:]
        replaceValues(slot: slot, with: values, origin: origin)
        return scheduleFlush(slot: slot)
    }

    /// Adopts a new reading of a domain's file, keeping this process's unwritten changes on top.
    mutating func applyFileContents(_ contents: DomainFile.Contents, slot: Int, origin: ChangeOrigin) {
        let previousIssue = domains[slot].issue
        let previousIdentity = domains[slot].identity
        domains[slot].adopt(contents)
        if let issue = domains[slot].issue,
            previousIssue == nil || previousIdentity != domains[slot].identity
        {
            deliveries.append(.diagnostic(StoreDiagnostic(severity: .warning, domain: domains[slot].id, error: issue)))
        }
        replaceValues(slot: slot, with: domains[slot].mergedValues(), origin: origin)
    }

    /// Sets what a domain's storage holds (an in-memory store's contents), keeping this process's unwritten changes
    /// on top, as a re-read file does.
    ///
    /// With a `version` (an in-memory cache of another store), the local changes that version already includes are
    /// dropped: those acknowledged at that version or earlier. `startsOver` forgets every local change and the
    /// versions seen so far (the other store was restarted, and counts again from its own start).
    mutating func applyStoredValues(
        _ values: PlistDictionary, slot: Int, origin: ChangeOrigin, version: UInt64? = nil, startsOver: Bool = false
    ) {
        if startsOver {
            domains[slot].pending = [:]
            domains[slot].replacement = nil
            domains[slot].storedVersion = version ?? 0
        } else if let version {
            let stored = max(domains[slot].storedVersion, version)
            domains[slot].storedVersion = stored
            for (key, change) in domains[slot].pending where change.version.map({ $0 <= stored }) ?? false {
                domains[slot].pending[key] = nil
            }
            if domains[slot].replacement?.version.map({ $0 <= stored }) ?? false { domains[slot].replacement = nil }
        }
        domains[slot].disk = values
        replaceValues(slot: slot, with: domains[slot].mergedValues(), origin: origin)
    }

    /// Applies to an in-memory cache a change its source store acknowledged at `version`, unless the cache already
    /// has that change or a newer one: stored contents of that version or later, or a newer acknowledged change of
    /// the key (or a newer replacement of the domain). So acknowledgements and the source's echoes may arrive in any
    /// order, from any thread, and a key never goes back to an older value.
    /// - Returns: Whether the change was applied.
    @discardableResult
    mutating func applyAcknowledged(
        _ value: PlistValue?, forKey key: String, slot: Int, version: UInt64, origin: ChangeOrigin
    ) -> Bool {
        if version <= domains[slot].storedVersion { return false }
        if let newer = domains[slot].pending[PlistKey(key)]?.version, newer >= version { return false }
        if let newer = domains[slot].replacement?.version, newer >= version { return false }
        let serial = domains[slot].nextSerial
        domains[slot].nextSerial &+= 1
        var change = DomainState.PendingChange(value: value, serial: serial, origin: origin)
        change.version = version
        domains[slot].pending[PlistKey(key)] = change
        let old = domains[slot].values.updateValue(forKey: key, to: value)
        if old != value {
            domains[slot].recomputeEstimatedSize()
            recordChange(slot: slot, key: key, old: old, new: value, origin: origin)
        }
        return true
    }

    /// Replaces an in-memory cache's domain with contents its source acknowledged at `version`, unless the cache
    /// already has that version or a newer change; older acknowledged key changes are dropped, newer ones stay on top.
    mutating func applyAcknowledgedReplacement(
        _ values: PlistDictionary, slot: Int, version: UInt64, origin: ChangeOrigin
    ) {
        if version <= domains[slot].storedVersion { return }
        if let newer = domains[slot].replacement?.version, newer >= version { return }
        let serial = domains[slot].nextSerial
        domains[slot].nextSerial &+= 1
        domains[slot].replacement = DomainState.PendingReplacement(
            values: values, serial: serial, origin: origin, version: version)
        for (key, change) in domains[slot].pending where change.version.map({ $0 < version }) ?? true {
            domains[slot].pending[key] = nil
        }
        replaceValues(slot: slot, with: domains[slot].mergedValues(), origin: origin)
    }

    /// Sets a domain's values and records an event for every key that differs.
    private mutating func replaceValues(slot: Int, with newValues: PlistDictionary, origin: ChangeOrigin) {
        let oldValues = domains[slot].values
        domains[slot].values = newValues
        domains[slot].recomputeEstimatedSize()
        var changedKeys: [String] = []
        for (key, value) in newValues where oldValues[key] != value { changedKeys.append(key) }
        for key in oldValues.keys where newValues[key] == nil { changedKeys.append(key) }
        for key in changedKeys.sorted(by: { PlistKey($0) < PlistKey($1) }) {
            recordChange(slot: slot, key: key, old: oldValues[key], new: newValues[key], origin: origin)
        }
    }

    /// Starts the flush delay of a domain that has just become dirty.
    /// - Returns: Whether the worker sleeps past the new deadline and must be woken.
    private mutating func scheduleFlush(slot: Int) -> Bool {
        guard domains[slot].flushDeadline == nil else { return false }
        let deadline = Deadline.now + flushDelay
        domains[slot].flushDeadline = deadline
        if let workerDeadline, workerDeadline <= deadline { return false }
        workerDeadline = deadline
        return true
    }

    /// Reschedules a domain whose write failed, backing off up to a minute.
    mutating func scheduleRetry(slot: Int, error: PrefsStoreError) {
        domains[slot].failedFlushes += 1
        domains[slot].flushError = error
        let exponent = min(domains[slot].failedFlushes, 6)
        let delay = max(flushDelay, .seconds(1)) * (1 << exponent)
        domains[slot].flushDeadline = Deadline.now + min(delay, .seconds(60))
        deliveries.append(.diagnostic(StoreDiagnostic(severity: .error, domain: domains[slot].id, error: error)))
    }

    /// The earliest flush deadline, remembered as the worker's wake-up time.
    mutating func nextWorkerDeadline() -> ContinuousClock.Instant? {
        workerDeadline = domains.lazy.compactMap(\.flushDeadline).min()
        if let recheck = unsettledRecheck, workerDeadline.map({ recheck < $0 }) ?? true { return recheck.instant }
        return workerDeadline?.instant
    }

    /// Notes a domain whose file is being written by someone else right now, to read it again shortly.
    mutating func markUnsettled(slot: Int) {
        unsettledSlots.insert(slot)
        if unsettledRecheck == nil { unsettledRecheck = Deadline.now + .milliseconds(250) }
    }

    /// The unsettled domains to read again, once their recheck time has come.
    mutating func takeUnsettledSlots(at now: ContinuousClock.Instant) -> [Int] {
        guard let recheck = unsettledRecheck, recheck <= Deadline(now) else { return [] }
        unsettledRecheck = nil
        defer { unsettledSlots = [] }
        return unsettledSlots.sorted()
    }

    /// The slots whose flush deadline has passed.
    func dueSlots(at now: ContinuousClock.Instant) -> [Int] {
        let now = Deadline(now)
        return domains.indices.filter { domains[$0].flushDeadline.map { $0 <= now } ?? false }
    }

    /// The slots with changes not yet written.
    var dirtySlots: [Int] {
        domains.indices.filter { domains[$0].hasUnwrittenChanges || domains[$0].flushDeadline != nil }
    }

    // MARK: Flushing

    /// What a write of one domain needs, taken under the lock so the file work can happen outside it.
    struct FlushPlan {
        var slot: Int
        var id: DomainID
        var pending: [PlistKey: DomainState.PendingChange]
        var replacement: DomainState.PendingReplacement?
        var knownIdentity: FileIdentity?
        var knownDisk: PlistDictionary
        var knownIssue: PrefsStoreError?
        var checkStaleTemporaryFiles: Bool
    }

    /// Takes a domain's unwritten changes for writing, or returns `nil` when there are none.
    mutating func takeFlushPlan(slot: Int) -> FlushPlan? {
        domains[slot].flushDeadline = nil
        let domain = domains[slot]
        guard domain.hasUnwrittenChanges else { return nil }
        domains[slot].checkedStaleTemporaryFiles = true
        return FlushPlan(
            slot: slot, id: domain.id, pending: domain.pending, replacement: domain.replacement,
            knownIdentity: domain.identity, knownDisk: domain.disk, knownIssue: domain.issue,
            checkStaleTemporaryFiles: !domain.checkedStaleTemporaryFiles)
    }

    /// Records a finished write: the file now holds `written`; changes made meanwhile stay pending.
    ///
    /// `readOtherWriters` says whether the write started from a new reading of the file. When it did not, the file
    /// holds what the store knew plus this store's changes, which is what reads already see: the values need no
    /// update, which spares large domains a comparison of every key.
    mutating func completeFlush(
        _ plan: FlushPlan, written: PlistDictionary, identity: FileIdentity?, readOtherWriters: Bool
    ) {
        let slot = plan.slot
        domains[slot].disk = written
        domains[slot].identity = identity
        domains[slot].issue = nil
        domains[slot].issueIsCorrupt = false
        for (key, written) in plan.pending {
            guard var current = domains[slot].pending[key] else { continue }
            if current.serial == written.serial {
                domains[slot].pending[key] = nil
            } else if current.runSerial == written.runSerial, current.updates.count > written.updates.count {
                // Updates made during the write: the written ones are in the file now, the later ones apply to it.
                current.updates.removeFirst(written.updates.count)
                current.isSet = false
                current.value = nil
                domains[slot].pending[key] = current
            }
        }
        if let replacement = plan.replacement, domains[slot].replacement?.serial == replacement.serial {
            domains[slot].replacement = nil
        }
        domains[slot].failedFlushes = 0
        domains[slot].flushError = nil
        // Whatever differs now came from other writers, merged in under the lock.
        if readOtherWriters { replaceValues(slot: slot, with: domains[slot].mergedValues(), origin: .external) }
    }

    /// Puts a plan back after its write failed, so its changes are written later; for a synchronous write
    /// (`caller` given), that caller's pending changes of the domain are withdrawn first.
    mutating func restoreFailedFlush(_ plan: FlushPlan, error: PrefsStoreError, withdrawing caller: ChangeOrigin?) {
        let slot = plan.slot
        domains[slot].checkedStaleTemporaryFiles = !plan.checkStaleTemporaryFiles
        if let caller { withdrawChanges(of: caller, slot: slot) }
        if domains[slot].hasUnwrittenChanges {
            scheduleRetry(slot: slot, error: error)
        } else {
            // Nothing is left to retry: the caller is told, and nothing will be written later.
            domains[slot].flushDeadline = nil
            domains[slot].flushError = error
        }
    }

    /// Withdraws a writer's unwritten changes of a domain: the pending key changes whose latest change it made and a
    /// replacement it made. Reads fall back to the file's values with the other writers' changes on top, and
    /// observers get an event for every key that changes back.
    mutating func withdrawChanges(of origin: ChangeOrigin, slot: Int) {
        var withdrawn = false
        if domains[slot].replacement?.origin == origin {
            domains[slot].replacement = nil
            withdrawn = true
        }
        for (key, change) in domains[slot].pending where change.origin == origin {
            domains[slot].pending[key] = nil
            withdrawn = true
        }
        if withdrawn { replaceValues(slot: slot, with: domains[slot].mergedValues(), origin: origin) }
    }

    // MARK: Volatile layers

    /// Merges registered defaults (a key registered again takes the new value).
    mutating func register(_ defaults: PlistDictionary) {
        for (key, value) in defaults.sorted(by: { $0.key < $1.key }) {
            let old = registered.updateValue(value, forKey: key)
            if old != value { volatileLayerChanged(.registered, key: key, new: value) }
        }
    }

    /// Replaces the argument domain.
    mutating func setArguments(_ values: PlistDictionary) {
        let old = arguments
        arguments = values
        let keys = Set(old.storage.keys).union(values.storage.keys).filter { old[$0] != values[$0] }.sorted()
        for key in keys { volatileLayerChanged(.arguments, key: key.string, new: values[key]) }
    }

    private mutating func volatileLayerChanged(_ layer: LayerSlot, key: String, new: PlistValue?) {
        for entry in views.values {
            guard let view = entry.view, let position = view.slots.firstIndex(of: layer) else { continue }
            updateView(view, key: key, changedPosition: position, newValue: new, origin: .thisProcess)
        }
    }

    // MARK: Events and views

    /// Counts a real change of one key, updates the views that include the domain, and queues events.
    mutating func recordChange(slot: Int, key: String, old: PlistValue?, new: PlistValue?, origin: ChangeOrigin) {
        domains[slot].sequence &+= 1
        if !observers.isEmpty, let watchers = observersByTarget[.domain(domains[slot].id)] {
            let event = ChangeEvent(
                domain: domains[slot].id, key: key, oldValue: old, newValue: new, sequence: domains[slot].sequence,
                origin: origin)
            queue(event, to: watchers)
        }
        let links = domains[slot].viewLinks
        for link in links {
            guard let view = link.view else { continue }
            updateView(view, key: key, changedPosition: link.position, newValue: new, origin: origin)
        }
    }

    /// Adds an event to the operation's batch for the watchers that watch its key.
    private mutating func queue(_ event: ChangeEvent, to watchers: Watchers) {
        var index: Int?
        for watcher in watchers.entries where watcher.watches(event.key) {
            if index == nil {
                index = batchEvents.count
                batchEvents.append(event)
            }
            batchRecipients.append(BatchRecipient(observer: watcher.id, event: index!))
        }
    }

    /// Brings one key of a view up to date after the layer at `changedPosition` changed it to `newValue`.
    mutating func updateView(
        _ view: EffectiveView, key: String, changedPosition: Int, newValue: PlistValue?, origin: ChangeOrigin
    ) {
        let slots = view.slots
        // A layer above the changed one that holds the key still wins: nothing changes.
        for position in 0..<changedPosition where value(in: slots[position], forKey: key) != nil { return }
        var effective = newValue
        if effective == nil {
            for position in (changedPosition + 1)..<slots.count {
                if let found = value(in: slots[position], forKey: key) {
                    effective = found
                    break
                }
            }
        }
        guard let (old, version) = view.update(key: key, to: effective) else { return }
        if !observers.isEmpty, let watchers = observersByTarget[.effective(view.searchList)] {
            var event = ChangeEvent(
                domain: DomainID(view.searchList.domain), key: key, oldValue: old, newValue: effective,
                sequence: version, origin: origin)
            if case .domain(let index) = slots[changedPosition] {
                event.layer = (domains[index].id, domains[index].sequence)
            }
            queue(event, to: watchers)
        }
    }

    /// A layer's value for a key.
    func value(in slot: LayerSlot, forKey key: String) -> PlistValue? {
        switch slot {
        case .domain(let index):
            return domains[index].values.isEmpty ? nil : domains[index].values[key]
        case .arguments:
            return arguments.isEmpty ? nil : arguments[key]
        case .registered:
            return registered.isEmpty ? nil : registered[key]
        }
    }

    /// A layer's values.
    func values(in slot: LayerSlot) -> PlistDictionary {
        switch slot {
        case .domain(let index): domains[index].values
        case .arguments: arguments
        case .registered: registered
        }
    }

    /// The merge of a view's layers, for a new view: lower layers first, higher ones overwrite.
    func mergedValues(of slots: [LayerSlot]) -> PlistDictionary {
        var merged: PlistDictionary = [:]
        for slot in slots.reversed() {
            merged.merge(values(in: slot)) { _, higher in higher }
        }
        return merged
    }

    /// Links a new view to its domains so their changes reach it.
    mutating func link(_ view: EffectiveView) {
        views[view.searchList] = WeakView(view: view)
        for (position, slot) in view.slots.enumerated() {
            if case .domain(let index) = slot {
                domains[index].viewLinks.append(DomainState.ViewLink(view: view, position: position))
            }
        }
    }

    /// Drops views that no longer exist.
    mutating func forgetReleasedViews() {
        for (list, entry) in views where entry.view == nil { views[list] = nil }
        for index in domains.indices where domains[index].viewLinks.contains(where: { $0.view == nil }) {
            domains[index].viewLinks.removeAll { $0.view == nil }
        }
    }

    /// Moves the events of the finished operation to the delivery queue.
    /// - Returns: Whether anything waits to be delivered.
    mutating func endBatch() -> Bool {
        if !batchRecipients.isEmpty {
            // Observers in identifier order, each with its events in the order they happened. Watchers are kept in
            // registration order, so the receipts of a one-change operation usually come sorted already.
            if batchRecipients.indices.dropFirst().contains(where: { batchRecipients[$0] < batchRecipients[$0 - 1] }) {
                batchRecipients.sort()
            }
            var start = 0
            while start < batchRecipients.count {
                let id = batchRecipients[start].observer
                var end = start + 1
                while end < batchRecipients.count, batchRecipients[end].observer == id { end += 1 }
                if let observer = observers[id] {
                    // An observer receives an event at most once, so as many receipts as events means all of them.
                    let events =
                        end - start == batchEvents.count
                        ? batchEvents : batchRecipients[start..<end].map { batchEvents[$0.event] }
                    deliveries.append(.events(observer.handler, observer.flag, events))
                }
                start = end
            }
            batchEvents = []
            batchRecipients.removeAll(keepingCapacity: true)
        }
        return !deliveries.isEmpty
    }
}

extension PlistDictionary {
    /// Sets or removes a value, returning the previous one.
    fileprivate mutating func updateValue(forKey key: String, to value: PlistValue?) -> PlistValue? {
        if let value { return updateValue(value, forKey: key) }
        return removeValue(forKey: key)
    }
}
