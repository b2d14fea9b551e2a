// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

/// A user's dconf database, GNOME's settings: `$XDG_CONFIG_HOME/dconf/user` (`~/.config/dconf/user`), read with
/// `dconf dump /` (Debian's dconf-cli), which reads the file itself and needs no D-Bus.
///
/// `dconf` runs with `DCONF_PROFILE` naming a profile of the user database alone, so that what the administrator
/// set in system databases (`/etc/dconf/db`) is not taken for the user's own settings.
package struct DconfDatabase: Sendable {
    /// The user's configuration directory, `$XDG_CONFIG_HOME` (`~/.config`), where dconf keeps `dconf/user`.
    package let configDirectory: String
    /// Where `dconf` is looked for, as `PATH` lists directories.
    package let searchPath: String

    /// The largest dump read: well beyond any real database (a GNOME desktop's is some tens of kilobytes).
    package static let maxDumpBytes = 64 << 20

    /// `PATH` when the environment sets none, as `execvp` assumes.
    package static let defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

    /// The message when `dconf` cannot be found.
    package static let notInstalled = "dconf is not installed (apt-get install dconf-cli)"

    /// The database of a configuration directory.
    /// - Parameters:
    ///   - configDirectory: The directory holding `dconf/user`.
    ///   - searchPath: Where `dconf` is looked for (`PATH`).
    package init(configDirectory: String, searchPath: String?) {
        self.configDirectory = configDirectory
        self.searchPath = searchPath.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultSearchPath
    }

    /// The database of a dconf source (``MigrationSource/located(_:environment:)`` with `.dconf`).
    /// - Parameters:
    ///   - source: The source; its directory is the database's, `<configuration directory>/dconf`.
    ///   - searchPath: Where `dconf` is looked for (`PATH`).
    package init(_ source: MigrationSource, searchPath: String?) {
        let directory = source.directory
        let configDirectory = directory.hasSuffix("/dconf") ? String(directory.dropLast("/dconf".count)) : directory
        self.init(configDirectory: configDirectory, searchPath: searchPath)
    }

    /// The directory holding the database.
    package var directory: String { configDirectory + "/dconf" }

    /// The database file.
    package var path: String { directory + "/user" }

    /// The settings the database holds; none when there is no database.
    /// - Throws: ``PrefsAccessError``: `.unavailable` when `dconf` is not installed, `.ioFailure` when it cannot be
    ///   run or fails, `.limitExceeded` for a dump larger than ``maxDumpBytes``.
    package func read() throws(PrefsAccessError) -> DconfSettings {
        do {
            guard try POSIX.fileStatus(atPath: path, followsSymbolicLinks: true) != nil else { return DconfSettings() }
        } catch {
            throw PrefsAccessError(.ioFailure, "cannot read \(path): \(error.message)", path: path, cause: error)
        }
        guard let program = SystemCalls.executable(named: "dconf", searchPath: searchPath) else {
            throw PrefsAccessError(.unavailable, Self.notInstalled, path: path)
        }
        // dconf finds the database through XDG_CONFIG_HOME; the profile, read from its standard input, lists the
        // user database only.
        var environment = SystemCalls.environment().filter {
            !$0.hasPrefix("DCONF_PROFILE=") && !$0.hasPrefix("XDG_CONFIG_HOME=")
        }
        environment += ["DCONF_PROFILE=/dev/stdin", "XDG_CONFIG_HOME=" + configDirectory]
        let run: SystemCalls.Run
        do {
            run = try SystemCalls.run(
                program, arguments: ["dconf", "dump", "/"], environment: environment,
                input: Array("user-db:user\n".utf8), maxBytes: Self.maxDumpBytes)
        } catch {
            if error.isTooLarge {
                throw PrefsAccessError(
                    .limitExceeded, "dconf dump / printed more than \(Self.maxDumpBytes) bytes", path: path,
                    cause: error)
            }
            throw PrefsAccessError(.ioFailure, "cannot run \(program): \(error.message)", path: path, cause: error)
        }
        let warnings = String(decoding: run.errorOutput, as: UTF8.self).split(separator: "\n").map(String.init)
        guard run.termination == .exited(0) else {
            let reason = warnings.last.map { ": " + $0 } ?? ""
            throw PrefsAccessError(
                .ioFailure, "\(program) dump / \(run.termination), reading \(path)\(reason)", path: path)
        }
        var settings = DconfSettings(dump: run.output)
        settings.warnings = warnings.filter { !$0.allSatisfy(\.isWhitespace) }
        return settings
    }
}
