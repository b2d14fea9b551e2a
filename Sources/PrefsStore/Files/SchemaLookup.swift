// SPDX-License-Identifier: Apache-2.0
package import PrefsDomain

/// The schema a domain has (docs/SCHEMAS.md): the first readable `<domain>.schema.plist` of the user's, the
/// administrator's and the shipped `Schemas` directories, in that order, and the broken files skipped on the way.
package struct SchemaLookup: Sendable {
    /// The schema in effect, or `nil` when no layer has a readable one.
    package var schema: DomainSchema?
    /// Each schema file above it (or in place of it) that could not be used, with why: not a property list, an
    /// unknown type, a minimum above its maximum, a default its own rule refuses.
    package var problems: [PrefsStoreError]

    /// The largest schema file read.
    static let maxBytes = 4 << 20

    /// Looks up the schema of `domain` in the `Schemas` directories of `paths`. Never throws: a file that cannot be
    /// read or used is one of ``problems``, and the next layer's file is tried.
    package static func find(for domain: DomainName, in paths: StorePaths) -> SchemaLookup {
        var problems: [PrefsStoreError] = []
        for directory in paths.schemaDirectories {
            let path = directory + "/" + StorePaths.schemaFileName(for: domain)
            // Most domains have no schema: one access() each, without the error a failed open() makes.
            guard FileSystem.mayExist(path) else { continue }
            do throws(PrefsStoreError) {
                guard let schema = try read(path, domain: domain) else { continue }
                return SchemaLookup(schema: schema, problems: problems)
            } catch {
                problems.append(error)
            }
        }
        return SchemaLookup(schema: nil, problems: problems)
    }

    /// Reads one schema file, or returns `nil` when there is none.
    /// - Throws: ``PrefsStoreError`` with code `.invalidSchema` (or `.ioFailure`), naming the file.
    package static func read(_ path: String, domain: DomainName) throws(PrefsStoreError) -> DomainSchema? {
        let contents: FileSystem.FileContents
        do {
            contents = try FileSystem.readFile(path, maxBytes: maxBytes)
        } catch {
            throw PrefsStoreError(.ioFailure, "schema \(path) cannot be read", path: path, cause: error)
        }
        switch contents {
        case .missing: return nil
        case .tooLarge(let size, _):
            throw PrefsStoreError(
                .invalidSchema, "schema \(path) is \(size) bytes, more than the \(maxBytes) a schema may have",
                path: path)
        case .contents(let bytes, _):
            return try DomainSchema(decoding: bytes, domain: domain, path: path)
        }
    }
}
