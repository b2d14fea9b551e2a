// SPDX-License-Identifier: Apache-2.0
package import DefaultsArguments

/// What runs the `defaults fleet` actions that talk to etcd (`write`, `read`, `delete`, `list`).
///
/// The `defaults-fleet` executable supplies one (`DefaultsFleet`); `defaults` itself has none and runs that executable
/// for these actions instead, so that the command users run many times a day links no network stack and no TLS
/// library, and starts without loading them. `fleet status` asks prefsd and stays in `defaults`.
package protocol FleetAdministration: Sendable {
    /// Runs one fleet action against etcd.
    /// - Parameters:
    ///   - command: The parsed `fleet` command line.
    ///   - context: The process's variables and output streams.
    /// - Throws: ``DefaultsError`` naming what failed.
    func run(_ command: FleetCommand, context: FleetContext) async throws(DefaultsError)
}

/// What a ``FleetAdministration`` needs of the command that runs it.
package struct FleetContext: Sendable {
    /// The environment variables (endpoints, credentials, TLS files, the key prefix).
    package let variables: [String: String]
    /// Writes text to standard output.
    package let writeOutput: @Sendable (String) throws(DefaultsError) -> Void
    /// Writes text to standard error.
    package let writeError: @Sendable (String) -> Void
}
