// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

/// Whether the user's preferences go through `prefsd` or to the files directly: one meaning for `defaults` and the
/// `Preferences` library, set by `PREFERENCES_DAEMON` (docs/ARCHITECTURE.md, "The access layer").
package enum DaemonPolicy: Sendable, Hashable {
    /// Through `prefsd` when its socket answers at the moment the storage is opened, else the files directly.
    /// `PREFERENCES_DAEMON` unset, empty or `auto`.
    case automatic
    /// Always through `prefsd`: while it does not answer, reads and writes fail with `unavailable` (never a silent
    /// fall-back to the files). `PREFERENCES_DAEMON=on` (or `yes`, `1`, `true`).
    case always
    /// Never: the files directly, with `flock` and inotify keeping processes coherent. `PREFERENCES_DAEMON=off` (or
    /// `no`, `0`, `false`).
    case never

    /// The name of the environment variable that overrides a program's choice.
    package static let variableName = "PREFERENCES_DAEMON"

    /// The policy a variable's value asks for, or `nil` when it names none (`auto`, empty, or unknown).
    package init?(variable: String) {
        switch variable.lowercased() {
        case "on", "yes", "1", "true": self = .always
        case "off", "no", "0", "false": self = .never
        default: return nil
        }
    }

    /// The policy in force: `PREFERENCES_DAEMON` when it names one, else `requested`.
    /// - Parameter requested: What the program asked for; the variable overrides only ``automatic``, so a program
    ///   that insists on the files (or on the daemon) gets them.
    package static func effective(_ requested: DaemonPolicy = .automatic) -> DaemonPolicy {
        guard requested == .automatic, let variable = POSIX.environmentVariable(variableName) else { return requested }
        return DaemonPolicy(variable: variable) ?? .automatic
    }
}
