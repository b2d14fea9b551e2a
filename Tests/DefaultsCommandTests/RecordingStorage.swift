import PrefsPlist
import PrefsStore
import Synchronization

@testable import DefaultsCommand

/// Storage in memory that records every call, and can be told to fail.
final class RecordingStorage: DefaultsStorage {
    struct State {
        var domains: [DomainID: [String: PlistValue]] = [:]
        var calls: [String] = []
        var warnings: [DefaultsError] = []
    }

    let state = Mutex(State())
    let failsToSynchronize: Bool

    init(domains: [DomainID: [String: PlistValue]] = [:], failsToSynchronize: Bool = false) {
        state.withLock { $0.domains = domains }
        self.failsToSynchronize = failsToSynchronize
    }

    var calls: [String] { state.withLock { $0.calls } }

    func values(of domain: DomainID) throws(DefaultsError) -> [String: PlistValue]? {
        state.withLock { $0.domains[domain] }
    }

    func setValues(_ changes: [String: PlistValue?], in domain: DomainID) throws(DefaultsError) {
        state.withLock { state in
            state.calls.append("setValues \(domain) \(changes.keys.sorted().joined(separator: ","))")
            var values = state.domains[domain] ?? [:]
            for (key, value) in changes { values[key] = value }
            state.domains[domain] = values.isEmpty ? nil : values
        }
    }

    func replaceValues(of domain: DomainID, with values: [String: PlistValue]) throws(DefaultsError) {
        state.withLock { state in
            state.calls.append("replaceValues \(domain) \(values.keys.sorted().joined(separator: ","))")
            state.domains[domain] = values.isEmpty ? nil : values
        }
    }

    func domainNames(in scope: DomainScope) throws(DefaultsError) -> [DomainName] {
        state.withLock { $0.domains.keys.filter { $0.scope == scope }.map(\.name).sorted() }
    }

    func explain(_ key: String, in searchList: SearchList) throws(DefaultsError) -> KeyExplanation {
        KeyExplanation(key: key, winner: nil, shadowed: [], skipped: [])
    }

    func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(DefaultsError) -> (observation: any DefaultsObservation, values: [String: PlistValue]) {
        throw DefaultsError(.unsupported, "not recorded")
    }

    func synchronize() throws(DefaultsError) {
        state.withLock { $0.calls.append("synchronize") }
        if failsToSynchronize {
            throw DefaultsError(.storage, "defaults: disk full", path: "/prefs/D.plist")
        }
    }

    func takeWarnings() -> [DefaultsError] {
        state.withLock { state in
            defer { state.warnings = [] }
            return state.warnings
        }
    }
}
