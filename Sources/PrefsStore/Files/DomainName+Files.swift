// SPDX-License-Identifier: Apache-2.0
import PrefsDomain

extension DomainName {
    /// The stem of the global domain's files (`.GlobalPreferences.plist`).
    static let globalFileStem = ".GlobalPreferences"

    /// The name without extension of this domain's files: the name itself, or `.GlobalPreferences`.
    var fileStem: String { isGlobal ? Self.globalFileStem : rawValue }
}
