// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX

/// Every directory the store reads and writes, and the machine id that names by-host files.
///
/// | what | default | variable |
/// |---|---|---|
/// | user Preferences directory | `${XDG_CONFIG_HOME:-$HOME/.config}/preferences` | `PREFERENCES_HOME` |
/// | system layer | `/etc/preferences` | `PREFERENCES_SYSTEM_DIR` |
/// | forced layer | `<system>/forced` | |
/// | shipped registration defaults | `/usr/share/preferences/domains` | `PREFERENCES_DOMAINS_DIR` |
/// | fleet cache (written by prefsd) | `<prefs>/Fleet` | |
/// | machine id | `/etc/machine-id` | `PREFERENCES_MACHINE_ID` (32 hexadecimal digits) |
///
/// The machine id is the one `sd_id128_get_machine()` returns: the 32 hexadecimal digits in
/// `/etc/machine-id`. Reading the file directly keeps libsystemd out of the store.
public struct StorePaths: Hashable, Sendable {
    /// The user's Preferences directory.
    public var preferencesDirectory: String
    /// The administrator's any-user layer, or `nil` to have none.
    public var systemDirectory: String?
    /// The shipped registration defaults, or `nil` to have none.
    public var shippedDirectory: String?
    /// The machine id that names by-host files, or `nil` when unknown (by-host domains are then unavailable).
    public var machineID: String?
    /// The fleet cache prefsd mirrors managed domains into (docs/FLEET.md), or `nil` to have no fleet layers.
    public var fleetDirectory: String?
    /// The user's home directory (`$HOME`, else the password database's): a domain file that is a symbolic link is
    /// followed only to a regular file of the user's inside it (as dotfile managers make them), or never when this
    /// is `nil`.
    public var homeDirectory: String?
    /// Where the lock files go instead of `<prefs>/.locks`: for a domain given as a file path outside the user's
    /// Preferences directory, so that writing `./local.plist` leaves no `.locks` in the working directory.
    package var separateLocksDirectory: String?

    /// The name of the fleet cache inside the Preferences directory.
    public static let fleetDirectoryName = "Fleet"

    /// The file that holds the machine id.
    public static let machineIDPath = "/etc/machine-id"

    /// Creates paths from explicit directories, as for a domain given as a file path.
    /// - Parameters:
    ///   - preferencesDirectory: The directory of user domain files.
    ///   - systemDirectory: The administrator's directory (with `forced/` inside), or `nil`.
    ///   - shippedDirectory: The shipped registration defaults, or `nil`.
    ///   - machineID: 32 hexadecimal digits naming by-host files, or `nil`; anything else counts as `nil`.
    ///   - fleetDirectory: The fleet cache, or `nil` (the default) to have no fleet layers.
    ///   - homeDirectory: The directory symbolic links of domain files may lead into; by default this process's
    ///     home directory (``processHomeDirectory()``).
    public init(
        preferencesDirectory: String, systemDirectory: String?, shippedDirectory: String?, machineID: String?,
        fleetDirectory: String? = nil, homeDirectory: String? = StorePaths.processHomeDirectory()
    ) {
        self.homeDirectory = homeDirectory.map(Self.trimmingTrailingSlashes)
        self.preferencesDirectory = Self.trimmingTrailingSlashes(preferencesDirectory)
        self.systemDirectory = systemDirectory.map(Self.trimmingTrailingSlashes)
        self.shippedDirectory = shippedDirectory.map(Self.trimmingTrailingSlashes)
        self.machineID = machineID.flatMap(Self.validMachineID)
        self.fleetDirectory = fleetDirectory.map(Self.trimmingTrailingSlashes)
    }

    /// Derives the paths from environment variables, with the defaults of the table above; the fleet cache is
    /// `<prefs>/Fleet`.
    /// - Parameters:
    ///   - environment: The variables; tests pass their own, ``fromProcessEnvironment()`` passes the process's.
    ///   - machineID: The machine id; by default read from ``machineIDPath``.
    public init(environment: [String: String], machineID: String? = StorePaths.systemMachineID()) {
        func variable(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let userHome = variable("HOME") ?? POSIX.homeDirectoryOfCurrentUser()
        let preferences: String
        if let home = variable("PREFERENCES_HOME") {
            preferences = home
        } else if let config = variable("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            // The XDG specification says relative values are invalid and must be ignored.
            preferences = Self.trimmingTrailingSlashes(config) + "/preferences"
        } else {
            preferences = Self.trimmingTrailingSlashes(userHome ?? "/") + "/.config/preferences"
        }
        self.init(
            preferencesDirectory: preferences,
            systemDirectory: variable("PREFERENCES_SYSTEM_DIR") ?? "/etc/preferences",
            shippedDirectory: variable("PREFERENCES_DOMAINS_DIR") ?? "/usr/share/preferences/domains",
            machineID: machineID,
            fleetDirectory: Self.trimmingTrailingSlashes(preferences) + "/" + Self.fleetDirectoryName,
            homeDirectory: userHome)
    }

    /// This process's home directory: `$HOME`, else the password database's entry of its user.
    public static func processHomeDirectory() -> String? {
        POSIX.environmentVariable("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? POSIX.homeDirectoryOfCurrentUser()
    }

    /// Derives the paths from this process's environment and the machine id it selects (``machineID(environment:)``).
    public static func fromProcessEnvironment() -> StorePaths {
        let names = [
            "PREFERENCES_HOME", "XDG_CONFIG_HOME", "HOME", "PREFERENCES_SYSTEM_DIR", "PREFERENCES_DOMAINS_DIR",
            "PREFERENCES_MACHINE_ID",
        ]
        var environment: [String: String] = [:]
        for name in names {
            if let value = POSIX.environmentVariable(name) { environment[name] = value }
        }
        return StorePaths(environment: environment, machineID: machineID(environment: environment))
    }

    /// The machine id an environment selects: `PREFERENCES_MACHINE_ID` when it holds 32 hexadecimal digits (tests
    /// and containers that stand for several machines), else the one in ``machineIDPath``; lower case either way.
    public static func machineID(environment: [String: String]) -> String? {
        environment["PREFERENCES_MACHINE_ID"].flatMap(validMachineID) ?? systemMachineID()
    }

    /// Why `PREFERENCES_MACHINE_ID` is not used although it is set (it is not 32 hexadecimal digits), naming the
    /// id used instead; `nil` when it is unset or valid.
    public static func machineIDProblem(environment: [String: String]) -> String? {
        guard let text = environment["PREFERENCES_MACHINE_ID"], validMachineID(text) == nil else { return nil }
        let instead = systemMachineID().map { "the one in \(machineIDPath), \($0), is used" } ?? "no machine id is used"
        return "PREFERENCES_MACHINE_ID \"\(text)\" is not a machine id (32 hexadecimal digits); \(instead)"
    }

    /// The machine id from ``machineIDPath``, or `nil` when the file is missing or malformed.
    public static func systemMachineID() -> String? {
        guard case .contents(let bytes, _) = try? FileSystem.readFile(machineIDPath, maxBytes: 256) else { return nil }
        return validMachineID(String(decoding: bytes, as: UTF8.self))
    }

    /// The administrator's enforced layer, `<system>/forced`.
    public var forcedDirectory: String? { systemDirectory.map { $0 + "/forced" } }

    /// The fleet's enforced layer, `<fleet>/forced`.
    public var fleetForcedDirectory: String? { fleetDirectory.map { $0 + "/forced" } }

    /// The fleet's defaults layer, `<fleet>/default`.
    public var fleetDefaultDirectory: String? { fleetDirectory.map { $0 + "/default" } }

    /// The fleet cache's record of where each key of a fleet domain came from (etcd key and revision):
    /// `<fleet>/sources/forced/<domain>.plist` or `<fleet>/sources/default/<domain>.plist`.
    /// - Returns: `nil` for other scopes or without a fleet cache.
    public func fleetSourcesPath(for domain: DomainID) -> String? {
        guard let fleetDirectory, let kind = FleetKind(domain.scope) else { return nil }
        return "\(fleetDirectory)/sources/\(kind.rawValue)/\(domain.name.fileStem).plist"
    }

    /// The directory of by-host files, `<prefs>/ByHost`.
    public var byHostDirectory: String { preferencesDirectory + "/ByHost" }

    /// The directory of lock files, `<prefs>/.locks` (or ``separateLocksDirectory``).
    var locksDirectory: String { separateLocksDirectory ?? preferencesDirectory + "/.locks" }

    /// The lock directory of the domain files in `directory` for a process whose runtime directory
    /// (`$XDG_RUNTIME_DIR`) is `runtimeDirectory`: `<runtime>/preferences/locks/<directory, escaped>`, one per
    /// directory, so that every writer of a file there by this user takes the same lock.
    /// - Parameters:
    ///   - directory: The files' directory, absolute and canonical (no `.`, `..` or links), so that two spellings of
    ///     one directory share their locks.
    ///   - runtimeDirectory: The user's runtime directory.
    package static func separateLocksDirectory(for directory: String, runtimeDirectory: String) -> String {
        // `%` first, then `/`: an escaping that no two directories share; a long one is shortened with a hash.
        var escaped = ""
        for character in directory {
            switch character {
            case "%": escaped += "%25"
            case "/": escaped += "%2F"
            default: escaped.append(character)
            }
        }
        return trimmingTrailingSlashes(runtimeDirectory) + "/preferences/locks/" + TemporaryFileName.tag(of: escaped)
    }

    /// The file that holds a domain.
    /// - Parameter domain: The domain.
    /// - Returns: Its absolute path.
    /// - Throws: ``/PrefsDomain/PrefsStoreError`` with code `.unavailable` when the scope has no directory, or for a
    ///   by-host domain when the machine id is unknown.
    public func path(for domain: DomainID) throws(PrefsStoreError) -> String {
        let location = try location(of: domain)
        return location.directory + "/" + location.fileName
    }

    /// The directory and file name of a domain's file.
    func location(of domain: DomainID) throws(PrefsStoreError) -> FileLocation {
        let stem = domain.name.fileStem
        switch domain.scope {
        case .user:
            return FileLocation(directory: preferencesDirectory, fileName: stem + ".plist")
        case .byHost:
            guard let machineID else {
                throw PrefsStoreError(
                    .unavailable,
                    "by-host domain \(domain.name) needs the machine id, and \(Self.machineIDPath) is missing or "
                        + "invalid",
                    path: Self.machineIDPath)
            }
            return FileLocation(directory: byHostDirectory, fileName: "\(stem).\(machineID).plist")
        case .system, .forced, .shipped, .fleetForced, .fleetDefault:
            let directory = self.directory(of: domain.scope)
            guard let directory else {
                throw PrefsStoreError(
                    .unavailable, "no \(domain.scope) directory is configured for domain \(domain.name)")
            }
            return FileLocation(directory: directory, fileName: stem + ".plist")
        }
    }

    /// The directory of a scope's files, or `nil` when it has none (for by-host: without a machine id).
    public func directory(of scope: DomainScope) -> String? {
        switch scope {
        case .user: preferencesDirectory
        case .byHost: machineID == nil ? nil : byHostDirectory
        case .system: systemDirectory
        case .forced: forcedDirectory
        case .shipped: shippedDirectory
        case .fleetForced: fleetForcedDirectory
        case .fleetDefault: fleetDefaultDirectory
        }
    }

    /// The lock file for a writable domain: `<prefs>/.locks/<stem>.lock`, or `.locks/ByHost/<stem>.<id>.lock`.
    func lockLocation(of domain: DomainID) throws(PrefsStoreError) -> FileLocation {
        let file = try location(of: domain)
        let stem = String(file.fileName.dropLast(".plist".count))
        let directory = domain.scope == .byHost ? locksDirectory + "/ByHost" : locksDirectory
        return FileLocation(directory: directory, fileName: stem + ".lock")
    }

    /// The domain a file name in a scope's directory belongs to, or `nil` for any other file.
    func domain(forFileName fileName: String, scope: DomainScope) -> DomainID? {
        guard fileName.hasSuffix(".plist") else { return nil }
        var stem = Substring(fileName.dropLast(".plist".count))
        if scope == .byHost {
            guard let machineID, stem.hasSuffix("." + machineID) else { return nil }
            stem = stem.dropLast(machineID.utf8.count + 1)
        }
        if stem == DomainName.globalFileStem { return DomainID(.global, scope: scope) }
        // `NSGlobalDomain.plist` is not the global domain's file; only `.GlobalPreferences.plist` is.
        guard let name = try? DomainName(String(stem)), !name.isGlobal else { return nil }
        return DomainID(name, scope: scope)
    }

    private static func validMachineID(_ text: String) -> String? {
        var trimmed = Substring(text)
        while let last = trimmed.last, last == "\n" || last == " " || last == "\r" { trimmed = trimmed.dropLast() }
        let isHex = trimmed.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
                || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F"))
        }
        guard trimmed.utf8.count == 32, isHex else { return nil }
        // Upper case is the same id: one spelling names by-host files and fleet keys, as `fleet write -host` does.
        return String(trimmed).lowercased()
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.last == "/" { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
