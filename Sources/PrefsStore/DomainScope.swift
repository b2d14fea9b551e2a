/// Where a domain's file lives, and whether the store may write it.
public enum DomainScope: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The user's domain: `<prefs>/<domain>.plist`. Writable.
    case user
    /// The user's domain for this machine only (`defaults -currentHost`):
    /// `<prefs>/ByHost/<domain>.<machine-id>.plist`. Writable.
    case byHost
    /// The administrator's any-user layer: `<system>/<domain>.plist`. Read-only.
    case system
    /// The administrator's enforced layer: `<system>/forced/<domain>.plist`. Read-only.
    case forced
    /// The registration defaults a package ships: `<domains>/<domain>.plist`. Read-only.
    case shipped

    /// True for the scopes the store writes: ``user`` and ``byHost``.
    public var isWritable: Bool { self == .user || self == .byHost }

    public var description: String { rawValue }
}
