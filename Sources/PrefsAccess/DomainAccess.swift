// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist
package import PrefsStore

/// The user's preferences as a client sees them, through `prefsd` (``DaemonAccess``) or on the files directly
/// (``StoreAccess``): the one client-side layer that `defaults` and the `Preferences` library share.
///
/// It owns what both need and must agree on: the route (``AccessRoute``, `PREFERENCES_DAEMON`), the mapping of
/// domains to the protocol, the mapping of errors (``PrefsAccessError``), and atomic read-modify-write
/// (``update(_:maxAttempts:_:)``), which never loses another writer's concurrent change on either route.
///
/// An access opened for requests only (the default) makes no subscription and watches no file; ``observe(_:key:handler:)``
/// starts what it needs on first use.
package protocol DomainAccess: AnyObject, Sendable {
    /// Where the preferences are: `prefsd at <socket>`, or `files in <directory>`.
    var route: AccessRoute { get }

    /// A domain's keys and values, or `nil` when the domain does not exist.
    /// - Throws: ``PrefsAccessError``: `.corrupt` when its file is not a property-list dictionary (on the files),
    ///   `.unavailable`, `.ioFailure`.
    func values(of domain: DomainID) throws(PrefsAccessError) -> PlistDictionary?

    /// One key's value in a domain, or `nil` when the key or the domain does not exist.
    ///
    /// Through prefsd this asks for the key alone; on the files it reads the domain.
    /// - Throws: ``PrefsAccessError`` as ``values(of:)``.
    func value(forKey key: String, in domain: DomainID) throws(PrefsAccessError) -> PlistValue?

    /// Sets or removes one key of a domain.
    /// - Parameters:
    ///   - value: The new value, or `nil` to remove the key.
    ///   - key: The key.
    ///   - domain: A user or by-host domain.
    /// - Returns: The domain's version (sequence number) afterwards.
    /// - Throws: ``PrefsAccessError``; nothing changes, except with `.outcomeUnknown`.
    @discardableResult
    func setValue(_ value: PlistValue?, forKey key: String, in domain: DomainID) throws(PrefsAccessError) -> UInt64

    /// Sets and removes keys of one domain as one change: all or none, one notification batch.
    /// - Parameters:
    ///   - changes: New values by key; `nil` removes the key.
    ///   - domain: A user or by-host domain.
    /// - Returns: The domain's version (sequence number) afterwards.
    /// - Throws: ``PrefsAccessError``; nothing changes, except with `.outcomeUnknown`.
    @discardableResult
    func setValues(_ changes: [PlistKey: PlistValue?], in domain: DomainID) throws(PrefsAccessError) -> UInt64

    /// Replaces a domain's contents; empty values remove the domain and its file.
    /// - Returns: The domain's version afterwards.
    /// - Throws: ``PrefsAccessError``; nothing changes, except with `.outcomeUnknown`.
    @discardableResult
    func replaceValues(of domain: DomainID, with values: PlistDictionary) throws(PrefsAccessError) -> UInt64

    /// Changes a domain atomically: `body` edits the domain as it is now, and the edit is committed only if no other
    /// writer changed the domain in between; otherwise the domain is read again and `body` runs again.
    ///
    /// `body` runs with no lock held and may run several times: it must compute its edit from its argument alone. An
    /// edit that changes nothing writes nothing. On the files the committed edit is durable when this returns; through
    /// `prefsd` it is as durable as any write there (``synchronize()`` makes it so).
    /// - Parameters:
    ///   - domain: A user or by-host domain.
    ///   - maxAttempts: How many times to read and compute before giving up.
    ///   - body: Edits the domain's keys and values in place; its result is returned.
    /// - Returns: What `body` returned on the attempt that committed (or that changed nothing), and the domain's
    ///   version after it.
    /// - Throws: ``PrefsAccessError``: `.versionConflict` when every attempt lost a race; `.outcomeUnknown` when
    ///   prefsd received the write but its answer was lost (it may or may not have been applied, and it is not
    ///   retried); the errors of ``setValues(_:in:)``.
    func update<Outcome>(
        _ domain: DomainID, maxAttempts: Int, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsAccessError) -> (outcome: Outcome, version: UInt64)

    /// Changes one key atomically: `transform` gets the key's value (`nil` when absent) and returns the new one
    /// (`nil` removes it); another writer's concurrent change to the key is built on, never overwritten.
    ///
    /// Through `prefsd` this is ``update(_:maxAttempts:_:)`` on one key: read with the domain's version, write with
    /// it as `expectedVersion`, again on a conflict; the value returned is the one committed. On the files it costs
    /// what a `set` costs: the value changes in memory now, and the domain's next write (within the flush delay, or
    /// at ``synchronize()``) replays `transform` on the key's value in the file at that moment, under the domain's
    /// lock; the value returned is this process's view, to which the write may add other processes' updates.
    /// `transform` may run several times: compute from its argument alone, and do not use the preferences in it.
    /// - Returns: The key's new value, and the domain's version.
    /// - Throws: ``PrefsAccessError`` as ``update(_:maxAttempts:_:)``.
    func update(
        key: String, in domain: DomainID, maxAttempts: Int,
        _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> (value: PlistValue?, version: UInt64)

    /// The names of the domains that exist in a scope, sorted.
    func domainNames(in scope: DomainScope) throws(PrefsAccessError) -> [DomainName]

    /// Where a key's effective value in a search list comes from, what it shadows, and the layers skipped.
    func resolve(_ key: String, in searchList: SearchList) throws(PrefsAccessError) -> Resolution

    /// Calls `handler` with each batch of changes to a domain (or one key of it) until the observation is cancelled.
    /// - Returns: The observation, and the observed values at the moment it began (the first batch follows them).
    func observe(
        _ domain: DomainID, key: String?, handler: @escaping @Sendable ([ChangeEvent]) -> Void
    ) throws(PrefsAccessError) -> (observation: any AccessObservation, values: PlistDictionary)

    /// Makes every change durable and reads in other processes' changes.
    func synchronize() throws(PrefsAccessError)

    /// Problems noticed on the way since the last call (a corrupt file skipped or set aside).
    func takeDiagnostics() -> [StoreDiagnostic]
}

extension DomainAccess {
    /// The key's value from the domain's values: what an access without a cheaper way does.
    package func value(forKey key: String, in domain: DomainID) throws(PrefsAccessError) -> PlistValue? {
        try values(of: domain)?[key]
    }

    /// ``update(_:maxAttempts:_:)`` with the default number of attempts.
    package func update<Outcome>(
        _ domain: DomainID, _ body: (inout PlistDictionary) -> Outcome
    ) throws(PrefsAccessError) -> (outcome: Outcome, version: UInt64) {
        try update(domain, maxAttempts: PreferencesStore.defaultUpdateAttempts, body)
    }

    /// ``update(key:in:maxAttempts:_:)`` with the default number of attempts.
    package func update(
        key: String, in domain: DomainID, _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PrefsAccessError) -> (value: PlistValue?, version: UInt64) {
        try update(key: key, in: domain, maxAttempts: PreferencesStore.defaultUpdateAttempts, transform)
    }
}

/// A running observation from ``DomainAccess/observe(_:key:handler:)``.
package protocol AccessObservation: Sendable {
    /// Stops the observation; no call of its handler starts after this returns.
    func cancel()
}

extension ObservationToken: AccessObservation {}
