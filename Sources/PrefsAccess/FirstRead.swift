// SPDX-License-Identifier: Apache-2.0
package import PrefsStore

/// What a command reads first, when it knows: a connection made to prefsd then sends that read with its `hello`, so
/// that connecting and reading take one round trip.
package struct FirstRead: Sendable, Hashable {
    /// The domain read first.
    package var domain: DomainID
    /// The one key read, when the command reads only that key (`defaults read D k`); `nil` reads the whole domain.
    package var key: String?

    /// Creates a first read.
    /// - Parameters:
    ///   - domain: The domain read first.
    ///   - key: The one key read, or `nil` for the whole domain.
    package init(_ domain: DomainID, key: String? = nil) {
        self.domain = domain
        self.key = key
    }
}
