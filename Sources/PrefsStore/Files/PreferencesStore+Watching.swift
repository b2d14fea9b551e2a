// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX
import Synchronization

extension PreferencesStore {
    /// How long the worker may sleep: until the earliest flush deadline, or without limit (-1).
    func workerTimeoutMilliseconds() -> Int32 {
        guard let deadline = state.withLock({ $0.nextWorkerDeadline() }) else { return -1 }
        let remaining = deadline - .now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Reads again every loaded domain whose file is no longer the version the store knows: what the worker does every
    /// `StoreWorker.pollInterval` while inotify is unavailable. A change found so is attributed to `.external`, since
    /// no event names its writer.
    func pollLoadedDomains() {
        fileWork.withLock { work in
            let count = state.withLock { $0.domains.count }
            for slot in 0..<count { reloadIfChanged(slot: slot, origin: .external, &work) }
        }
        deliverQueued()
    }

    /// Turns a batch of inotify events into re-reads of the domains they touch, and their change events.
    ///
    /// A file renamed into place from a store's temp name (`.<name>.tmp-<pid>-…`) was written by process `pid`;
    /// anything else is an external edit. The store's own writes leave the file as the store knows it, so re-reading
    /// finds nothing new and they never come back as events. A queue overflow re-examines every loaded domain.
    func handleWatchEvents(_ events: [FileSystem.WatchEvent]) {
        // Events that name a watch come from the worker; an overflow needs none (a store started without one).
        let worker = self.worker
        fileWork.withLock { work in
            var order: [DomainID] = []
            var origins: [DomainID: ChangeOrigin] = [:]
            var rescanScopes = Set<DomainScope>()
            var rescanDomains: [DomainID] = []
            // A file renamed into place from a store's temp name was written by that store's process.
            func note(_ id: DomainID, _ event: FileSystem.WatchEvent) {
                var origin = ChangeOrigin.external
                if event.mask & FileSystem.WatchMask.movedTo != 0,
                    let source = work.moveSources.removeValue(forKey: event.cookie),
                    let pid = TemporaryFileName.owner(of: source, fileName: event.name)
                {
                    origin = .otherProcess(pid: pid)
                }
                if origins.updateValue(origin, forKey: id) == nil { order.append(id) }
            }
            for event in events {
                if event.mask & FileSystem.WatchMask.overflow != 0 {
                    rescanScopes.formUnion(DomainScope.allCases)
                    continue
                }
                guard let worker else { continue }
                if event.mask & FileSystem.WatchMask.ignored != 0 {
                    rescanDomains += worker.forgetLinkTargets(of: event.watch)
                } else if event.mask & FileSystem.WatchMask.isDirectory == 0 {
                    if event.mask & FileSystem.WatchMask.movedFrom != 0 {
                        if work.moveSources.count > 256 { work.moveSources = [:] }
                        work.moveSources[event.cookie] = event.name
                    }
                    if let id = worker.linkedDomain(watch: event.watch, fileName: event.name) { note(id, event) }
                }
                guard let directory = worker.directory(for: event.watch) else { continue }
                if event.mask & FileSystem.WatchMask.ignored != 0 {
                    worker.forget(event.watch)
                    rescanScopes.insert(directory.scope)
                    continue
                }
                if event.mask & (FileSystem.WatchMask.deleteSelf | FileSystem.WatchMask.moveSelf) != 0 {
                    rescanScopes.insert(directory.scope)
                    continue
                }
                if event.mask & FileSystem.WatchMask.isDirectory != 0 {
                    let appeared = event.mask & (FileSystem.WatchMask.create | FileSystem.WatchMask.movedTo) != 0
                    if appeared {
                        for subdirectory in worker.subdirectories(named: event.name, in: directory.scope) {
                            worker.watch(subdirectory)
                            rescanScopes.insert(subdirectory.scope)
                        }
                    }
                    continue
                }
                guard let id = paths.domain(forFileName: event.name, scope: directory.scope) else { continue }
                note(id, event)
            }
            for id in order {
                guard let slot = state.withLock({ $0.slots[id] }), let origin = origins[id] else { continue }
                reloadIfChanged(slot: slot, origin: origin, &work)
            }
            for id in rescanDomains {
                guard let slot = state.withLock({ $0.slots[id] }) else { continue }
                reloadIfChanged(slot: slot, origin: .external, &work)
            }
            if !rescanScopes.isEmpty {
                let slots = state.withLock { state in
                    state.domains.indices.filter { rescanScopes.contains(state.domains[$0].id.scope) }
                }
                for slot in slots { reloadIfChanged(slot: slot, origin: .external, &work) }
            }
        }
        deliverQueued()
    }
}
