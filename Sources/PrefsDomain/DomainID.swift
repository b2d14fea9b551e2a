// SPDX-License-Identifier: Apache-2.0
/// One persistent domain: a name in a scope, which together name exactly one file.
public struct DomainID: Hashable, Sendable, CustomStringConvertible {
    /// The domain's name.
    public var name: DomainName
    /// Where the domain's file lives.
    public var scope: DomainScope

    /// Creates an identifier.
    /// - Parameters:
    ///   - name: The domain's name.
    ///   - scope: Where its file lives; the user's Preferences directory by default.
    public init(_ name: DomainName, scope: DomainScope = .user) {
        self.name = name
        self.scope = scope
    }

    /// The user's global domain, `NSGlobalDomain`.
    public static let global = DomainID(.global)

    /// `com.example.App`, or `com.example.App (byHost)` for other scopes.
    public var description: String {
        scope == .user ? name.rawValue : "\(name.rawValue) (\(scope.rawValue))"
    }
}
