// SPDX-License-Identifier: Apache-2.0
/// One layer of a search list: a persistent domain, or one of the two volatile, in-process layers.
public enum Layer: Hashable, Sendable, CustomStringConvertible {
    /// A domain backed by a file (user, by-host, system, forced or shipped).
    case domain(DomainID)
    /// The volatile argument domain (`-key value` on the command line), never persisted.
    case arguments
    /// The defaults registered in this process with `register(defaults:)`, never persisted.
    case registered

    /// `forced com.example.App`, `fleet-managed forced com.example.App`, `arguments`, `registered`, …
    public var description: String {
        switch self {
        case .domain(let id) where id.scope == .fleetForced: "fleet-managed forced \(id.name)"
        case .domain(let id) where id.scope == .fleetDefault: "fleet-managed default \(id.name)"
        case .domain(let id): "\(id.scope) \(id.name)"
        case .arguments: "arguments"
        case .registered: "registered"
        }
    }
}
