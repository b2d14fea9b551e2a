// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsStore
import Synchronization

// Whole domains: persistent ones (files) and volatile ones (this process only), as `UserDefaults` names them.

extension Preferences {
    /// The name of the volatile domain of command-line arguments (``init(domain:arguments:storage:)``).
    public static let argumentDomain = "NSArgumentDomain"
    /// The name of the volatile domain of registration defaults (``register(defaults:)``).
    public static let registrationDomain = "NSRegistrationDomain"
    /// The name of the global domain, searched by every application after its own domains.
    public static let globalDomain = "NSGlobalDomain"

    /// The keys and values stored in a user domain, or `nil` when the domain does not exist (or its file cannot be
    /// read: the reason goes to the diagnostics handler).
    /// - Parameter domainName: The domain's name (`NSGlobalDomain` for the global domain).
    public func persistentDomain(forName domainName: String) -> [String: Any]? {
        do throws(PreferencesError) {
            return try persistentDomainValues(forName: domainName).map(AnyPlistConversion.anyDictionary)
        } catch {
            report(error)
            return nil
        }
    }

    /// Replaces the contents of a user domain (written within the flush delay, as `set(_:forKey:)` is).
    ///
    /// A value that is not a property-list value, or a domain the store refuses, is reported to the diagnostics
    /// handler and nothing changes.
    /// - Parameters:
    ///   - domain: The new contents.
    ///   - domainName: The domain's name.
    public func setPersistentDomain(_ domain: [String: Any], forName domainName: String) {
        do throws(PreferencesError) {
            var values: PlistDictionary = [:]
            for (key, value) in domain { values[key] = try AnyPlistConversion.plistValue(value, at: key) }
            try setPersistentDomainValues(values, forName: domainName)
        } catch {
            report(error)
        }
    }

    /// Removes a user domain: all its keys, and its file when the change is written.
    /// - Parameter domainName: The domain's name.
    public func removePersistentDomain(forName domainName: String) {
        do throws(PreferencesError) {
            try setPersistentDomainValues([:], forName: domainName)
        } catch {
            report(error)
        }
    }

    /// The keys and values of a volatile domain: ``argumentDomain``, ``registrationDomain``, or one set with
    /// ``setVolatileDomain(_:forName:)``; empty when there is none.
    /// - Parameter domainName: The volatile domain's name.
    public func volatileDomain(forName domainName: String) -> [String: Any] {
        AnyPlistConversion.anyDictionary(volatileDomainValues(forName: domainName))
    }

    /// Sets a volatile domain: kept in memory for this process, never written, shared by the instances of the same
    /// storage, and not searched, except for the two named ones:
    ///
    /// - ``argumentDomain`` replaces the argument layer (searched after the forced values).
    /// - ``registrationDomain`` registers every key, as ``register(defaults:)``.
    ///
    /// A value that is not a property-list value is reported to the diagnostics handler and nothing changes.
    /// - Parameters:
    ///   - domain: The keys and values.
    ///   - domainName: The volatile domain's name.
    public func setVolatileDomain(_ domain: [String: Any], forName domainName: String) {
        do throws(PreferencesError) {
            var values: PlistDictionary = [:]
            for (key, value) in domain { values[key] = try AnyPlistConversion.plistValue(value, at: key) }
            switch domainName {
            case Self.argumentDomain: engine.setArgumentDomain(values)
            case Self.registrationDomain: engine.register(defaults: values)
            default: storage.handle.volatileDomains.withLock { $0[domainName] = values }
            }
        } catch {
            report(error)
        }
    }

    /// Removes a volatile domain. ``argumentDomain`` empties the argument layer; ``registrationDomain`` cannot be
    /// removed (registered defaults only grow: register a key again to change it), which is reported to the
    /// diagnostics handler.
    /// - Parameter domainName: The volatile domain's name.
    public func removeVolatileDomain(forName domainName: String) {
        switch domainName {
        case Self.argumentDomain:
            engine.setArgumentDomain([:])
        case Self.registrationDomain:
            report(
                PreferencesError(
                    .readOnly,
                    "the registration domain cannot be removed: registered defaults only grow (register a key again "
                        + "to change it)"))
        default:
            _ = storage.handle.volatileDomains.withLock { $0.removeValue(forKey: domainName) }
        }
    }

    /// The names of the volatile domains: ``argumentDomain``, ``registrationDomain`` and those set with
    /// ``setVolatileDomain(_:forName:)``, sorted.
    public var volatileDomainNames: [String] {
        let custom = storage.handle.volatileDomains.withLock { Array($0.keys) }
        return Set(custom + [Self.argumentDomain, Self.registrationDomain]).sorted()
    }

    // MARK: Plist-valued forms

    /// The values of a user domain, or `nil` when it does not exist.
    /// - Throws: ``PreferencesError``: `invalidName`, or `corrupt` / `storeUnavailable` when its file cannot be used.
    func persistentDomainValues(forName domainName: String) throws(PreferencesError) -> PlistDictionary? {
        let id = DomainID(try Self.domainName(domainName))
        do throws(PrefsStoreError) {
            return try engine.persistentDomain(id)
        } catch {
            throw PreferencesError(PrefsAccessError(error))
        }
    }

    /// Replaces a user domain's values.
    /// - Throws: ``PreferencesError``: `invalidName`, `limitExceeded`.
    func setPersistentDomainValues(_ values: PlistDictionary, forName domainName: String) throws(PreferencesError) {
        let id = DomainID(try Self.domainName(domainName))
        do throws(PrefsAccessError) {
            try access.replaceValues(of: id, with: values)
        } catch {
            throw PreferencesError(error)
        }
    }

    /// The values of a volatile domain.
    func volatileDomainValues(forName domainName: String) -> PlistDictionary {
        switch domainName {
        case Self.argumentDomain: engine.argumentDomain
        case Self.registrationDomain: engine.registeredDefaults
        default: storage.handle.volatileDomains.withLock { $0[domainName] } ?? [:]
        }
    }
}
