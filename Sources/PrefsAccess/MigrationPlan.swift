// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// What adopting another program's values for a domain does to the domain here, key by key.
///
/// A key the domain does not hold is taken. A key it holds with another value is kept as it is here, unless the
/// adoption overwrites, when it is replaced. A key it holds with the same value is unchanged. Nothing is removed.
package struct MigrationPlan: Sendable, Hashable {
    /// Keys absent here, added with the other program's values.
    package var taken: [PlistKey] = []
    /// Keys set here to another value and replaced (only when overwriting).
    package var replaced: [PlistKey] = []
    /// Keys set here to another value and left as they are (when not overwriting).
    package var kept: [PlistKey] = []
    /// Keys that already have the same value here.
    package var unchanged: [PlistKey] = []

    /// Compares the other program's values with the domain's.
    /// - Parameters:
    ///   - source: The other program's values.
    ///   - current: The domain's values here.
    ///   - overwrite: Whether a key set here to another value is replaced.
    package init(source: PlistDictionary, current: PlistDictionary, overwrite: Bool) {
        for key in source.storage.keys.sorted() {
            switch current[key] {
            case nil: taken.append(key)
            case source[key]: unchanged.append(key)
            default:
                if overwrite { replaced.append(key) } else { kept.append(key) }
            }
        }
    }

    /// Whether adopting changes the domain.
    package var changesDomain: Bool { !taken.isEmpty || !replaced.isEmpty }

    /// What the plan does, in one line: `took Count, Theme; kept Mode (set here); 2 already the same`.
    /// - Parameters:
    ///   - dryRun: Whether to say what it would do (`would take`).
    ///   - keptNote: Why kept keys were kept, in parentheses.
    package func summary(dryRun: Bool = false, keptNote: String = "set here") -> String {
        func list(_ keys: [PlistKey]) -> String { keys.map(\.string).joined(separator: ", ") }
        var parts: [String] = []
        if !taken.isEmpty { parts.append((dryRun ? "would take " : "took ") + list(taken)) }
        if !replaced.isEmpty { parts.append((dryRun ? "would replace " : "replaced ") + list(replaced)) }
        if !kept.isEmpty { parts.append((dryRun ? "would keep " : "kept ") + list(kept) + " (\(keptNote))") }
        if !unchanged.isEmpty { parts.append("\(unchanged.count) already the same") }
        return parts.isEmpty ? "no keys" : parts.joined(separator: "; ")
    }

    /// Applies the plan: the taken and replaced keys get the other program's values.
    package func apply(_ source: PlistDictionary, to values: inout PlistDictionary) {
        for key in taken + replaced { values[key] = source[key] }
    }
}
