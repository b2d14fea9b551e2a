// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX
import Synchronization

/// The store's background thread: it writes domains when their flush delay passes and turns inotify events into
/// re-reads, all from one `poll()` on the inotify descriptor with the earliest flush deadline as its timeout.
///
/// When the store should watch but inotify is out of reach (the per-user limit of instances or watches is reached),
/// the thread polls instead: every ``pollInterval`` it compares each loaded domain's file with the version it knows
/// (a `stat`), and reads again those that changed, so observers still see other processes' changes.
final class StoreWorker: Sendable {
    /// How often the files of loaded domains are examined while inotify is unavailable.
    static let pollInterval: Duration = .seconds(1)

    /// A watched directory and the scope of the domain files in it.
    struct WatchedDirectory: Sendable {
        var scope: DomainScope
        var path: String
    }

    /// The inotify descriptor, or `nil` when the store does not watch files.
    let watcher: Int32?
    private let wakeReceive: Int32
    private let wakeSend: Int32
    private let paths: StorePaths
    /// Whether the fleet cache's directories are watched (``StoreConfiguration/watchesFleetCache``).
    private let watchesFleetCache: Bool
    private let watches = Mutex<[Int32: WatchedDirectory]>([:])
    /// The domains whose file is a symbolic link the store follows, by the watch of the target's directory and the
    /// target's name: a write through the link, or an edit of the target itself, is reported there, not in the
    /// domain's own directory.
    private let linkTargets = Mutex<[Int32: [String: DomainID]]>([:])
    private let stopping = Atomic<Bool>(false)
    /// Set when a watched directory went away, so that it is watched again once it exists.
    private let lostWatch = Atomic<Bool>(false)
    /// Set when the store should watch but inotify cannot (no instance, or a directory no watch was left for): the
    /// loaded domains' files are then examined every ``pollInterval``.
    private let polls = Atomic<Bool>(false)

    private init(
        watcher: Int32?, wake: (receive: Int32, send: Int32), paths: StorePaths, watchesFleetCache: Bool, polls: Bool
    ) {
        self.watcher = watcher
        self.watchesFleetCache = watchesFleetCache
        self.wakeReceive = wake.receive
        self.wakeSend = wake.send
        self.paths = paths
        self.polls.store(polls, ordering: .releasing)
    }

    /// Whether the worker polls the files because inotify is unavailable.
    var isPolling: Bool { polls.load(ordering: .acquiring) }

    deinit {
        if let watcher { POSIX.closeDescriptor(watcher) }
        POSIX.closeDescriptor(wakeReceive)
        POSIX.closeDescriptor(wakeSend)
    }

    /// Creates the worker's descriptors and watches the directories that exist (creating the Preferences directory).
    /// - Returns: The worker, or `nil` with the reason when it cannot run (the store then writes only on
    ///   `synchronize()` and at exit).
    static func start(
        paths: StorePaths, watchesFiles: Bool, watchesFleetCache: Bool = true
    ) -> (worker: StoreWorker?, problem: PrefsStoreError?) {
        let wake: (receive: Int32, send: Int32)
        do {
            wake = try FileSystem.makeWakeChannel()
        } catch {
            return (nil, PrefsStoreError(.unavailable, "cannot start the background writer", cause: error))
        }
        var watcher: Int32?
        var problem: PrefsStoreError?
        if watchesFiles {
            do {
                watcher = try FileSystem.makeWatcher()
            } catch {
                problem = pollingNotice(cause: error)
            }
        }
        let worker = StoreWorker(
            watcher: watcher, wake: wake, paths: paths, watchesFleetCache: watchesFleetCache,
            polls: watchesFiles && watcher == nil)
        if watcher != nil {
            // Create the Preferences directory so that it can be watched; a read-only home is reported by writes.
            try? FileSystem.makeDirectories(paths.preferencesDirectory)
            if let failure = worker.watchExistingDirectories().failure {
                worker.polls.store(true, ordering: .releasing)
                problem = pollingNotice(cause: failure)
            }
        }
        return (worker, problem)
    }

    /// The warning that inotify is out of reach and the files are polled instead.
    private static func pollingNotice(cause: SystemCallError) -> PrefsStoreError {
        PrefsStoreError(
            .unavailable,
            "cannot watch for changes by other processes with inotify; examining the files every "
                + "\(pollInterval.components.seconds) s instead", cause: cause)
    }

    /// Starts the thread. It keeps only a weak reference to the store and ends when the store goes away.
    func run(for store: PreferencesStore) {
        let reference = WeakStoreReference(store)
        do {
            try POSIX.startThread { [self] in loop(reference) }
        } catch {
            store.configuration.diagnostics(
                StoreDiagnostic(
                    severity: .warning, domain: nil,
                    error: PrefsStoreError(.unavailable, "cannot start the background writer", cause: error)))
        }
    }

    /// Makes the thread re-examine its deadline now.
    func wake() {
        FileSystem.sendWake(wakeSend)
    }

    /// Ends the thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake()
    }

    private func loop(_ reference: WeakStoreReference) {
        let descriptors = watcher.map { [wakeReceive, $0] } ?? [wakeReceive]
        var nextPoll = ContinuousClock.now + Self.pollInterval
        while !stopping.load(ordering: .acquiring) {
            guard var timeout = reference.store?.workerTimeoutMilliseconds() else { return }
            // While a watched directory is gone, look for it again every second.
            if lostWatch.load(ordering: .acquiring), timeout < 0 || timeout > 1000 { timeout = 1000 }
            let polling = isPolling
            if polling {
                let untilPoll = Self.milliseconds(nextPoll - .now)
                if timeout < 0 || timeout > untilPoll { timeout = untilPoll }
            }
            let ready = FileSystem.waitUntilReadable(descriptors, timeoutMilliseconds: timeout)
            if ready[0] { FileSystem.drainWakes(wakeReceive) }
            if stopping.load(ordering: .acquiring) { return }
            guard let store = reference.store else { return }
            if ready.count > 1, ready[1], let watcher {
                store.handleWatchEvents(FileSystem.readWatchEvents(watcher))
            }
            if polling, ContinuousClock.now >= nextPoll {
                store.pollLoadedDomains()
                nextPoll = ContinuousClock.now + Self.pollInterval
            }
            store.flushDueDomains()
        }
    }

    /// A duration in whole milliseconds, rounded up, at least 0.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        if duration <= .zero { return 0 }
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    // MARK: Watches

    /// The directory a watch descriptor stands for.
    func directory(for watch: Int32) -> WatchedDirectory? {
        watches.withLock { $0[watch] }
    }

    /// Forgets a watch the kernel removed (its directory is gone).
    func forget(_ watch: Int32) {
        _ = watches.withLock { $0.removeValue(forKey: watch) }
        lostWatch.store(true, ordering: .releasing)
    }

    /// Watches again the directories that went away and exist again (the store recreates them when it writes).
    /// - Returns: The scopes of the directories watched again, whose loaded domains must be re-read.
    func rewatchIfNeeded() -> [DomainScope] {
        guard lostWatch.exchange(false, ordering: .acquiringAndReleasing) else { return [] }
        let (scopes, failure) = watchExistingDirectories()
        if failure != nil { polls.store(true, ordering: .releasing) }
        let preferences = paths.preferencesDirectory
        if !watches.withLock({ $0.values.contains { $0.path == preferences } }) {
            lostWatch.store(true, ordering: .releasing)
        }
        return scopes
    }

    /// Watches every existing directory of domain files that is not watched yet.
    /// - Returns: The scopes of the directories it started to watch, and the failure of one it could not watch
    ///   (no watch left: the worker must poll).
    @discardableResult
    func watchExistingDirectories() -> (scopes: [DomainScope], failure: SystemCallError?) {
        var directories = [
            WatchedDirectory(scope: .user, path: paths.preferencesDirectory),
            WatchedDirectory(scope: .byHost, path: paths.byHostDirectory),
        ]
        if let system = paths.systemDirectory { directories.append(WatchedDirectory(scope: .system, path: system)) }
        if let forced = paths.forcedDirectory { directories.append(WatchedDirectory(scope: .forced, path: forced)) }
        for scope in [DomainScope.fleetForced, .fleetDefault] where watchesFleetCache {
            if let directory = paths.directory(of: scope) {
                directories.append(WatchedDirectory(scope: scope, path: directory))
            }
        }
        var scopes: [DomainScope] = []
        var failure: SystemCallError?
        for directory in directories {
            switch watch(directory) {
            case .success(true): scopes.append(directory.scope)
            case .success(false): break
            case .failure(let error): failure = failure ?? error
            }
        }
        return (scopes, failure)
    }

    /// Watches a directory if it exists and is not watched yet.
    /// - Returns: Whether it started to watch it, or why it could not (inotify refused the watch; the worker then
    ///   polls).
    @discardableResult
    func watch(_ directory: WatchedDirectory) -> Result<Bool, SystemCallError> {
        guard let watcher, POSIX.isDirectory(directory.path) else { return .success(false) }
        let alreadyWatched = watches.withLock { $0.values.contains { $0.path == directory.path } }
        if alreadyWatched { return .success(false) }
        do {
            // A directory that went away meanwhile is looked for again; any other refusal means polling.
            guard
                let descriptor = try FileSystem.addWatch(
                    watcher, directory: directory.path, mask: FileSystem.WatchMask.directoryChanges)
            else { return .success(false) }
            watches.withLock { $0[descriptor] = directory }
            return .success(true)
        } catch {
            polls.store(true, ordering: .releasing)
            return .failure(error)
        }
    }

    /// Watches the directory of a followed link's target for changes of the target, on behalf of `domain` (and no
    /// longer any target it had before). A directory no watch is left for means polling, as for the others.
    func watchLinkTarget(_ target: FileLocation, of domain: DomainID) {
        guard let watcher else { return }
        let descriptor: Int32?
        do {
            descriptor = try FileSystem.addWatch(
                watcher, directory: target.directory, mask: FileSystem.WatchMask.directoryChanges)
        } catch {
            polls.store(true, ordering: .releasing)
            return
        }
        linkTargets.withLock { targets in
            for (watch, names) in targets {
                for (name, id) in names where id == domain { targets[watch]?[name] = nil }
            }
            if let descriptor { targets[descriptor, default: [:]][target.fileName] = domain }
        }
    }

    /// The domain whose followed link leads to `fileName` in the directory of `watch`, if any.
    func linkedDomain(watch: Int32, fileName: String) -> DomainID? {
        linkTargets.withLock { $0[watch]?[fileName] }
    }

    /// Forgets the link targets of a watch the kernel removed.
    /// - Returns: The domains whose target's directory it was, to read again.
    func forgetLinkTargets(of watch: Int32) -> [DomainID] {
        linkTargets.withLock { targets in targets.removeValue(forKey: watch).map { Array($0.values) } ?? [] }
    }

    /// The subdirectories watched when `name` appears inside a directory of `scope`: `ByHost` in the user's, the
    /// fleet cache's `forced` and `default` when `Fleet` appears there (prefsd renames the cache into place whole,
    /// docs/FLEET.md), `forced` in the system one.
    func subdirectories(named name: String, in scope: DomainScope) -> [WatchedDirectory] {
        switch scope {
        case .user where name == "ByHost": return [WatchedDirectory(scope: .byHost, path: paths.byHostDirectory)]
        case .user where watchesFleetCache && paths.fleetDirectory == paths.preferencesDirectory + "/" + name:
            return [DomainScope.fleetForced, .fleetDefault].compactMap { scope in
                paths.directory(of: scope).map { WatchedDirectory(scope: scope, path: $0) }
            }
        case .system where name == "forced":
            return paths.forcedDirectory.map { [WatchedDirectory(scope: .forced, path: $0)] } ?? []
        default: return []
        }
    }
}

/// A weak reference the worker thread can hold without keeping the store alive.
final class WeakStoreReference: Sendable {
    weak let store: PreferencesStore?

    init(_ store: PreferencesStore) {
        self.store = store
    }
}
