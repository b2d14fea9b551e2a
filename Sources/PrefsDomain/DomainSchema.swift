// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// A domain that describes itself: what the domain is for, and the type, default, range or choices, summary and
/// description of each of its keys (docs/SCHEMAS.md).
///
/// Schemas come from files (`<domain>.schema.plist` in the `Schemas` directories of the user, system and shipped
/// layers), read with ``init(decoding:domain:path:)``; prefsd's own settings have one compiled in (``prefsd``), which
/// the store checks every write of that domain against, on the files and through prefsd alike, and which the daemon
/// parses its settings with, so that what a write accepts is what the daemon uses.
package struct DomainSchema: Sendable, Hashable {
    /// The domain the schema is for.
    package var domain: DomainName
    /// One line on what the domain is.
    package var summary: String?
    /// A paragraph on the domain.
    package var details: String?
    /// Each described key; other keys may hold anything.
    package var keys: [String: KeySchema]
    /// The file the schema was read from, or `nil` for one compiled in.
    package var path: String?

    package init(
        domain: DomainName, summary: String? = nil, details: String? = nil, keys: [String: KeySchema],
        path: String? = nil
    ) {
        self.domain = domain
        self.summary = summary
        self.details = details
        self.keys = keys
        self.path = path
    }

    /// Why `value` may not be stored under `key`, as a sentence naming the key, the value and the rule
    /// (`MaxConnections of domain prefsd cannot be 0 (integer): it must be an integer from 1 to 65536`); `nil` when
    /// it may (or the key is not described).
    package func problem(key: String, value: PlistValue) -> String? {
        guard let rule = keys[key], !rule.accepts(value) else { return nil }
        return "\(key) of domain \(domain) cannot be \(value.defaultsDescription) (\(value.typeName)): it "
            + rule.requirement
    }
}

extension DomainSchema {
    /// How a schema file's name ends: `prefsd.schema.plist`.
    package static let fileSuffix = ".schema.plist"

    /// The domain a schema file's name describes: `prefsd` for `prefsd.schema.plist` (or `prefsd.plist`), for the
    /// messages about a schema given by its path (`plutil -lint -schema`), so taken as it is even when it is not a
    /// valid domain name.
    package static func domainName(forFileName fileName: String) -> DomainName {
        var stem = Substring(fileName)
        if stem.hasSuffix(fileSuffix) {
            stem = stem.dropLast(fileSuffix.utf8.count)
        } else if stem.hasSuffix(".plist") {
            stem = stem.dropLast(".plist".utf8.count)
        }
        return (try? DomainName(String(stem))) ?? DomainName(unchecked: String(stem))
    }
}
