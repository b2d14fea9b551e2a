// SPDX-License-Identifier: Apache-2.0
extension StorePaths {
    /// The name of the directory of schema files in each layer's directory: `<prefs>/Schemas`, `<system>/Schemas`,
    /// `<shipped>/Schemas` (docs/SCHEMAS.md). A subdirectory, so that no schema file is ever listed as a domain.
    package static let schemaDirectoryName = "Schemas"

    /// The directories schema files are looked up in, highest layer first: the user's, the administrator's, the
    /// shipped one; a higher layer's schema for a domain wins over a lower one's.
    package var schemaDirectories: [String] {
        [preferencesDirectory, systemDirectory, shippedDirectory].compactMap { directory in
            directory.map { $0 + "/" + Self.schemaDirectoryName }
        }
    }

    /// The name of a domain's schema file: `<domain>.schema.plist`, `NSGlobalDomain.schema.plist` for the global
    /// domain.
    package static func schemaFileName(for domain: DomainName) -> String {
        domain.rawValue + DomainSchema.fileSuffix
    }
}
