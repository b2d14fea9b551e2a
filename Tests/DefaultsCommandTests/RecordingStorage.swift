// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore
import Synchronization

@testable import DefaultsArguments
@testable import DefaultsCommand

/// Domains in memory behind the access layer's interface, recording every change, and told to fail on demand.
final class RecordingStorage: DomainAccess {
    struct State {
        var domains: [DomainID: PlistDictionary] = [:]
        var calls: [String] = []
        var diagnostics: [StoreDiagnostic] = []
        var version: UInt64 = 0
    }

    let state = Mutex(State())
    let failsToSynchronize: Bool

    init(domains: [DomainID: PlistDictionary] = [:], failsToSynchronize: Bool = false) {
        state.withLock { $0.domains = domains }
        self.failsToSynchronize = failsToSynchronize
    }

    var calls: [String] { state.withLock { $0.calls } }

    var route: AccessRoute { .files(directory: "memory") }

    func values(of domain: DomainID) throws(PrefsAccessError) -> PlistDictionary? {
        state.withLock { $0.domains[domain] }
    }

    func setValue(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsAccessError) -> UInt64 {
        try setValues([PlistKey(key): value], in: domain)
    }

    func setValues(_ changes: [PlistKey: PlistValue?], in domain: DomainID) throws(PrefsAccessError) -> UInt64 {
        state.withLock { state in
            state.calls.append("setValues \(domain) \(changes.keys.sorted().map(\.string).joined(separator: ","))")
            var values = state.domains[domain] ?? [:]
            for (key, value) in changes { values[key] = value }
            state.domains[domain] = values.isEmpty ? nil : values
            state.version += 1
            return state.version
        }
    }

    func replaceValues(of domain: DomainID, with values: PlistDictionary) throws(PrefsAccessError) -> UInt64 {
        state.withLock { state in
            state.calls.append("replaceValues \(domain) \(values.keys.sorted().joined(separator: ","))")
            state.domains[domain] = values.isEmpty ? nil : values
            state.version += 1
            return state.version
        }
    }

    func update<Outcome>(
        _ domain: DomainID, maxAttempts: Int, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsAccessError) -> (outcome: Outcome, version: UInt64) {
        let old = state.withLock { $0.domains[domain] } ?? [:]
        var values = old
        let outcome = body(&values)
        let changed = Set(old.keys).union(values.keys).filter { old[$0] != values[$0] }
        let new = values
        let version = state.withLock { state in
            if !changed.isEmpty {
                state.calls.append("update \(domain) \(changed.sorted().joined(separator: ","))")
                state.domains[domain] = new.isEmpty ? nil : new
                state.version += 1
            }
            return state.version
        }
        return (outcome, version)
    }

    func update(
        key: String, in domain: DomainID, maxAttempts: Int,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> (value: PlistValue?, version: UInt64) {
        let (value, version) = try update(domain, maxAttempts: maxAttempts) { values in
            values[key] = transform(values[key])
            return values[key]
        }
        return (value, version)
    }

    func domainNames(in scope: DomainScope) throws(PrefsAccessError) -> [DomainName] {
        state.withLock { $0.domains.keys.filter { $0.scope == scope }.map(\.name).sorted() }
    }

    func resolve(_ key: String, in searchList: SearchList) throws(PrefsAccessError) -> Resolution {
        Resolution(key: key, winner: nil, shadowed: [], skipped: [])
    }

    func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(PrefsAccessError) -> (observation: any AccessObservation, values: PlistDictionary) {
        throw PrefsAccessError(.unavailable, "not recorded")
    }

    func synchronize() throws(PrefsAccessError) {
        state.withLock { $0.calls.append("synchronize") }
        if failsToSynchronize {
            throw PrefsAccessError(.ioFailure, "disk full", path: "/prefs/D.plist")
        }
    }

    func takeDiagnostics() -> [StoreDiagnostic] {
        state.withLock { state in
            defer { state.diagnostics = [] }
            return state.diagnostics
        }
    }
}
