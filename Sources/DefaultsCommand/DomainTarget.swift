// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsStore

/// A domain named on the command line, resolved: the directories to open, the domain in them, and the names macOS
/// uses for it in its messages.
struct DomainTarget: Sendable {
    /// The directories (and machine id) of the store to open.
    var paths: StorePaths
    /// The domain.
    var id: DomainID
    /// The name in most messages: the name or path as given, or `Apple Global Domain`.
    var displayName: String
    /// The name in the messages where macOS prints the CFPreferences identifier: the name or path as given, or
    /// `kCFPreferencesAnyApplication` for the global domain.
    var identifier: String
    /// True for a domain given as a file path.
    var isFile: Bool

    /// Resolves a domain argument.
    /// - Parameters:
    ///   - selector: The domain argument.
    ///   - host: The host option: a by-host domain unless it is `.any`.
    ///   - environment: The process's environment.
    /// - Throws: ``DefaultsError``: `.invalidArgument` for an invalid domain name, a file name that is not one, or a
    ///   host option with a file; `.unsupported` for `-app`.
    static func resolve(
        _ selector: DomainSelector, host: HostSelector, in environment: DefaultsEnvironment
    ) throws(DefaultsError) -> DomainTarget {
        let scope: DomainScope = host == .any ? .user : .byHost
        switch selector {
        case .global:
            let paths = environment.userPaths(machineID: try environment.machineID(for: host))
            return DomainTarget(
                paths: paths, id: DomainID(.global, scope: scope), displayName: "Apple Global Domain",
                identifier: "kCFPreferencesAnyApplication", isFile: false)
        case .name(let text):
            let name = try domainName(text)
            let paths = environment.userPaths(machineID: try environment.machineID(for: host))
            return DomainTarget(
                paths: paths, id: DomainID(name, scope: scope), displayName: text, identifier: text, isFile: false)
        case .path(let text):
            guard host == .any else {
                throw DefaultsError(
                    .invalidArgument, "defaults: -currentHost and -host do not apply to a domain given as a file path")
            }
            return try file(text, in: environment)
        case .application(let name):
            throw DefaultsError(
                .unsupported,
                "defaults: -app \(name): applications are not bundles on Linux; name the application's domain "
                    + "instead (such as com.example.App)")
        }
    }

    /// A domain given as a file path: the file `<directory>/<stem>.plist`, as the domain `<stem>` of a store whose
    /// Preferences directory is `<directory>` (the file gets the same locking and atomic writes).
    private static func file(_ text: String, in environment: DefaultsEnvironment) throws(DefaultsError) -> DomainTarget
    {
        let path = try environment.absolutePath(text)
        let slash = path.lastIndex(of: "/")!
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        var stem = String(path[path.index(after: slash)...])
        if stem.hasSuffix(".plist") { stem.removeLast(".plist".count) }
        let name: DomainName
        if stem == ".GlobalPreferences" {
            name = .global
        } else {
            do {
                name = try DomainName(stem)
            } catch {
                throw DefaultsError(
                    .invalidArgument,
                    "defaults: cannot use \(text) as a domain: its file name must be a valid domain name plus "
                        + "'.plist' (\(error.message))", cause: error)
            }
        }
        var paths = StorePaths(
            preferencesDirectory: directory, systemDirectory: nil, shippedDirectory: nil, machineID: nil)
        // Outside the Preferences directory the locks go to the runtime directory, not beside the file (as
        // `./.locks`); inside it, where prefsd and every other writer lock in `.locks`, they stay there.
        let canonical = SystemCalls.canonicalPath(directory) ?? directory
        let preferences = environment.userPaths(machineID: nil).preferencesDirectory
        if let runtime = environment.variables["XDG_RUNTIME_DIR"].flatMap(SystemCalls.canonicalPath),
            canonical != (SystemCalls.canonicalPath(preferences) ?? preferences)
        {
            paths.separateLocksDirectory = StorePaths.separateLocksDirectory(for: canonical, runtimeDirectory: runtime)
        }
        return DomainTarget(paths: paths, id: DomainID(name), displayName: text, identifier: text, isFile: true)
    }

    /// A validated domain name.
    static func domainName(_ text: String) throws(DefaultsError) -> DomainName {
        do {
            return try DomainName(text)
        } catch {
            throw DefaultsError(.invalidArgument, "defaults: \(error.message)", cause: error)
        }
    }
}
