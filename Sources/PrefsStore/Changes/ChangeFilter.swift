// SPDX-License-Identifier: Apache-2.0
import PrefsDomain

/// Which changes an observer receives: a domain's, one key's, or the effective values of a search list.
public struct ChangeFilter: Hashable, Sendable, CustomStringConvertible {
    enum Target: Hashable, Sendable {
        case domain(DomainID)
        case effective(SearchList)
    }

    let target: Target
    /// The one key observed, or `nil` for every key.
    public let key: String?

    /// Every change to one domain.
    public static func domain(_ domain: DomainID) -> ChangeFilter {
        ChangeFilter(target: .domain(domain), key: nil)
    }

    /// Changes to one key of one domain.
    public static func key(_ key: String, in domain: DomainID) -> ChangeFilter {
        ChangeFilter(target: .domain(domain), key: key)
    }

    /// Every change to the effective (first-hit) value of any key of a search list.
    public static func effective(_ searchList: SearchList) -> ChangeFilter {
        ChangeFilter(target: .effective(searchList), key: nil)
    }

    /// Changes to the effective (first-hit) value of one key of a search list.
    public static func effectiveKey(_ key: String, in searchList: SearchList) -> ChangeFilter {
        ChangeFilter(target: .effective(searchList), key: key)
    }

    public var description: String {
        let what: String
        switch target {
        case .domain(let id): what = "domain \(id)"
        case .effective(let list): what = "effective values of \(list)"
        }
        return key.map { "key \($0) of \(what)" } ?? what
    }
}
