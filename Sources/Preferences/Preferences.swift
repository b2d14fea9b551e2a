// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
@_exported public import PrefsPlist
import PrefsStore
import Synchronization

/// An application's preferences: the `UserDefaults` surface, on Linux, with typed keys, change streams and
/// explanations on top.
///
/// ```swift
/// let defaults = Preferences.standard                 // domain from the executable's name
/// defaults.set(36, forKey: "age")
/// let age = defaults.integer(forKey: "age")           // 36
/// defaults.synchronize()                              // on disk now (else within the flush delay)
/// ```
///
/// A read looks the key up in the instance's search list, first hit wins (docs/PREFERENCES.md): the administrator's
/// forced values, the argument domain, the domain by host and plain, each suite, the global domain, the system
/// layer, and the registration defaults. Writes go to the instance's own domain. Reads come from a merged view
/// kept current in memory (one lock and one hash lookup); writes change memory and are written within the flush
/// delay, at ``synchronize()``, and when the process exits normally. Changes by other processes and hand edits
/// arrive on their own (inotify).
///
/// The `UserDefaults`-style methods never throw: getters return `nil`, `0` or `false` for absent or unreadable
/// values, and a write the store refuses is reported to the storage's diagnostics handler (standard error by
/// default) and changes nothing. The throwing methods (``value(forKey:)``, ``setValue(_:forKey:)``,
/// ``synchronizeThrowing()``, ``value(for:)``) tell an absent key from a store that cannot answer.
///
/// Instances are thread-safe. Instances made with the same ``PreferencesStorage`` share one engine, one
/// registration layer and one argument layer.
public final class Preferences: Sendable {
    /// The domain this instance writes: the application's, or the suite's.
    public let domain: String
    let domainName: DomainName
    /// The user-scope domain writes go to.
    let writeDomain: DomainID
    let storage: PreferencesStorage
    /// The engine, shared by the instances of ``storage``: on the files, in memory, or caching prefsd's domains.
    let engine: PreferencesStore
    /// The access layer on the engine, for what `defaults` shares (updates, migrations, the mapping of errors).
    let access: StoreAccess
    /// Whether the administrator forces any key of this domain, without a lookup per write.
    let forcedKeys: ForcedKeyWatch
    private let search: Mutex<SearchState>
    /// The view of the current search list, read without a lock; every view it ever pointed to is kept alive by
    /// ``search`` until the instance goes away (one per distinct search list), so a reader never sees a released one.
    private let currentView: Atomic<Unmanaged<EffectiveView>>

    /// The search list and the views made for it.
    private struct SearchState {
        var suites: [DomainName]
        var list: SearchList
        var views: [EffectiveView]
    }

    /// The application's preferences: domain named after the executable (``applicationDomain``), default storage.
    public static let standard = Preferences(
        validated: applicationDomainName, suites: [], storage: .default)

    /// The domain ``standard`` uses: the executable's file name, with every character a domain name cannot hold
    /// replaced by `_` (a name that starts with `.` gets a leading `_`).
    public static var applicationDomain: String { applicationDomainName.rawValue }

    /// Creates the preferences of a domain.
    /// - Parameters:
    ///   - domain: The domain to read first and write to, such as `com.example.Editor` (`NSGlobalDomain` for the
    ///     global domain).
    ///   - suites: Domains searched after it, in this order (as ``addSuite(named:)`` adds them).
    ///   - storage: Where the domains live; instances with the same storage share one engine.
    /// - Throws: ``PreferencesError`` with code `invalidName` for a name that is not a valid domain name.
    public convenience init(
        domain: String, suites: [String] = [], storage: PreferencesStorage = .default
    ) throws(PreferencesError) {
        let name = try Self.domainName(domain)
        var suiteNames: [DomainName] = []
        for suite in suites { suiteNames.append(try Self.domainName(suite)) }
        self.init(validated: name, suites: suiteNames, storage: storage)
    }

    /// Creates the preferences of a domain with an argument domain parsed from the command line (opt-in).
    ///
    /// The argument domain is searched right after the forced values, by this instance and every other instance
    /// of the same storage, and is never written to disk. See ``parseArguments(_:)`` for the strict format.
    /// - Parameters:
    ///   - domain: The domain to read first and write to; the executable's (``applicationDomain``) by default.
    ///   - arguments: The command-line arguments without the program name, such as
    ///     `Array(CommandLine.arguments.dropFirst())`.
    ///   - storage: Where the domains live.
    /// - Throws: ``PreferencesError`` with code `invalidName` for a bad domain name, `invalidArgument` for
    ///   arguments that are not well-formed `-key value` pairs (nothing is set then).
    public convenience init(
        domain: String = Preferences.applicationDomain, arguments: [String], storage: PreferencesStorage = .default
    ) throws(PreferencesError) {
        let name = try Self.domainName(domain)
        let values = try Self.parseArguments(arguments)
        self.init(validated: name, suites: [], storage: storage)
        engine.setArgumentDomain(values)
    }

    /// Creates the preferences of a suite, as `UserDefaults(suiteName:)` does: the suite's domain is read first and
    /// written to, then the global domain and the lower layers.
    /// - Parameters:
    ///   - suiteName: The suite's domain, such as `com.example.shared`; `nil` gives the application's domain.
    ///   - storage: Where the domains live.
    /// - Returns: `nil` when the name is not a valid domain name, or is `NSGlobalDomain` or the application's own
    ///   domain (neither is a suite), as `UserDefaults` does.
    public convenience init?(suiteName: String?, storage: PreferencesStorage = .default) {
        guard let suiteName else {
            self.init(validated: Self.applicationDomainName, suites: [], storage: storage)
            return
        }
        guard let name = try? DomainName(suiteName), !name.isGlobal, name != Self.applicationDomainName else {
            return nil
        }
        self.init(validated: name, suites: [], storage: storage)
    }

    /// Preferences kept in memory only, for an application's tests: a fresh, empty
    /// ``PreferencesStorage/inMemory(diagnostics:)`` storage, so nothing is read from or written to disk.
    /// - Parameter domain: The domain; `com.example.App` when not given.
    /// - Returns: The preferences, and nothing else shares their storage (use the storage to make more instances).
    /// - Throws: ``PreferencesError`` with code `invalidName` for a bad domain name.
    public static func inMemory(domain: String = "com.example.App") throws(PreferencesError) -> Preferences {
        try Preferences(domain: domain, storage: .inMemory())
    }

    init(validated name: DomainName, suites: [DomainName], storage: PreferencesStorage) {
        self.domain = name.rawValue
        self.domainName = name
        self.writeDomain = DomainID(name)
        self.storage = storage
        let opened = storage.handle.engine()
        self.engine = opened.store
        self.access = opened.access
        self.forcedKeys = ForcedKeyWatch(domain: name, engine: engine)
        let list = Self.searchList(name, suites: suites)
        let view = engine.effectiveView(for: list)
        self.search = Mutex(SearchState(suites: suites, list: list, views: [view]))
        self.currentView = Atomic(Unmanaged.passUnretained(view))
    }

    // MARK: Search list

    /// The suites searched after this instance's own domain, in order.
    public var suites: [String] {
        search.withLock { $0.suites.map(\.rawValue) }
    }

    /// Adds a domain to the search list, after this instance's own domain and the suites added before it.
    ///
    /// Adding a suite already in the list, the instance's own domain or `NSGlobalDomain` changes nothing (they are
    /// searched already). A name that is not a valid domain name is reported to the diagnostics handler.
    /// - Parameter suiteName: The suite's domain, such as `com.example.shared`.
    public func addSuite(named suiteName: String) {
        do throws(PreferencesError) {
            let name = try Self.domainName(suiteName)
            changeSuites { suites in
                if name != domainName, !name.isGlobal, !suites.contains(name) { suites.append(name) }
            }
        } catch {
            storage.handle.diagnostics(error)
        }
    }

    /// Removes a domain from the search list; a suite that is not in it changes nothing.
    /// - Parameter suiteName: The suite's domain.
    public func removeSuite(named suiteName: String) {
        changeSuites { suites in suites.removeAll { $0.rawValue == suiteName } }
    }

    /// The search list this instance reads through.
    var searchList: SearchList {
        search.withLock { $0.list }
    }

    /// The merged view of the current search list.
    var view: EffectiveView {
        currentView.load(ordering: .acquiring).takeUnretainedValue()
    }

    /// The effective value of a key: one atomic load, one lock and one hash lookup.
    @usableFromInline
    func effectiveValue(forKey key: String) -> PlistValue? {
        currentView.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.value(forKey: key) }
    }

    private func changeSuites(_ change: (inout [DomainName]) -> Void) {
        search.withLock { state in
            var suites = state.suites
            change(&suites)
            guard suites != state.suites else { return }
            state.suites = suites
            state.list = Self.searchList(domainName, suites: suites)
            let view = engine.effectiveView(for: state.list)
            // The store shares a view per search list: going back to an earlier list keeps no new view.
            if !state.views.contains(where: { $0 === view }) { state.views.append(view) }
            currentView.store(Unmanaged.passUnretained(view), ordering: .releasing)
        }
    }

    private static func searchList(_ name: DomainName, suites: [DomainName]) -> SearchList {
        // The argument layer is empty until the process opts in; searching an empty layer costs nothing.
        SearchList(domain: name, suites: suites, includesByHost: true, includesArguments: true, includesGlobal: true)
    }

    // MARK: Names

    /// Validates a domain name.
    static func domainName(_ name: String) throws(PreferencesError) -> DomainName {
        do throws(PrefsStoreError) {
            return try DomainName(name)
        } catch {
            throw PreferencesError(error)
        }
    }

    /// The executable's file name as a domain name.
    static let applicationDomainName: DomainName = {
        let path = SystemInterface.executablePath() ?? CommandLine.arguments.first ?? ""
        let fileName = path.split(separator: "/").last.map(String.init) ?? ""
        return domainName(sanitizing: fileName)
    }()

    /// A valid domain name made from any text: characters a name cannot hold become `_`.
    static func domainName(sanitizing text: String) -> DomainName {
        var bytes: [UInt8] = []
        for byte in text.utf8.prefix(DomainName.maxLength) {
            let allowed =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && bytes.last != UInt8(ascii: "."))
            bytes.append(allowed ? byte : UInt8(ascii: "_"))
        }
        if bytes.first == UInt8(ascii: ".") { bytes.insert(UInt8(ascii: "_"), at: 0) }
        if bytes.count > DomainName.maxLength { bytes.removeLast(bytes.count - DomainName.maxLength) }
        let text = String(decoding: bytes, as: UTF8.self)
        if let name = try? DomainName(text) { return name }
        // Only an empty name is left: a process without an executable name.
        return (try? DomainName("application")) ?? .global
    }

    // MARK: Reporting

    /// Reports what a non-throwing method could not do.
    @usableFromInline
    func report(_ error: PreferencesError) {
        storage.handle.diagnostics(error)
    }
}
