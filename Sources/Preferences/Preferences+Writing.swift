// SPDX-License-Identifier: Apache-2.0
public import FoundationEssentials
import PrefsAccess
import PrefsStore

// The setters of the `UserDefaults` surface. They change memory at once (every reader in the process sees the new
// value) and the domain is written within the flush delay. They cannot throw: a write the store refuses (a forced
// key, a value that is not a property list, a limit) is reported to the storage's diagnostics handler and changes
// nothing. ``setValue(_:forKey:)`` is the throwing form.

extension Preferences {
    /// Sets a key of this instance's domain to a property-list value, or removes it when `value` is `nil`.
    ///
    /// Accepted: `String`, `Bool`, every integer type, `Double`, `Float`, `Date`, `Data`, `URL` (stored as its whole
    /// absolute string), `PlistValue`, and arrays and `[String: …]` dictionaries of these.
    /// - Parameters:
    ///   - value: The value, or `nil` to remove the key.
    ///   - key: The key.
    public func set(_ value: Any?, forKey key: String) {
        guard let value else { return store(nil, forKey: key) }
        do throws(PreferencesError) {
            store(try AnyPlistConversion.plistValue(value, at: key), forKey: key)
        } catch {
            report(error.inDomain(domain, key: key))
        }
    }

    /// Sets a key to an integer.
    /// - Parameters:
    ///   - value: The integer.
    ///   - key: The key.
    public func set(_ value: Int, forKey key: String) {
        store(.integer(PlistInteger(Int64(value))), forKey: key)
    }

    /// Sets a key to a double.
    /// - Parameters:
    ///   - value: The number.
    ///   - key: The key.
    public func set(_ value: Double, forKey key: String) {
        store(.real(value), forKey: key)
    }

    /// Sets a key to a float, stored as a real: the float's shortest decimal form (`1.65`, not 1.649999976158142).
    /// - Parameters:
    ///   - value: The number.
    ///   - key: The key.
    public func set(_ value: Float, forKey key: String) {
        store(.real(value.shortestDouble), forKey: key)
    }

    /// Sets a key to a Boolean.
    /// - Parameters:
    ///   - value: The Boolean.
    ///   - key: The key.
    public func set(_ value: Bool, forKey key: String) {
        store(.bool(value), forKey: key)
    }

    /// Sets a key to a string.
    /// - Parameters:
    ///   - value: The string.
    ///   - key: The key.
    public func set(_ value: String, forKey key: String) {
        store(.string(value), forKey: key)
    }

    /// Sets a key to a URL, stored as its whole absolute string (`https://host/path?query#fragment`,
    /// `file:///home/ada/notes.txt`); `nil` removes the key.
    /// - Parameters:
    ///   - url: The URL, or `nil`.
    ///   - key: The key.
    public func set(_ url: URL?, forKey key: String) {
        store(url.map { .string($0.absoluteString) }, forKey: key)
    }

    /// Removes a key from this instance's domain; lower layers (the global domain, registration defaults) show
    /// through again.
    /// - Parameter key: The key.
    public func removeObject(forKey key: String) {
        store(nil, forKey: key)
    }

    /// Adds values to the registration layer, searched last and never written to disk.
    ///
    /// The layer is shared by every instance of the same storage; a key registered again takes the new value.
    /// A value that is not a property-list value is reported to the diagnostics handler and left out.
    /// - Parameter defaults: Keys and values of the types `set(_:forKey:)` accepts.
    public func register(defaults: [String: Any]) {
        var values: PlistDictionary = [:]
        for (key, value) in defaults {
            do throws(PreferencesError) {
                values[key] = try AnyPlistConversion.plistValue(value, at: key)
            } catch {
                report(error)
            }
        }
        engine.register(defaults: values)
    }

    /// Writes every change durably and reads in changes made elsewhere, as `UserDefaults.synchronize()`.
    ///
    /// Changes are written within the flush delay and at exit anyway; call it when they must be on disk now (before
    /// another program reads the file, say).
    /// - Returns: `true` when everything was written; `false` when something could not be (the reason goes to the
    ///   diagnostics handler, and this process's unwritten changes of the domains that could not be written are
    ///   withdrawn: a write is durable, or it changes nothing).
    @discardableResult
    public func synchronize() -> Bool {
        do throws(PreferencesError) {
            try synchronizeThrowing()
            return true
        } catch {
            report(error)
            return false
        }
    }

    // MARK: Helpers

    /// Writes one key, reporting a refusal.
    func store(_ value: PlistValue?, forKey key: String) {
        do throws(PreferencesError) {
            try write(value, forKey: key)
        } catch {
            report(error)
        }
    }

    /// Writes one key of this instance's domain unless an administrator forces it.
    func write(_ value: PlistValue?, forKey key: String) throws(PreferencesError) {
        try checkNotForced(key)
        do throws(PrefsAccessError) {
            try access.setValue(value, forKey: key, in: writeDomain)
        } catch {
            throw PreferencesError(error)
        }
    }

    /// Refuses a write to a key an administrator forces.
    /// - Throws: ``PreferencesError`` with code `readOnly`, naming the forced file.
    func checkNotForced(_ key: String) throws(PreferencesError) {
        guard forcedKeys.mayForceKeys, let forced = forcingLayer(ofKey: key, in: domainName) else { return }
        let path = try? engine.path(for: forced)
        throw PreferencesError(
            .readOnly,
            "key \(key) of domain \(domain) is forced by the administrator in "
                + (path ?? "the forced \(forced.name) domain") + "; the write was refused",
            path: path)
    }

    /// The forced domain that holds a key for a domain (its own forced file, then the global one, then the same in
    /// the fleet's forced layer), if any.
    func forcingLayer(ofKey key: String, in name: DomainName) -> DomainID? {
        for scope in [DomainScope.forced, .fleetForced] {
            let forced = DomainID(name, scope: scope)
            if engine.value(forKey: key, in: forced) != nil { return forced }
            let forcedGlobal = DomainID(.global, scope: scope)
            if engine.value(forKey: key, in: forcedGlobal) != nil { return forcedGlobal }
        }
        return nil
    }
}

extension PreferencesError {
    /// The error with the domain and key named in its message when it does not name them yet.
    func inDomain(_ domain: String, key: String) -> PreferencesError {
        var error = self
        error.message = "cannot set key \(key) of domain \(domain): " + message
        return error
    }
}
