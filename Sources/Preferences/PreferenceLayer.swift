// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// One layer of a search list, as ``PreferenceSource`` names it.
public enum PreferenceLayer: Hashable, Sendable, CustomStringConvertible {
    /// A persistent domain in a scope: `domain("com.example.App", .user)`, `domain("NSGlobalDomain", .forced)`, ….
    case domain(String, PreferenceScope)
    /// The argument domain (`-key value` on the command line), this process only.
    case arguments
    /// The registration defaults (``Preferences/register(defaults:)``), this process only.
    case registration

    /// `user com.example.App`, `forced NSGlobalDomain`, `arguments`, `registered`: as `defaults explain` prints it.
    public var description: String {
        switch self {
        case .domain(let name, .fleetForced): "fleet-managed forced \(name)"
        case .domain(let name, .fleetDefault): "fleet-managed default \(name)"
        case .domain(let name, let scope): "\(scope) \(name)"
        case .arguments: "arguments"
        case .registration: "registered"
        }
    }

    init(_ layer: Layer) {
        switch layer {
        case .domain(let id): self = .domain(id.name.rawValue, PreferenceScope(id.scope))
        case .arguments: self = .arguments
        case .registered: self = .registration
        }
    }
}
