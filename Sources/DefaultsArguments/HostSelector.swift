// SPDX-License-Identifier: Apache-2.0
/// Which host's by-host files a command uses: `-currentHost`, `-host <name>`, or none.
package enum HostSelector: Sendable, Hashable {
    /// No host option: the user's plain domain files.
    case any
    /// `-currentHost`: this machine's by-host files.
    case current
    /// `-host <name>`: this machine's host name or a 32-digit machine id.
    case named(String)
}
