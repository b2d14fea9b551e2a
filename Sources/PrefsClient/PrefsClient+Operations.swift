import PrefsPlist
import PrefsWire

extension PrefsClient {
    /// Reads one key of one domain.
    /// - Returns: The value (`nil` when absent) and the domain's version.
    /// - Throws: ``PrefsClientError``.
    public func value(
        forKey key: String, in domain: WireDomain
    ) async throws(PrefsClientError) -> (
        value: PlistValue?, version: UInt64
    ) {
        let result = try await send(.get(domain, key: key))
        guard case .get(let value, let version) = result else { throw unexpected(result, for: .get) }
        return (value, version)
    }

    /// Resolves a key through an application's search list, with provenance.
    /// - Throws: ``PrefsClientError``.
    public func resolve(_ key: String, in searchList: WireSearchList) async throws(PrefsClientError) -> WireResolution {
        let result = try await send(.getEffective(searchList, key: key))
        guard case .getEffective(let resolution) = result else { throw unexpected(result, for: .getEffective) }
        return resolution
    }

    /// Stores one value (`nil` removes the key).
    /// - Parameters:
    ///   - value: The value, or `nil` to remove the key.
    ///   - key: The key.
    ///   - domain: The domain.
    ///   - expectedVersion: Compare-and-set: apply only at this version.
    /// - Returns: The domain's version after the write.
    /// - Throws: ``PrefsClientError``, `refused` with `versionConflict`, `readOnly`, `limitExceeded`, ….
    @discardableResult
    public func set(
        _ value: PlistValue?, forKey key: String, in domain: WireDomain, expectedVersion: UInt64? = nil
    ) async throws(PrefsClientError) -> UInt64 {
        let result: WireResult
        if let value {
            result = try await send(.set(domain, key: key, value: value, expectedVersion: expectedVersion))
        } else {
            result = try await send(.remove(domain, key: key, expectedVersion: expectedVersion))
        }
        switch result {
        case .set(let version), .remove(let version): return version
        default: throw unexpected(result, for: value == nil ? .remove : .set)
        }
    }

    /// Stores and removes several keys of one domain atomically.
    /// - Parameters:
    ///   - changes: New values by key; `nil` removes the key.
    ///   - domain: The domain.
    ///   - expectedVersion: Compare-and-set.
    /// - Returns: The domain's version after the batch.
    /// - Throws: ``PrefsClientError``.
    @discardableResult
    public func setMany(
        _ changes: [String: PlistValue?], in domain: WireDomain, expectedVersion: UInt64? = nil
    ) async throws(PrefsClientError) -> UInt64 {
        var values: [String: PlistValue] = [:]
        var removeKeys: [String] = []
        for (key, value) in changes {
            if let value { values[key] = value } else { removeKeys.append(key) }
        }
        let result = try await send(
            .setMany(domain, values: values, removeKeys: removeKeys.sorted(), expectedVersion: expectedVersion))
        guard case .setMany(let version) = result else { throw unexpected(result, for: .setMany) }
        return version
    }

    /// Reads every key of one domain.
    /// - Returns: The values and the domain's version, or `nil` when the domain does not exist.
    /// - Throws: ``PrefsClientError``.
    public func readDomain(
        _ domain: WireDomain
    ) async throws(PrefsClientError) -> (
        values: [String: PlistValue], version: UInt64
    )? {
        let result: WireResult
        do {
            result = try await send(.readDomain(domain))
        } catch  where error.serverError?.code == .notFound {
            return nil
        }
        guard case .readDomain(let values, let version) = result else { throw unexpected(result, for: .readDomain) }
        return (values, version)
    }

    /// Replaces every key of one domain.
    /// - Returns: The domain's version after the write.
    /// - Throws: ``PrefsClientError``.
    @discardableResult
    public func writeDomain(
        _ values: [String: PlistValue], to domain: WireDomain, expectedVersion: UInt64? = nil
    ) async throws(PrefsClientError) -> UInt64 {
        let result = try await send(.writeDomain(domain, values: values, expectedVersion: expectedVersion))
        guard case .writeDomain(let version) = result else { throw unexpected(result, for: .writeDomain) }
        return version
    }

    /// Deletes one domain.
    /// - Returns: The domain's version after the removal.
    /// - Throws: ``PrefsClientError``, `refused` with `notFound` when the domain does not exist.
    @discardableResult
    public func removeDomain(
        _ domain: WireDomain, expectedVersion: UInt64? = nil
    ) async throws(PrefsClientError) -> UInt64 {
        let result = try await send(.removeDomain(domain, expectedVersion: expectedVersion))
        guard case .removeDomain(let version) = result else { throw unexpected(result, for: .removeDomain) }
        return version
    }

    /// Lists the domains of one layer, sorted.
    /// - Throws: ``PrefsClientError``.
    public func domainNames(
        scope: WireDomain.Scope = .user, byHost: Bool = false
    ) async throws(PrefsClientError) -> [String] {
        let result = try await send(.listDomains(scope: scope, byHost: byHost))
        guard case .listDomains(let names) = result else { throw unexpected(result, for: .listDomains) }
        return names
    }

    /// Returns once every change is durably on disk and external changes are read in.
    /// - Throws: ``PrefsClientError``, `refused` with `storeUnavailable` when a domain cannot be written.
    public func synchronize() async throws(PrefsClientError) {
        let result = try await send(.synchronize)
        guard case .synchronize = result else { throw unexpected(result, for: .synchronize) }
    }

    private func unexpected(_ result: WireResult, for operation: WireOperation.Name) -> PrefsClientError {
        PrefsClientError(
            .protocolViolation, "prefsd answered \(operation) with a \(result.operation) result")
    }
}
