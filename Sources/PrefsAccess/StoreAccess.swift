// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist
package import PrefsStore
import Synchronization

/// ``DomainAccess`` through a `PreferencesStore`, the engine: on the domain files directly (its `flock` per domain,
/// atomic writes that merge with other writers, corrupt files set aside, inotify for observation), in memory, or on
/// `prefsd` as the engine's source (``DaemonDomains``, the `Preferences` library's route through the daemon).
package final class StoreAccess: DomainAccess {
    /// The store.
    package let store: PreferencesStore
    private let diagnostics = DiagnosticLog()

    /// Opens a store of its own on a set of directories; its diagnostics are kept for ``takeDiagnostics()`` and
    /// passed on to the configuration's handler.
    /// - Parameters:
    ///   - paths: The directories (and machine id) to use.
    ///   - configuration: The store's behaviour.
    package init(paths: StorePaths, configuration: StoreConfiguration) {
        var configuration = configuration
        let forward = configuration.diagnostics
        configuration.diagnostics = { [diagnostics] diagnostic in
            diagnostics.append(diagnostic)
            forward(diagnostic)
        }
        store = PreferencesStore(paths: paths, configuration: configuration)
    }

    /// Serves an existing store (the library's engine); its diagnostics go where the store sends them.
    package init(store: PreferencesStore) {
        self.store = store
    }

    package var route: AccessRoute {
        if let daemon = store.domainSource as? DaemonDomains { return .daemon(socketPath: daemon.access.socketPath) }
        return .files(directory: store.domainSource is FileDomains ? store.paths.preferencesDirectory : "memory")
    }

    package func values(of domain: DomainID) throws(PrefsAccessError) -> PlistDictionary? {
        do {
            let values = try store.persistentDomain(domain)
            return values?.isEmpty == false ? values : nil
        } catch {
            throw PrefsAccessError(error)
        }
    }

    @discardableResult
    package func setValue(
        _ value: PlistValue?, forKey key: String, in domain: DomainID
    ) throws(PrefsAccessError) -> UInt64 {
        do {
            return try store.set(value, forKey: key, in: domain)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    @discardableResult
    package func setValues(_ changes: [PlistKey: PlistValue?], in domain: DomainID) throws(PrefsAccessError) -> UInt64 {
        do {
            return try store.setMany(changes, in: domain)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    @discardableResult
    package func replaceValues(
        of domain: DomainID, with values: PlistDictionary
    ) throws(PrefsAccessError) -> UInt64 {
        do {
            return try store.setPersistentDomain(values, for: domain)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    package func update<Outcome>(
        _ domain: DomainID, maxAttempts: Int, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsAccessError) -> (outcome: Outcome, version: UInt64) {
        do {
            let (outcome, sequence) = try store.update(domain, maxAttempts: maxAttempts, body)
            return (outcome, sequence)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    package func update(
        key: String, in domain: DomainID, maxAttempts: Int,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> (value: PlistValue?, version: UInt64) {
        do {
            let (value, sequence) = try store.update(forKey: key, in: domain, transform)
            return (value, sequence)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    package func domainNames(in scope: DomainScope) throws(PrefsAccessError) -> [DomainName] {
        do {
            return try store.domainNames(scope: scope)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    package func resolve(_ key: String, in searchList: SearchList) throws(PrefsAccessError) -> Resolution {
        store.resolve(key, in: searchList)
    }

    package func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(PrefsAccessError) -> (observation: any AccessObservation, values: PlistDictionary) {
        let filter = key.map { ChangeFilter.key($0, in: domain) } ?? .domain(domain)
        let subscription = store.subscribe(filter, handler: handler)
        return (subscription.token, subscription.snapshot.values)
    }

    package func synchronize() throws(PrefsAccessError) {
        do {
            // A failed synchronize withdraws this process's unwritten changes of the domains it could not write, as
            // prefsd withdraws its client's: a write is durable, or it changes nothing.
            try store.synchronize(withdrawingOnFailure: .thisProcess)
        } catch {
            throw PrefsAccessError(error)
        }
    }

    package func takeDiagnostics() -> [StoreDiagnostic] {
        diagnostics.take()
    }

    /// Reports a problem of the access itself (such as a fall-back from prefsd) as the store reports its own: kept
    /// for ``takeDiagnostics()`` and passed to the configuration's handler.
    func report(_ diagnostic: StoreDiagnostic) {
        store.configuration.diagnostics(diagnostic)
    }
}

/// The diagnostics a ``StoreAccess`` store reported, kept until the caller takes them.
final class DiagnosticLog: Sendable {
    private let entries = Mutex<[StoreDiagnostic]>([])

    /// Keeps a diagnostic.
    func append(_ diagnostic: StoreDiagnostic) {
        entries.withLock { $0.append(diagnostic) }
    }

    /// Returns the diagnostics kept so far and forgets them.
    func take() -> [StoreDiagnostic] {
        entries.withLock { entries in
            defer { entries = [] }
            return entries
        }
    }
}
