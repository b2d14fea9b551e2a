import PrefsPlist
import PrefsStore

/// ``DefaultsStorage`` on the domain files directly, through a `PreferencesStore`: its `flock` per domain, atomic
/// writes that merge with other writers, corrupt files set aside, and inotify for `watch`.
final class StoreStorage: DefaultsStorage {
    /// The store.
    let store: PreferencesStore
    private let warnings: WarningLog

    /// Opens the store on a set of directories.
    /// - Parameters:
    ///   - paths: The directories (and machine id) to use.
    ///   - watchesFiles: Whether other processes' changes arrive as they happen (for `watch`); one-shot commands
    ///     read the files once and need no watching.
    init(paths: StorePaths, watchesFiles: Bool) {
        let warnings = WarningLog()
        self.warnings = warnings
        // A command synchronizes before it exits, so nothing is left for an exit handler.
        let configuration = StoreConfiguration(
            watchesFiles: watchesFiles, flushesAtExit: false, diagnostics: { warnings.append($0) })
        store = PreferencesStore(paths: paths, configuration: configuration)
    }

    func values(of domain: DomainID) throws(DefaultsError) -> [String: PlistValue]? {
        do {
            let values = try store.persistentDomain(domain)
            return values?.isEmpty == false ? values : nil
        } catch {
            throw Self.error(error)
        }
    }

    func setValues(_ changes: [String: PlistValue?], in domain: DomainID) throws(DefaultsError) {
        do {
            try store.setMany(changes, in: domain)
        } catch {
            throw Self.error(error)
        }
    }

    func replaceValues(of domain: DomainID, with values: [String: PlistValue]) throws(DefaultsError) {
        do {
            try store.setPersistentDomain(values, for: domain)
        } catch {
            throw Self.error(error)
        }
    }

    func domainNames(in scope: DomainScope) throws(DefaultsError) -> [DomainName] {
        do {
            return try store.domainNames(scope: scope)
        } catch {
            throw Self.error(error)
        }
    }

    func explain(_ key: String, in searchList: SearchList) throws(DefaultsError) -> KeyExplanation {
        let resolution = store.resolve(key, in: searchList)
        func source(_ candidate: Resolution.Candidate) -> KeyExplanation.Source {
            KeyExplanation.Source(layer: candidate.layer.description, path: candidate.path, value: candidate.value)
        }
        // The explanation reports broken layers itself; the store's warnings about them would say it twice.
        _ = warnings.take()
        return KeyExplanation(
            key: key, winner: resolution.winner.map(source), shadowed: resolution.shadowed.map(source),
            skipped: resolution.skipped.map {
                KeyExplanation.Skipped(layer: $0.layer.description, problem: $0.error.description)
            })
    }

    func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(DefaultsError) -> (observation: any DefaultsObservation, values: [String: PlistValue]) {
        let filter = key.map { ChangeFilter.key($0, in: domain) } ?? .domain(domain)
        let subscription = store.subscribe(filter, handler: handler)
        return (subscription.token, subscription.snapshot.values)
    }

    func synchronize() throws(DefaultsError) {
        do {
            try store.synchronize()
        } catch {
            throw Self.error(error)
        }
    }

    func takeWarnings() -> [DefaultsError] {
        warnings.take().map { diagnostic in
            DefaultsError(
                .storage, "defaults: \(diagnostic.severity.rawValue): \(diagnostic.error)", path: diagnostic.error.path,
                cause: diagnostic.error)
        }
    }

    /// A store error as the command reports it.
    static func error(_ error: PrefsStoreError) -> DefaultsError {
        let code: DefaultsError.Code =
            switch error.code {
            case .corruptFile: .corruptDomain
            case .invalidDomainName: .invalidArgument
            default: .storage
            }
        return DefaultsError(code, "defaults: \(error)", path: error.path, cause: error)
    }
}

extension ObservationToken: DefaultsObservation {}
