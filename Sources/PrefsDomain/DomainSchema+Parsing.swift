// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

extension DomainSchema {
    /// The fields a schema file's top-level dictionary may hold.
    static let domainFields: Set<String> = ["Summary", "Description", "Keys"]
    /// The fields each key's dictionary may hold.
    static let keyFields: Set<String> = [
        "Type", "Default", "Minimum", "Maximum", "Choices", "IgnoresCase", "Summary", "Description",
    ]

    /// Reads a schema file's contents (a property list in any format).
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - domain: The domain the schema is for (from the file's name).
    ///   - path: The file, named by every error.
    /// - Throws: ``PrefsStoreError`` with code `.invalidSchema`, naming the file and the problem.
    package init(decoding bytes: [UInt8], domain: DomainName, path: String) throws(PrefsStoreError) {
        let value: PlistValue
        do {
            value = try PlistSerialization.decode(bytes)
        } catch {
            throw PrefsStoreError(
                .invalidSchema, "schema \(path) is not a property list: \(error)", path: path,
                cause: error as? PlistError)
        }
        try self.init(propertyList: value, domain: domain, path: path)
    }

    /// Reads a schema from its property list.
    /// - Throws: ``PrefsStoreError`` with code `.invalidSchema`, naming the file and the problem.
    package init(propertyList: PlistValue, domain: DomainName, path: String) throws(PrefsStoreError) {
        func fail(_ problem: String) -> PrefsStoreError {
            PrefsStoreError(.invalidSchema, "schema \(path): \(problem)", path: path)
        }
        guard case .dictionary(let fields) = propertyList else {
            throw fail("the schema is \(Self.kind(propertyList)), not a dictionary")
        }
        if let unknown = fields.keys.sorted().first(where: { !Self.domainFields.contains($0) }) {
            throw fail("unknown field \(unknown) (a schema holds Summary, Description and Keys)")
        }
        let summary = try Self.text(fields["Summary"], "Summary", fail)
        let details = try Self.text(fields["Description"], "Description", fail)
        var keys: [String: KeySchema] = [:]
        switch fields["Keys"] {
        case nil: break
        case .dictionary(let entries)?:
            for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
                keys[key] = try KeySchema(propertyList: entry, key: key) { fail("key \(key): \($0)") }
            }
        case let other?: throw fail("Keys is \(Self.kind(other)), not a dictionary")
        }
        self.init(domain: domain, summary: summary, details: details, keys: keys, path: path)
    }

    /// A value's type with its article: `an array`, `a string`.
    package static func kind(_ value: PlistValue) -> String {
        let name = value.typeName
        return (name.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + name
    }

    static func text(
        _ value: PlistValue?, _ field: String, _ fail: (String) -> PrefsStoreError
    ) throws(PrefsStoreError) -> String? {
        switch value {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw fail("\(field) is \(kind(other)), not a string")
        }
    }
}
