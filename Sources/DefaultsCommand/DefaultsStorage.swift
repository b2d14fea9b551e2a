import PrefsPlist
import PrefsStore

/// The storage operations `defaults` needs, so that one command line works on the files directly
/// (``StoreStorage``, through `PrefsStore` with its locks and atomic writes) or through the `prefsd` daemon.
///
/// Every change a command makes goes through one call (``setValues(_:in:)`` or ``replaceValues(of:with:)``), so it
/// is one transaction with one notification batch; ``synchronize()`` then makes it durable before the process exits.
protocol DefaultsStorage: Sendable {
    /// A domain's keys and values, or `nil` when the domain does not exist.
    /// - Throws: ``DefaultsError``: `.corruptDomain` when its file is not a property-list dictionary, `.storage`
    ///   when it cannot be read.
    func values(of domain: DomainID) throws(DefaultsError) -> [String: PlistValue]?

    /// Sets and removes keys of one domain as one change: all or none, one notification batch.
    /// - Parameters:
    ///   - changes: New values by key; `nil` removes the key.
    ///   - domain: A user or by-host domain.
    /// - Throws: ``DefaultsError`` with code `.storage`; nothing changes.
    func setValues(_ changes: [String: PlistValue?], in domain: DomainID) throws(DefaultsError)

    /// Replaces a domain's contents; empty values remove the domain and its file.
    /// - Throws: ``DefaultsError`` with code `.storage`; nothing changes.
    func replaceValues(of domain: DomainID, with values: [String: PlistValue]) throws(DefaultsError)

    /// The names of the domains that exist in a scope, sorted.
    /// - Throws: ``DefaultsError`` with code `.storage` when they cannot be listed.
    func domainNames(in scope: DomainScope) throws(DefaultsError) -> [DomainName]

    /// Where a key's effective value in a search list comes from, and what it shadows.
    func explain(_ key: String, in searchList: SearchList) throws(DefaultsError) -> KeyExplanation

    /// Calls `handler` with each batch of changes to a domain (or one key of it) until the observation is cancelled.
    /// - Returns: The observation, and the observed values at the moment it began (the first batch follows them).
    /// - Throws: ``DefaultsError`` with code `.storage` when changes cannot be observed.
    func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(DefaultsError) -> (observation: any DefaultsObservation, values: [String: PlistValue])

    /// Makes every change durable and reads in other processes' changes.
    /// - Throws: ``DefaultsError`` with code `.storage` naming the domain that could not be written.
    func synchronize() throws(DefaultsError)

    /// Problems the storage noticed on its own since the last call (a corrupt file skipped or set aside), as
    /// `defaults: warning: …` messages.
    func takeWarnings() -> [DefaultsError]
}

/// A running observation from ``DefaultsStorage/observe(_:key:handler:)``.
protocol DefaultsObservation: Sendable {
    /// Stops the observation; no call of its handler starts after this returns.
    func cancel()
}
