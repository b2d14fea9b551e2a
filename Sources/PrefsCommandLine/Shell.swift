// SPDX-License-Identifier: Apache-2.0
/// A shell that the programs print a completion script for (`defaults completion`, `plutil -completion`,
/// `prefsd --completion`).
package enum Shell: String, Sendable, Hashable, CaseIterable {
    case bash
    case zsh
    case fish

    /// The names, as a usage message lists them: `bash, zsh or fish`.
    package static let nameList = "bash, zsh or fish"
}
