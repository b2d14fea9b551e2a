// SPDX-License-Identifier: Apache-2.0
/// The `defaults` command line: macOS `defaults(1)` for Preferences for Linux, with `watch`, `explain`, `-format`,
/// key paths, batch writes, shell completions and a manual page on top.
///
/// The executable is one line: `DefaultsCommand.main(arguments: …)`. Everything else (parsing, the verbs, the
/// output) lives in this library so that tests can run it in-process.
public enum DefaultsCommand {
    /// Runs `defaults` with this process's environment and standard streams, then exits with its status: 0 on
    /// success, 1 when something does not exist or fails, 255 for a usage error.
    ///
    /// Every command runs synchronously on the calling thread, so that a one-shot `read` or `write` never starts
    /// Swift concurrency's threads; only `watch` runs as a service in a task while this thread waits.
    /// - Parameter arguments: The command-line arguments, without the program name.
    public static func main(arguments: [String]) -> Never {
        main(arguments: arguments, fleetAdministration: nil)
    }

    /// Runs `defaults` as ``main(arguments:)`` does, with the fleet actions that talk to etcd run in this process by
    /// `fleetAdministration` (the `defaults-fleet` executable) instead of by running `defaults-fleet`.
    /// - Parameters:
    ///   - arguments: The command-line arguments, without the program name.
    ///   - fleetAdministration: What runs those fleet actions; `nil` runs `defaults-fleet` for them.
    package static func main(arguments: [String], fleetAdministration: (any FleetAdministration)?) -> Never {
        let environment = DefaultsEnvironment.current()
        let runner = CommandRunner(
            console: ProcessConsole(), environment: environment,
            openStorage: CommandRunner.opener(environment: environment), fleetAdministration: fleetAdministration)
        SystemCalls.exitProcess(runner.runBlocking(arguments))
    }
}
