// SPDX-License-Identifier: Apache-2.0
/// A shell that `defaults completion` writes a script for.
package enum Shell: String, Sendable, Hashable, CaseIterable {
    case bash
    case zsh
    case fish
}
