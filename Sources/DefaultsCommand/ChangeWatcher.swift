// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsPlist
import PrefsStore
import Synchronization

/// `defaults watch`: prints one line per change to a domain, a key, or every domain, until SIGINT or SIGTERM.
///
/// Lines are `<domain> <key> = <value>` or `<domain> <key> deleted`, the key and value in `read`'s quoting on one
/// line (``PlistValue/compactDescription``). Watching every domain, new domains are found by listing the directory
/// every ``discoveryInterval``; the keys a new domain already holds print as changes, so nothing is missed.
///
/// It runs on the command's own thread, which waits for the signals between rounds (`sigtimedwait`), and starts no
/// Swift concurrency: a command-line tool needs no service group for one loop, and without swift-service-lifecycle
/// and the async-algorithms it brings, `defaults` is 2 MB smaller (docs/PACKAGING.md, "Linking").
final class ChangeWatcher: Sendable {
    /// What is watched.
    enum Subject: Sendable {
        /// One domain (or one key of it), labelled in each line as the command line named it.
        case domain(DomainID, label: String, key: String?)
        /// Every domain of a scope, including domains created later.
        case everyDomain(DomainScope)
    }

    /// How often the domain list is read again when watching every domain, in milliseconds.
    static let discoveryInterval = 250

    private let storage: any DomainAccess
    private let console: any Console
    private let subject: Subject
    private let observations = Mutex<[DomainID: any AccessObservation]>([:])

    /// Creates the watcher; ``start()`` begins observing.
    init(storage: any DomainAccess, console: any Console, subject: Subject) {
        self.storage = storage
        self.console = console
        self.subject = subject
    }

    /// Observes the watched domains, before anything is said, so that no change is missed.
    /// - Throws: ``DefaultsError`` when the domains cannot be listed or observed.
    func start() throws(DefaultsError) {
        switch subject {
        case .domain(let domain, let label, let key):
            try observe(domain, label: label, key: key, printingExisting: false)
        case .everyDomain(let scope):
            try discover(scope, printingExisting: false)
        }
    }

    /// Says on standard error what is watched, then looks for new domains and prints warnings until one of
    /// `stopSignals` arrives.
    ///
    /// The signals are blocked before anything is observed (``SystemCalls/StopSignals/block()``), so once the line
    /// is out an interrupt ends the watch cleanly, and the threads that deliver changes never take them.
    func run(until stopSignals: SystemCalls.StopSignals) {
        switch subject {
        case .domain(_, let label, let key):
            let what = key.map { "key \(PlistValue.quotedDefaultsText($0)) of domain \(label)" } ?? "domain \(label)"
            console.writeError("Watching \(what); press Control-C to stop.\n")
        case .everyDomain:
            console.writeError("Watching every domain; press Control-C to stop.\n")
        }
        while !stopSignals.wait(milliseconds: Self.discoveryInterval) {
            if case .everyDomain(let scope) = subject { try? discover(scope, printingExisting: true) }
            for warning in storage.takeDiagnostics() { console.writeError(DefaultsError(warning).message) }
        }
        let ended = observations.withLock { observations in
            defer { observations = [:] }
            return Array(observations.values)
        }
        for observation in ended { observation.cancel() }
    }

    /// Observes domains not yet observed; with `printingExisting`, the keys they hold print as new.
    private func discover(_ scope: DomainScope, printingExisting: Bool) throws(DefaultsError) {
        for name in try CommandRunner.checked({ try storage.domainNames(in: scope) }) {
            let domain = DomainID(name, scope: scope)
            if observations.withLock({ $0[domain] != nil }) { continue }
            try observe(domain, label: name.rawValue, key: nil, printingExisting: printingExisting)
        }
    }

    private func observe(
        _ domain: DomainID, label: String, key: String?, printingExisting: Bool
    ) throws(DefaultsError) {
        let console = console
        let (observation, values) = try CommandRunner.checked {
            try storage.observe(domain, key: key) { events in
                let lines = events.map { Self.line(label: label, key: $0.key, value: $0.newValue) }
                try? console.writeOutput(lines.joined())
            }
        }
        observations.withLock { $0[domain] = observation }
        if printingExisting, !values.isEmpty {
            let keys = values.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            try? console.writeOutput(keys.map { Self.line(label: label, key: $0, value: values[$0]) }.joined())
        }
    }

    /// `com.example.App Theme = dark`, or `com.example.App Theme deleted`.
    static func line(label: String, key: String, value: PlistValue?) -> String {
        let name = PlistValue.quotedDefaultsText(key)
        guard let value else { return "\(label) \(name) deleted\n" }
        return "\(label) \(name) = \(value.compactDescription)\n"
    }
}
