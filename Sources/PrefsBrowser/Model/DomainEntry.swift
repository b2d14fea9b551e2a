// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// One domain in the browser's list: its name, and the layers that hold a file of it.
struct DomainEntry: Hashable, Sendable, Comparable {
    let name: DomainName
    let scopes: Set<DomainScope>

    /// The global domain first, then by name.
    static func < (lhs: DomainEntry, rhs: DomainEntry) -> Bool {
        if lhs.name.isGlobal != rhs.name.isGlobal { return lhs.name.isGlobal }
        return lhs.name.rawValue < rhs.name.rawValue
    }

    /// One letter per layer that holds the domain, in search order: `F` forced, `M` fleet-managed, `H` by-host,
    /// `U` user, `S` system, `D` shipped defaults.
    var layerLetters: String {
        var letters = ""
        if scopes.contains(.forced) { letters += "F" }
        if scopes.contains(.fleetForced) || scopes.contains(.fleetDefault) { letters += "M" }
        if scopes.contains(.byHost) { letters += "H" }
        if scopes.contains(.user) { letters += "U" }
        if scopes.contains(.system) { letters += "S" }
        if scopes.contains(.shipped) { letters += "D" }
        return letters
    }
}
