// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// A domain's schema (docs/SCHEMAS.md): the type, default, range or choices, summary and description of its keys,
/// read from a `<domain>.schema.plist` file, so that a program's typed keys can be held to what its schema says.
///
/// ```swift
/// @Test func keysAgreeWithTheSchema() throws {
///     let schema = try #require(try PreferencesSchema.load(domain: "com.example.Editor"))
///     #expect(schema.problems(of: .fontSize).isEmpty)
/// }
/// ```
///
/// A schema describes; it is not a layer. What a program reads when no layer holds a key is its registered default
/// (``Preferences/register(defaults:)``, or a ``Preferences/Key``'s default), even when the schema's `Default` says
/// otherwise: ``problems(of:)`` reports such a disagreement, so that a test catches it.
public struct PreferencesSchema: Sendable {
    let schema: DomainSchema

    /// The domain the schema describes.
    public var domain: String { schema.domain.rawValue }

    /// The file the schema was read from.
    public var path: String? { schema.path }

    /// The names of the keys the schema describes, sorted.
    public var keyNames: [String] { schema.keys.keys.sorted() }

    /// The schema of a domain: the first readable `<domain>.schema.plist` of the `Schemas` directories of the
    /// user's Preferences directory, the system layer and the shipped defaults (the directories `PREFERENCES_HOME`,
    /// `PREFERENCES_SYSTEM_DIR` and `PREFERENCES_DOMAINS_DIR` choose).
    /// - Parameter domain: The domain's name.
    /// - Returns: The schema, or `nil` when no layer has one.
    /// - Throws: ``PreferencesError`` with code `invalidName` for a bad domain name, or `corrupt`, naming the file and
    ///   the problem, when the highest layer's schema file cannot be used.
    public static func load(domain: String) throws(PreferencesError) -> PreferencesSchema? {
        let name: DomainName
        do {
            name = try DomainName(domain)
        } catch {
            throw PreferencesError(error)
        }
        let lookup = SchemaLookup.find(for: name, in: StorePaths.fromProcessEnvironment())
        if let problem = lookup.problems.first { throw PreferencesError(problem) }
        return lookup.schema.map(PreferencesSchema.init(schema:))
    }

    /// Reads a schema file.
    /// - Parameters:
    ///   - path: The file, in any property-list format.
    ///   - domain: The domain it describes; by default the file's name without `.schema.plist`.
    /// - Throws: ``PreferencesError`` with code `corrupt`, naming the file and the problem, `invalidArgument` when
    ///   there is no such file, or `storeUnavailable` when it cannot be read.
    public init(contentsOf path: String, domain: String? = nil) throws(PreferencesError) {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let name = domain.flatMap { try? DomainName($0) } ?? DomainSchema.domainName(forFileName: fileName)
        let read: DomainSchema?
        do throws(PrefsStoreError) {
            read = try SchemaLookup.read(path, domain: name)
        } catch {
            throw PreferencesError(error)
        }
        guard let read else { throw PreferencesError(.invalidArgument, "schema \(path) does not exist", path: path) }
        schema = read
    }

    init(schema: DomainSchema) { self.schema = schema }

    /// Why `value` may not be stored under `key`, as a sentence naming the key, the value and the rule, or `nil`
    /// when the schema allows it (or does not describe the key).
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key's name.
    public func problem(with value: PlistValue, forKey key: String) -> String? {
        schema.problem(key: key, value: value)
    }

    /// Where a typed key disagrees with the schema, one sentence each: the schema does not describe it, its default
    /// has another type than the schema's or breaks its rule, or differs from the schema's `Default`. Empty when the
    /// two agree.
    /// - Parameter key: The key.
    public func problems<Value>(of key: Preferences.Key<Value>) -> [String] {
        guard let entry = schema.keys[key.name] else {
            return ["key \(key.name) is not described by the schema of domain \(domain)"]
        }
        let stored: PlistValue?
        do throws(PreferencesError) {
            stored = try key.write(key.defaultValue)
        } catch {
            return ["the default of key \(key.name) cannot be stored: \(error.message)"]
        }
        guard let stored else {
            return entry.defaultValue == nil
                ? []
                : ["key \(key.name) has no default, and the schema's is \(entry.defaultValue!.defaultsDescription)"]
        }
        var problems: [String] = []
        if let problem = schema.problem(key: key.name, value: stored) {
            problems.append("the default of key " + problem)
        }
        if let expected = entry.defaultValue, !KeySchema.sameValue(stored, expected) {
            problems.append(
                "the default of key \(key.name) is \(stored.defaultsDescription), and the schema's is "
                    + expected.defaultsDescription + " (the registered default is what a program reads)")
        }
        return problems
    }
}
