// SPDX-License-Identifier: Apache-2.0
/// How a ``PreferencesStore`` behaves: flush delay, limits, file watching, and where diagnostics go.
public struct StoreConfiguration: Sendable {
    /// How long after a change its domain is written: changes within one delay share one write. Default 1 s.
    public var flushDelay: Duration
    /// Bounds on keys, values and domains.
    public var limits: StoreLimits
    /// Whether the store watches its directories with inotify so that changes by other processes and hand
    /// edits reach it (and its observers) at once. Without it, they are read in by `synchronize()`.
    public var watchesFiles: Bool
    /// Whether the store writes its pending changes when the process exits normally (`exit`, return from `main`).
    public var flushesAtExit: Bool
    /// Receives problems the store handles on its own: files skipped or set aside, background writes that failed.
    public var diagnostics: @Sendable (StoreDiagnostic) -> Void
    /// Whether the watching covers the fleet cache. prefsd, which writes the cache and announces each change to its
    /// store first (``PreferencesStore/announceFileContents(_:fleetSources:of:origin:)``), turns it off: its own
    /// writes would only wake the store for nothing.
    package var watchesFleetCache = true
    /// The compiled-in schemas the store enforces (prefsd's settings, `DomainSchema.prefsd`): a write that breaks one
    /// is refused with `.invalidValue`, so that a setting is checked when it is written, on every route, not when it
    /// is used. Schema files are checked by `defaults write`, not by the store (docs/SCHEMAS.md).
    package var schemas: [DomainSchema] {
        get { customSchemas ?? [.prefsd] }
        set { customSchemas = newValue }
    }

    /// Schemas set in place of the compiled-in ones; `nil` for prefsd's alone, which is then built only when a write
    /// of its domain needs it (not for every command that opens a store).
    private var customSchemas: [DomainSchema]?

    /// The schema the store enforces for a domain, if any.
    func schema(for domain: DomainName) -> DomainSchema? {
        guard let customSchemas else { return domain == DomainSchema.prefsdName ? .prefsd : nil }
        return customSchemas.first { $0.domain == domain }
    }

    /// Creates a configuration.
    /// - Parameters:
    ///   - flushDelay: How long after a change its domain is written.
    ///   - limits: Bounds on keys, values and domains.
    ///   - watchesFiles: Whether to watch the directories with inotify.
    ///   - flushesAtExit: Whether to write pending changes at a normal process exit.
    ///   - diagnostics: Receives problems the store handles on its own; by default, standard error.
    public init(
        flushDelay: Duration = .seconds(1), limits: StoreLimits = .default, watchesFiles: Bool = true,
        flushesAtExit: Bool = true,
        diagnostics: @escaping @Sendable (StoreDiagnostic) -> Void = StoreDiagnostic.writeToStandardError
    ) {
        self.flushDelay = flushDelay
        self.limits = limits
        self.watchesFiles = watchesFiles
        self.flushesAtExit = flushesAtExit
        self.diagnostics = diagnostics
    }
}
