// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsPlist
import PrefsStore

extension CommandRunner {
    /// `describe <domain> [<key>]`: the domain's schema, or one key's (docs/SCHEMAS.md).
    /// - Returns: 0, or 1 when the domain has no schema or the schema does not describe the key.
    func describe(_ target: DomainTarget, key: String?) throws(DefaultsError) -> Int32 {
        guard !target.isFile else {
            throw DefaultsError(
                .invalidArgument,
                "defaults: describe reads the schema of a domain name, not of a file (\(target.displayName)); "
                    + "plutil -lint -schema checks a file against a schema")
        }
        let lookup = SchemaLookup.find(for: target.id.name, in: target.paths)
        for problem in lookup.problems { console.writeError("defaults: warning: \(problem.message)\n") }
        let source: String
        let schema: DomainSchema
        if let found = lookup.schema {
            schema = found
            source = "schema " + (found.path ?? "")
        } else if target.id.name == DomainSchema.prefsd.domain {
            schema = DomainSchema.prefsd
            source = "compiled into prefsd; no schema file is installed"
        } else {
            let places = target.paths.schemaDirectories.joined(separator: ", ")
            throw DefaultsError(
                .notFound,
                "defaults: domain \(target.displayName) has no schema (no \(StorePaths.schemaFileName(for: target.id.name))"
                    + " in \(places))")
        }
        var lines: [String] = []
        if let key {
            guard let entry = schema.keys[key] else {
                throw DefaultsError(
                    .notFound,
                    "defaults: the schema of domain \(target.displayName) does not describe key "
                        + "\(PlistValue.quotedDefaultsText(key)) (\(source))")
            }
            lines = Self.describe(key, entry)
        } else {
            lines.append("Domain \(target.displayName) (\(source))")
            if let summary = schema.summary { lines.append("  " + summary) }
            if let details = schema.details { lines.append("  " + details) }
            for key in schema.keys.keys.sorted() {
                lines.append("")
                lines += Self.describe(key, schema.keys[key]!)
            }
        }
        try console.writeOutput(lines.map { $0 + "\n" }.joined())
        return 0
    }

    /// One key's lines: `MaxConnections (integer, default 256)`, what it allows, its summary and description.
    private static func describe(_ key: String, _ entry: KeySchema) -> [String] {
        var heading = PlistValue.quotedDefaultsText(key) + " (" + entry.type.rawValue
        if let value = entry.defaultValue { heading += ", default " + value.compactDescription }
        var lines = [heading + ")", "  allowed: " + entry.requirement.dropFirst("must be ".count)]
        if entry.ignoresCase { lines[1] += " (in any case)" }
        if let summary = entry.summary { lines.append("  " + summary) }
        if let details = entry.details { lines.append("  " + details) }
        return lines
    }

    /// The schema `write`, `rename` and `import` check a domain's new values against, or `nil` for none: with
    /// `-force`, for a file given as a path, or when no layer has a usable schema file. A schema file that cannot be
    /// used is named in a warning and not enforced.
    func enforcedSchema(for target: DomainTarget, ignoresSchema: Bool) -> DomainSchema? {
        guard !ignoresSchema, !target.isFile else { return nil }
        let lookup = SchemaLookup.find(for: target.id.name, in: target.paths)
        for problem in lookup.problems {
            console.writeError("defaults: warning: \(problem.message); it is not enforced\n")
        }
        return lookup.schema
    }

    /// The refusal of the first changed key whose new value `schema` forbids, or `nil` when it allows them all:
    /// `defaults: MaxConnections of domain prefsd cannot be 0 (integer): it must be an integer from 1 to 65536
    /// (schema …/prefsd.schema.plist); nothing was written (-force writes it anyway)`.
    static func schemaRefusal(
        _ schema: DomainSchema?, from old: PlistDictionary, to new: PlistDictionary
    ) -> DefaultsError? {
        guard let schema else { return nil }
        for key in new.keys.sorted() {
            guard let value = new[key], value != old[key], let problem = schema.problem(key: key, value: value) else {
                continue
            }
            return DefaultsError(
                .invalidValue,
                "defaults: \(problem) (schema \(schema.path ?? "compiled in")); nothing was written (-force writes "
                    + "it anyway)",
                path: schema.path)
        }
        return nil
    }
}
