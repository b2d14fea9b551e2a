// SPDX-License-Identifier: Apache-2.0
/// The version of Preferences for Linux: the one place it is written. `defaults`, `plutil` and `prefsd` print it for
/// `--version`, prefsd reports it in `hello`, and the Debian package takes its version from `prefsd --version`. A test
/// checks that CHANGELOG.md, the Python client and debian/changelog name the same one.
package enum PreferencesVersion {
    /// The version, `major.minor.patch`.
    package static let current = "1.0.0"

    /// The name of the project the three programs belong to, which their manual pages and completion scripts name.
    package static let projectName = "Preferences for Linux"

    /// What `<program> --version` prints: one line, `defaults 1.0.0`, ending with a newline: the program and the
    /// version after the last space, as the GNU coding standards ask of a first line. The packaging reads prefsd's
    /// (`prefsd 1.0.0`, parsed by scripts/build-deb.sh, scripts/check-deb.sh and debian/rules), so the line names
    /// no more than that.
    /// - Parameter program: The program's name.
    package static func versionLine(program: String) -> String {
        "\(program) \(current)\n"
    }
}
