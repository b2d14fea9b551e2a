// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsPlist
import PrefsStore
import Synchronization

/// `defaults watch -effective`: prints one line each time the value an application reads changes, whichever layer
/// changed it (forced, fleet-managed, user, by-host, a suite, global, system), until SIGINT or SIGTERM.
///
/// Lines are `<domain> <key> = <value> from <layer>`, the layer named as `explain` names it, or `<domain> <key> is not
/// set in any layer`. A change in a layer that another one shadows prints nothing, since what the application reads
/// stays the same. The shipped defaults are searched but not watched: they change only when a package is installed.
///
/// Every layer of the search list is observed; the observers only note which keys changed, and the command's own
/// thread resolves those keys between its waits for the signals (every ``interval`` milliseconds), so that no
/// request is made from a thread that delivers events.
final class EffectiveChangeWatcher: Sendable {
    /// How often changed keys are resolved, in milliseconds.
    static let interval = 50

    private struct State {
        /// Keys a layer changed since the last round.
        var changed: Set<String> = []
        /// The line last printed (or in effect at the start) for each key.
        var shown: [String: String] = [:]
    }

    private let storage: any DomainAccess
    private let console: any Console
    private let searchList: SearchList
    private let key: String?
    private let observations = Mutex<[any AccessObservation]>([])
    private let state = Mutex(State())

    /// Creates the watcher; ``start()`` begins observing.
    init(storage: any DomainAccess, console: any Console, searchList: SearchList, key: String?) {
        self.storage = storage
        self.console = console
        self.searchList = searchList
        self.key = key
    }

    /// Observes every layer, then takes what is in effect as the starting point: only changes print.
    /// - Throws: ``DefaultsError`` when a layer cannot be observed or a key resolved.
    func start() throws(DefaultsError) {
        var keys: Set<String> = key.map { [$0] } ?? []
        for domain in searchList.domains where domain.scope != .shipped {
            let (observation, values) = try CommandRunner.checked {
                try storage.observe(domain, key: key) { events in
                    self.state.withLock { $0.changed.formUnion(events.map(\.key)) }
                }
            }
            observations.withLock { $0.append(observation) }
            if key == nil { keys.formUnion(values.keys) }
        }
        for key in keys {
            let line = try currentLine(for: key)
            state.withLock { $0.shown[key] = line }
        }
    }

    /// Says on standard error what is watched, then prints the changes of effective values until one of
    /// `stopSignals` arrives.
    func run(until stopSignals: SystemCalls.StopSignals) {
        let label = searchList.domain.rawValue
        let what =
            key.map { "the effective value of \(PlistValue.quotedDefaultsText($0)) in \(label)" }
            ?? "the effective values of \(label)"
        console.writeError("Watching \(what), from every layer; press Control-C to stop.\n")
        while !stopSignals.wait(milliseconds: Self.interval) {
            let changed = state.withLock { state in
                defer { state.changed = [] }
                return state.changed
            }
            var lines: [String] = []
            for key in changed.sorted(by: { $0.utf16.lexicographicallyPrecedes($1.utf16) }) {
                do throws(DefaultsError) {
                    let line = try currentLine(for: key)
                    let isNew = state.withLock { state in
                        defer { state.shown[key] = line }
                        return state.shown[key] != line
                    }
                    if isNew { lines.append(line) }
                } catch {
                    console.writeError(error.message)
                }
            }
            if !lines.isEmpty { try? console.writeOutput(lines.joined()) }
            for warning in storage.takeDiagnostics() { console.writeError(DefaultsError(warning).message) }
        }
        for observation in observations.withLock({ $0 }) { observation.cancel() }
    }

    /// The line for the key's effective value now.
    private func currentLine(for key: String) throws(DefaultsError) -> String {
        let resolution = try CommandRunner.checked { try storage.resolve(key, in: searchList) }
        return Self.line(label: searchList.domain.rawValue, key: key, winner: KeyExplanation(resolution).winner)
    }

    /// `com.example.App Theme = dark from fleet-managed forced com.example.App`, or `com.example.App Theme is not
    /// set in any layer`.
    static func line(label: String, key: String, winner: KeyExplanation.Source?) -> String {
        let name = PlistValue.quotedDefaultsText(key)
        guard let winner else { return "\(label) \(name) is not set in any layer\n" }
        return "\(label) \(name) = \(winner.value.compactDescription) from \(winner.layer)\n"
    }
}
