import PrefsAccess
import PrefsPlist

// Atomic read-modify-write: what `UserDefaults`, dconf and GNUstep do not offer. An increment or an append made by
// several threads or processes at once keeps every one of them (docs/PREFERENCES.md, "Atomic updates").

extension Preferences {
    /// Changes a key of this instance's domain atomically: `transform` gets the value the domain stores now and
    /// returns the new one, and the result is committed only if no other thread or process changed the domain in
    /// between; otherwise `transform` runs again on the newer value.
    ///
    /// ```swift
    /// try defaults.update(forKey: "Recent") { stored in
    ///     var recent = stored?.arrayValue ?? []
    ///     recent.insert(.string(path), at: 0)
    ///     return .array(Array(recent.prefix(10)))
    /// }
    /// ```
    ///
    /// `transform` may run several times and holds no lock: compute from its argument alone, and do not read or
    /// write preferences inside it. Returning the value unchanged writes nothing. On the files the committed value is
    /// durable when this returns; through `prefsd` it is as durable as any `set` (``synchronize()`` makes it so).
    /// - Parameters:
    ///   - key: The key, in this instance's own domain (not its suites).
    ///   - transform: The new value from the stored one (`nil` when the domain does not store the key); `nil`
    ///     removes the key.
    /// - Returns: The value committed.
    /// - Throws: ``PreferencesError``: `readOnly` when an administrator forces the key; `conflict` when other
    ///   writers won every one of many attempts; `outcomeUnknown` when `prefsd` received the write but its answer
    ///   was lost (the update may or may not have been applied, and it is not retried: read the key to know);
    ///   `storeUnavailable`, `limitExceeded`.
    @discardableResult
    public func update(
        forKey key: String, _ transform: (PlistValue?) -> PlistValue?
    ) throws(PreferencesError) -> PlistValue? {
        try checkNotForced(key)
        do throws(PrefsAccessError) {
            return try backend.update(key: key, in: writeDomain) { stored in
                stored = transform(stored)
                return stored
            }
        } catch {
            throw PreferencesError(error).inDomain(domain, key: key)
        }
    }

    /// Changes a typed key atomically: `transform` edits the value the domain stores now (or the key's default when
    /// it stores none, or stores something that does not read as `Value`), and the result is committed only if no
    /// other thread or process changed the domain in between; otherwise `transform` runs again on the newer value.
    ///
    /// ```swift
    /// let launches = Preferences.Key<Int>("LaunchCount", default: 0)
    /// let count = try defaults.update(launches) { $0 += 1 }   // 30 processes × 100 launches count 3,000
    /// ```
    ///
    /// As with ``update(forKey:_:)``, `transform` may run several times and must compute from its argument alone.
    /// - Parameters:
    ///   - key: The typed key, in this instance's own domain.
    ///   - transform: Edits the value in place.
    /// - Returns: The value committed.
    /// - Throws: ``PreferencesError`` as ``update(forKey:_:)``, and `invalidValue` when the new value cannot be
    ///   stored (nothing is written then).
    @discardableResult
    public func update<Value>(
        _ key: Key<Value>, _ transform: (inout Value) -> Void
    ) throws(PreferencesError) -> Value {
        try checkNotForced(key.name)
        let outcome: Result<Value, PreferencesError>
        do throws(PrefsAccessError) {
            outcome = try backend.update(key: key.name, in: writeDomain) { stored in
                var value = stored.flatMap { try? key.read($0) } ?? key.defaultValue
                transform(&value)
                do throws(PreferencesError) {
                    stored = try key.write(value)
                    return .success(value)
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            throw PreferencesError(error).inDomain(domain, key: key.name)
        }
        do {
            return try outcome.get()
        } catch {
            throw error.inDomain(domain, key: key.name)
        }
    }
}
