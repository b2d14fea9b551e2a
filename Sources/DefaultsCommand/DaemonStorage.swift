import PrefsClient
import PrefsPlist
import PrefsStore
import PrefsWire

/// ``DefaultsStorage`` through the `prefsd` daemon, when it runs: every read and write is a request on one
/// connection, so the command sees exactly what the daemon's other clients see and its writes reach their
/// subscriptions at once; `watch` subscribes on a connection of its own.
///
/// ``opener(environment:)`` picks it for the user's own directories when the daemon's socket answers (and
/// `PREFERENCES_DAEMON` is not `off`), and ``StoreStorage`` on the files otherwise, and always for a domain given
/// as a file path.
final class DaemonStorage: DefaultsStorage {
    let client: PrefsBlockingClient

    init(client: PrefsBlockingClient) {
        self.client = client
    }

    /// The storage opener of the `defaults` executable: the daemon when it answers, else the files.
    static func opener(environment: DefaultsEnvironment) -> CommandRunner.StorageOpener {
        let userDirectory = environment.userPaths(machineID: nil).preferencesDirectory
        let mode = (SystemCalls.environmentVariable("PREFERENCES_DAEMON") ?? "auto").lowercased()
        let usesDaemon = !["off", "no", "0", "false"].contains(mode)
        return { paths, watchesFiles in
            if usesDaemon, paths.preferencesDirectory == userDirectory,
                let client = try? PrefsBlockingClient(clientName: "defaults", timeout: .seconds(30))
            {
                return DaemonStorage(client: client)
            }
            return StoreStorage(paths: paths, watchesFiles: watchesFiles)
        }
    }

    func values(of domain: DomainID) throws(DefaultsError) -> [String: PlistValue]? {
        let result: WireResult
        let wireDomain = try Self.wireDomain(domain)
        do throws(PrefsClientError) {
            result = try client.send(.readDomain(wireDomain))
        } catch  where error.serverError?.code == .notFound {
            return nil
        } catch {
            throw Self.error(error)
        }
        guard case .readDomain(let values, _) = result else { throw Self.unexpected(result) }
        return values.isEmpty ? nil : values
    }

    func setValues(_ changes: [String: PlistValue?], in domain: DomainID) throws(DefaultsError) {
        var values: [String: PlistValue] = [:]
        var removeKeys: [String] = []
        for (key, value) in changes {
            if let value { values[key] = value } else { removeKeys.append(key) }
        }
        try perform(
            .setMany(try Self.wireDomain(domain), values: values, removeKeys: removeKeys.sorted(), expectedVersion: nil)
        )
    }

    func replaceValues(of domain: DomainID, with values: [String: PlistValue]) throws(DefaultsError) {
        try perform(.writeDomain(try Self.wireDomain(domain), values: values, expectedVersion: nil))
    }

    func domainNames(in scope: DomainScope) throws(DefaultsError) -> [DomainName] {
        let operation: WireOperation
        switch scope {
        case .user: operation = .listDomains(scope: .user, byHost: false)
        case .byHost: operation = .listDomains(scope: .user, byHost: true)
        case .system: operation = .listDomains(scope: .system, byHost: false)
        case .forced: operation = .listDomains(scope: .forced, byHost: false)
        case .shipped:
            throw DefaultsError(.unsupported, "defaults: prefsd does not list the shipped registration domains")
        }
        let result = try perform(operation)
        guard case .listDomains(let names) = result else { throw Self.unexpected(result) }
        return names.compactMap { try? DomainName($0) }
    }

    func explain(_ key: String, in searchList: SearchList) throws(DefaultsError) -> KeyExplanation {
        let list = WireSearchList(app: searchList.domain.rawValue, suites: searchList.suites.map(\.rawValue))
        let result = try perform(.getEffective(list, key: key))
        guard case .getEffective(let resolution) = result else { throw Self.unexpected(result) }
        func layer(_ source: WireSource) -> String {
            let scope: String
            switch source.layer {
            case .forced: scope = "forced"
            case .system: scope = "system"
            case .registration: scope = "shipped"
            case .argument: scope = "arguments"
            case .app, .suite, .global: scope = source.byHost ? "byHost" : "user"
            }
            return "\(scope) \(source.domain)"
        }
        func entry(_ entry: WireResolution.Entry) -> KeyExplanation.Source {
            KeyExplanation.Source(layer: layer(entry.source), path: entry.source.path, value: entry.value)
        }
        return KeyExplanation(
            key: key, winner: resolution.found.map(entry), shadowed: resolution.shadowed.map(entry),
            skipped: resolution.skipped.map { KeyExplanation.Skipped(layer: layer($0.source), problem: $0.reason) })
    }

    func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(DefaultsError) -> (observation: any DefaultsObservation, values: [String: PlistValue]) {
        let wireDomain = try Self.wireDomain(domain)
        let filter = WireSubscriptionFilter(.domain(wireDomain), keys: key.map { .key($0) } ?? .all)
        let subscription: PrefsBlockingClient.Subscription
        do {
            subscription = try client.subscribe(filter) { event in
                guard let event else { return }
                switch event {
                case .changes(let changes, let origin):
                    handler(changes.map { Self.changeEvent($0, origin: origin, domain: domain) })
                case .resync:
                    // The daemon's queue for this watcher overflowed: what changed in between is in the daemon's
                    // snapshot, not in events; a watcher reading lines cannot be given a snapshot, so it goes on.
                    break
                }
            }
        } catch {
            throw Self.error(error)
        }
        return (subscription, subscription.snapshot.values)
    }

    func synchronize() throws(DefaultsError) {
        try perform(.synchronize)
    }

    func takeWarnings() -> [DefaultsError] { [] }

    // MARK: - Mapping

    @discardableResult
    private func perform(_ operation: WireOperation) throws(DefaultsError) -> WireResult {
        do {
            return try client.send(operation)
        } catch {
            throw Self.error(error)
        }
    }

    static func wireDomain(_ domain: DomainID) throws(DefaultsError) -> WireDomain {
        switch domain.scope {
        case .user: return WireDomain(domain.name.rawValue)
        case .byHost: return WireDomain(domain.name.rawValue, byHost: true)
        case .system: return WireDomain(domain.name.rawValue, scope: .system)
        case .forced: return WireDomain(domain.name.rawValue, scope: .forced)
        case .shipped:
            throw DefaultsError(.unsupported, "defaults: prefsd does not serve the shipped domain \(domain.name)")
        }
    }

    static func changeEvent(_ change: WireChange, origin: WireOrigin, domain: DomainID) -> ChangeEvent {
        let changeOrigin: ChangeOrigin
        switch (origin.kind, origin.pid, origin.uid) {
        case (.client, let pid?, let uid?): changeOrigin = .client(pid: pid, uid: uid)
        case (.file, let pid?, _): changeOrigin = .otherProcess(pid: pid)
        default: changeOrigin = .external
        }
        return ChangeEvent(
            domain: domain, key: change.key, oldValue: change.old, newValue: change.new, sequence: change.sequence,
            origin: changeOrigin)
    }

    /// A client error as the command reports it.
    static func error(_ error: PrefsClientError) -> DefaultsError {
        guard let server = error.serverError else {
            return DefaultsError(.storage, "defaults: \(error.description)", cause: error)
        }
        let code: DefaultsError.Code = server.code == .invalidName ? .invalidArgument : .storage
        return DefaultsError(code, "defaults: \(server.message)", path: server.path, cause: error)
    }

    private static func unexpected(_ result: WireResult) -> DefaultsError {
        DefaultsError(.storage, "defaults: prefsd answered with an unexpected \(result.operation) result")
    }
}

extension PrefsBlockingClient.Subscription: DefaultsObservation {}
