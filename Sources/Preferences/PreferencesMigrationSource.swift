// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPOSIX

/// Where another program kept an application's settings, for ``Preferences/init(domain:suites:migratingFrom:storage:)``
/// to adopt them once.
///
/// Both programs keep one property-list file per domain:
/// - ``foundation``: Foundation's `UserDefaults` on Linux, in `$XDG_CONFIG_HOME/<domain>.plist`
///   (`~/.config/<domain>.plist` by default). Its standard domain is the executable's name, as ``Preferences``'s is.
/// - ``gnustep``: GNUstep, in `$GNUSTEP_USER_DEFAULTS_DIR/<domain>.plist` (relative to the home directory unless
///   absolute), else `~/GNUstep/Defaults/<domain>.plist`.
public struct PreferencesMigrationSource: Sendable, Hashable, CustomStringConvertible {
    let kind: MigrationSource.Kind
    /// An explicit directory, or `nil` for the one the environment names.
    let directory: String?

    /// Foundation's `UserDefaults` files, where the environment puts them (`$XDG_CONFIG_HOME`, else `~/.config`).
    public static let foundation = PreferencesMigrationSource(kind: .foundation, directory: nil)

    /// GNUstep's defaults files, where the environment puts them (`$GNUSTEP_USER_DEFAULTS_DIR`, else
    /// `~/GNUstep/Defaults`).
    public static let gnustep = PreferencesMigrationSource(kind: .gnustep, directory: nil)

    /// Foundation's `UserDefaults` files in an explicit directory.
    /// - Parameter directory: The directory holding `<domain>.plist` files, such as another home's `.config`.
    /// - Returns: The source.
    public static func foundation(in directory: String) -> PreferencesMigrationSource {
        PreferencesMigrationSource(kind: .foundation, directory: directory)
    }

    /// GNUstep's defaults files in an explicit directory.
    /// - Parameter directory: The directory holding `<domain>.plist` files.
    /// - Returns: The source.
    public static func gnustep(in directory: String) -> PreferencesMigrationSource {
        PreferencesMigrationSource(kind: .gnustep, directory: directory)
    }

    /// `foundation`, or `gnustep in /path` for an explicit directory.
    public var description: String {
        directory.map { "\(kind.rawValue) in \($0)" } ?? kind.rawValue
    }

    /// The files' directory, or `nil` when the environment names no home directory.
    var located: MigrationSource? {
        if let directory { return MigrationSource(kind: kind, directory: directory) }
        var environment: [String: String] = [:]
        for name in MigrationSource.environmentVariables {
            if let value = POSIX.environmentVariable(name) { environment[name] = value }
        }
        return MigrationSource.located(kind, environment: environment)
    }
}
