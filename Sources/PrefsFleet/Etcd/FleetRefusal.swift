// SPDX-License-Identifier: Apache-2.0
/// A managed value from etcd that the cache refused, and why; the last good version of its domain stays in force.
package struct FleetRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The etcd key.
    package var key: String
    /// The revision of the refused value.
    package var revision: Int64
    /// What is wrong with it.
    package var reason: String

    /// `refused etcd key K at revision R: reason; the last good version stays in force`.
    package var description: String {
        "refused etcd key \(key) at revision \(revision): \(reason); the last good version stays in force"
    }
}
