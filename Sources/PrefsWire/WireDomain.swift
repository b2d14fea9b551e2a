// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// How a request addresses one domain: its name, whether it is the by-host variant, and which layer.
///
/// On the wire these are the flat fields `domain` (string), `byHost` (boolean, default false) and `scope`
/// (string, default `user`) of the message that carries them. The server validates the name itself and
/// answers `invalidName` for a bad one; the global domain is `NSGlobalDomain`.
public struct WireDomain: Sendable, Hashable, CustomStringConvertible {
    /// The layer a domain lives in.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// The user's own Preferences directory: readable and writable.
        case user
        /// The administrator's system layer (`/etc/preferences`): read-only over the protocol.
        case system
        /// The administrator's forced layer (`/etc/preferences/forced`): read-only over the protocol.
        case forced
        /// The fleet's forced layer, mirrored from etcd (`<prefs>/Fleet/forced`): read-only over the protocol.
        case fleetForced
        /// The fleet's defaults layer, mirrored from etcd (`<prefs>/Fleet/default`): read-only over the protocol.
        case fleetDefault
    }

    /// The domain name, e.g. `com.example.app` or `NSGlobalDomain`.
    public var name: String
    /// Whether this is the by-host (`-currentHost`) variant; only user domains have one.
    public var byHost: Bool
    /// The layer.
    public var scope: Scope

    /// Creates a domain address.
    /// - Parameters:
    ///   - name: The domain name.
    ///   - byHost: Whether to address the by-host variant (user scope only).
    ///   - scope: The layer.
    public init(_ name: String, byHost: Bool = false, scope: Scope = .user) {
        self.name = name
        self.byHost = byHost
        self.scope = scope
    }

    /// The name of the global domain.
    public static let globalDomainName = "NSGlobalDomain"

    /// The name, with `(byHost)` and the scope when they are not the defaults.
    public var description: String {
        var text = name
        if byHost { text += " (byHost)" }
        if scope != .user { text += " (\(scope.rawValue))" }
        return text
    }

    /// Adds the `domain`, `byHost` and `scope` fields to a message; defaults are left out.
    func encode(into dictionary: inout PlistDictionary, nameField: String = "domain") {
        dictionary[nameField] = .string(name)
        if byHost { dictionary["byHost"] = .bool(true) }
        if scope != .user { dictionary["scope"] = .string(scope.rawValue) }
    }

    /// Reads the `domain`, `byHost` and `scope` fields of a message.
    static func decode(from fields: inout WireFields, nameField: String = "domain") throws(WireError) -> WireDomain {
        let name = try fields.string(nameField)
        let (byHost, scope) = try decodeByHostAndScope(from: &fields)
        return WireDomain(name, byHost: byHost, scope: scope)
    }

    /// Reads `byHost` and `scope`, checking that only user domains are by-host.
    static func decodeByHostAndScope(from fields: inout WireFields) throws(WireError) -> (Bool, Scope) {
        let byHost = try fields.optionalBool("byHost") ?? false
        var scope = Scope.user
        if let scopeName = try fields.optionalString("scope") {
            guard let parsed = Scope(rawValue: scopeName) else {
                throw WireError.badField(
                    fields.path(of: "scope"),
                    "must be one of user, system, forced, fleetForced, fleetDefault (got \"\(scopeName)\")")
            }
            scope = parsed
        }
        if byHost && scope != .user {
            throw WireError.badField(
                fields.path(of: "byHost"), "must be false for a \(scope.rawValue) domain: only user domains are by-host"
            )
        }
        return (byHost, scope)
    }
}
