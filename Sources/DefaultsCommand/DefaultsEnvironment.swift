// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsPOSIX
import PrefsStore

/// What a command needs from its process: the variables that locate the preferences, the machine id, the working
/// directory (for relative file paths) and the host name (for `-host`). Tests pass their own.
struct DefaultsEnvironment: Sendable {
    /// The variables `StorePaths` reads (`PREFERENCES_HOME`, `XDG_CONFIG_HOME`, `HOME`, `PREFERENCES_SYSTEM_DIR`,
    /// `PREFERENCES_DOMAINS_DIR`, `PREFERENCES_MACHINE_ID`), `GNUSTEP_USER_DEFAULTS_DIR` and `PATH` (where `dconf` is),
    /// which `migrate` reads, and
    /// the fleet's endpoints, prefix, user, password file and TLS files, which `fleet` reads, and `XDG_RUNTIME_DIR`,
    /// where the locks of a domain given as a file path go.
    var variables: [String: String]
    /// This machine's id, which names by-host files, or `nil` when `/etc/machine-id` is missing.
    var machineID: String?
    /// The working directory, or `nil` when it is unknown.
    var currentDirectory: String?
    /// This machine's host name.
    var hostName: String?

    /// The names of the variables kept in ``variables``.
    static let variableNames = [
        "PREFERENCES_HOME", "XDG_CONFIG_HOME", "HOME", "PREFERENCES_SYSTEM_DIR", "PREFERENCES_DOMAINS_DIR",
        "GNUSTEP_USER_DEFAULTS_DIR", "PREFERENCES_MACHINE_ID", "PREFERENCES_FLEET_ENDPOINTS",
        "PREFERENCES_FLEET_PREFIX", "PREFERENCES_FLEET_USER", "PREFERENCES_FLEET_PASSWORD_FILE",
        "PREFERENCES_FLEET_CA_FILE", "PREFERENCES_FLEET_CRL_FILE", "PREFERENCES_FLEET_CERTIFICATE_FILE",
        "PREFERENCES_FLEET_KEY_FILE", "XDG_RUNTIME_DIR", "PATH",
    ]

    /// This process's environment.
    static func current() -> DefaultsEnvironment {
        var variables: [String: String] = [:]
        for name in variableNames {
            if let value = POSIX.environmentVariable(name) { variables[name] = value }
        }
        return DefaultsEnvironment(
            variables: variables, machineID: StorePaths.machineID(environment: variables),
            currentDirectory: SystemCalls.currentDirectory(), hostName: SystemCalls.hostName())
    }

    /// A path from the command line made absolute: `~/` is the home directory, and a relative path is taken from the
    /// working directory.
    /// - Throws: ``DefaultsError`` with code `.invalidArgument` for a relative path when the working directory is
    ///   unknown.
    func absolutePath(_ path: String) throws(DefaultsError) -> String {
        if path.hasPrefix("~/"), let home = variables["HOME"] { return home + path.dropFirst() }
        if path.hasPrefix("/") { return path }
        guard let currentDirectory else {
            throw DefaultsError(.invalidArgument, "defaults: cannot resolve \(path): the working directory is unknown")
        }
        return currentDirectory + "/" + path
    }

    /// The user's preference directories, with by-host files named by `machineID`.
    func userPaths(machineID: String?) -> StorePaths {
        StorePaths(environment: variables, machineID: machineID)
    }

    /// The machine id a host option selects.
    /// - Throws: ``DefaultsError`` with code `.invalidArgument` for a host name that is not this machine's.
    func machineID(for host: HostSelector) throws(DefaultsError) -> String? {
        switch host {
        case .any, .current:
            return machineID
        case .named(let name):
            let lowered = name.lowercased()
            let isMachineID =
                lowered.utf8.count == 32
                && lowered.utf8.allSatisfy {
                    ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                        || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
                }
            if isMachineID { return lowered }
            if name == hostName || name == "localhost" { return machineID }
            throw DefaultsError(
                .invalidArgument,
                "defaults: unknown host '\(name)': -host takes this machine's host name (\(hostName ?? "unknown")) or a "
                    + "machine id of 32 hexadecimal digits")
        }
    }
}
