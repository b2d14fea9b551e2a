// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore
import Synchronization

/// What the browser reads and writes: the user's preferences through the engine (`PreferencesStore`) on the route
/// `defaults` would take, prefsd or the files; the engine keeps the loaded domains current (inotify on the files,
/// subscriptions through prefsd), and every edit is one compare-and-set update through the access layer.
final class BrowserCatalog: Sendable {
    let store: PreferencesStore
    let access: StoreAccess
    /// The keys changed by others since the browser last asked, by domain name.
    private let changed = Mutex<[DomainName: Set<String>]>([:])
    private let observations = Mutex<[DomainName: [ObservationToken]]>([:])

    init(store: PreferencesStore) {
        self.store = store
        self.access = StoreAccess(store: store)
    }

    /// `files in /home/ada/.config/preferences`, or `prefsd at /run/user/1000/prefsd/socket`.
    var routeDescription: String { access.route.description }

    // MARK: Domains

    /// Every domain of every layer, by name, with the layers that hold it; the global domain first.
    func domains() -> [DomainEntry] {
        var scopes: [DomainName: Set<DomainScope>] = [:]
        for scope in DomainScope.allCases {
            for name in (try? store.domainNames(scope: scope)) ?? [] { scopes[name, default: []].insert(scope) }
        }
        return scopes.map { DomainEntry(name: $0.key, scopes: $0.value) }.sorted()
    }

    /// The layers the browser shows for a domain: as an application of that name reads it, without the global
    /// domain's layers (the global domain has its own entry) and the process-local ones.
    func searchList(for name: DomainName) -> SearchList {
        SearchList(domain: name, includesByHost: true, includesArguments: false, includesGlobal: name.isGlobal)
    }

    /// The effective keys of a domain, each with the layer that supplies it and what it shadows, sorted by key.
    func rows(for name: DomainName) -> [KeyRow] {
        let list = searchList(for: name)
        watch(name, list)
        var rows: [String: KeyRow] = [:]
        for layer in list.layers {
            guard case .domain(let id) = layer else { continue }
            for (key, value) in store.snapshot(of: id).values {
                if rows[key] != nil {
                    rows[key]!.shadowedLayers += 1
                    continue
                }
                rows[key] = KeyRow(key: key, value: value, layer: layer)
            }
        }
        return rows.values.sorted { $0.key < $1.key }
    }

    /// Where a key's value comes from: every layer that holds it, top to bottom, with its file (and etcd key).
    func explanation(of key: String, in name: DomainName) -> Resolution {
        store.resolve(key, in: searchList(for: name))
    }

    /// A domain layer's own value of a key, as stored now.
    func storedValue(of key: String, in domain: DomainID) -> PlistValue? {
        store.snapshot(of: domain).values[key]
    }

    /// The schema that describes a domain (docs/SCHEMAS.md): the first readable one of the user's, system and
    /// shipped layers; `nil` when none does.
    func schema(for name: DomainName) -> DomainSchema? {
        SchemaLookup.find(for: name, in: store.paths).schema
    }

    /// Takes the keys of each domain changed since the last call.
    func takeChanges() -> [DomainName: Set<String>] {
        changed.withLock { changed in
            defer { changed = [:] }
            return changed
        }
    }

    /// Observes a domain's layers once, so that changes by others reach ``takeChanges()``.
    private func watch(_ name: DomainName, _ list: SearchList) {
        guard observations.withLock({ $0[name] == nil }) else { return }
        var tokens: [ObservationToken] = []
        for id in list.domains {
            tokens.append(
                store.observe(.domain(id)) { [weak self] events in
                    self?.changed.withLock { changed in
                        for event in events { changed[name, default: []].insert(event.key) }
                    }
                })
        }
        observations.withLock { $0[name] = tokens }
    }

    // MARK: Edits

    /// What an edit did.
    enum EditOutcome: Equatable {
        /// Written, durably.
        case written
        /// Nothing written: the layer no longer held what the browser showed; it holds `current` now.
        case conflict(current: PlistValue?)
    }

    /// Sets or removes a key in a writable layer, only if the layer still holds what the browser showed.
    /// - Parameters:
    ///   - value: The new value; `nil` removes the key.
    ///   - key: The key.
    ///   - domain: A user or by-host domain.
    ///   - expected: The layer's value of the key when it was shown (`nil`: it had none).
    /// - Throws: ``BrowserError`` with code `.storage` when the write is refused or fails.
    func write(
        _ value: PlistValue?, forKey key: String, in domain: DomainID, expecting expected: PlistValue?
    ) throws(BrowserError) -> EditOutcome {
        do {
            let (outcome, _) = try access.update(domain) { values -> EditOutcome in
                guard values[key] == expected else { return .conflict(current: values[key]) }
                values[key] = value
                return .written
            }
            return outcome
        } catch {
            throw BrowserError(.storage, error.message, cause: error)
        }
    }
}
