// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore

// Atomic read-modify-write: what `UserDefaults`, dconf and GNUstep do not offer. An increment or an append made by
// several threads or processes at once keeps every one of them (docs/PREFERENCES.md, "Atomic updates").

extension Preferences {
    /// Changes a key of this instance's domain atomically: `transform` gets the value the domain stores and returns
    /// the new one, and a concurrent change by another thread or process is built on, never overwritten.
    ///
    /// ```swift
    /// try defaults.update(forKey: "Recent") { stored in
    ///     var recent = stored?.arrayValue ?? []
    ///     recent.insert(.string(path), at: 0)
    ///     return .array(Array(recent.prefix(10)))
    /// }
    /// ```
    ///
    /// On the files an update costs what a `set` costs: the value changes now, and the domain's next write (within
    /// the flush delay, or at ``synchronize()``) runs `transform` again on the key's value in the file at that
    /// moment, under the domain's lock. Through `prefsd` it is a compare-and-set on the daemon, repeated until no
    /// other writer came in between. Either way `transform` may run several times: compute from its argument alone,
    /// and do not read or write preferences inside it. Returning the value unchanged writes nothing.
    /// - Parameters:
    ///   - key: The key, in this instance's own domain (not its suites).
    ///   - transform: The new value from the stored one (`nil` when the domain does not store the key); `nil`
    ///     removes the key.
    /// - Returns: The new value: through `prefsd`, the one committed; on the files, this process's view of it, to
    ///   which the write may add other processes' concurrent updates.
    /// - Throws: ``PreferencesError``: `readOnly` when an administrator forces the key; `conflict` when other
    ///   writers won every one of many attempts; `outcomeUnknown` when `prefsd` received the write but its answer
    ///   was lost (the update may or may not have been applied, and it is not retried: read the key to know);
    ///   `storeUnavailable`, `limitExceeded`.
    @discardableResult
    public func update(
        forKey key: String, _ transform: @escaping @Sendable (PlistValue?) -> PlistValue?
    ) throws(PreferencesError) -> PlistValue? {
        try checkNotForced(key)
        do throws(PrefsAccessError) {
            return try access.update(key: key, in: writeDomain, transform).value
        } catch {
            throw PreferencesError(error).inDomain(domain, key: key)
        }
    }

    /// Changes a typed key atomically: `transform` edits the value the domain stores (or the key's default when it
    /// stores none, or something that does not read as `Value`), and a concurrent change by another thread or process
    /// is built on, never overwritten, as with ``update(forKey:_:)``.
    ///
    /// ```swift
    /// let launches = Preferences.Key<Int>("LaunchCount", default: 0)
    /// try defaults.update(launches) { $0 += 1 }   // 30 processes × 100 launches count 3,000
    /// ```
    /// - Parameters:
    ///   - key: The typed key, in this instance's own domain.
    ///   - transform: Edits the value in place; it may run several times.
    /// - Returns: The new value, as ``update(forKey:_:)`` returns it.
    /// - Throws: ``PreferencesError`` as ``update(forKey:_:)``, and `invalidValue` when the new value cannot be
    ///   stored (nothing is written then).
    @discardableResult
    public func update<Value>(
        _ key: Key<Value>, _ transform: @escaping @Sendable (inout Value) -> Void
    ) throws(PreferencesError) -> Value {
        let before = engine.value(forKey: key.name, in: writeDomain)
        let stored = try update(forKey: key.name) {
            [read = key.read, write = key.write, defaultValue = key.defaultValue] stored in
            var value = stored.flatMap { try? read($0) } ?? defaultValue
            transform(&value)
            do throws(PreferencesError) {
                return try write(value)
            } catch {
                return stored  // a value that cannot be stored changes nothing; reported below
            }
        }
        if stored == before {
            // Nothing changed: the transform left the value as it was, or its result cannot be stored. Tell which,
            // without a box shared with the transform, so that an update allocates no more than it must.
            var value = stored.flatMap { try? key.read($0) } ?? key.defaultValue
            transform(&value)
            do throws(PreferencesError) {
                _ = try key.write(value)
            } catch {
                throw error.inDomain(domain, key: key.name)
            }
        }
        return stored.flatMap { try? key.read($0) } ?? key.defaultValue
    }
}
