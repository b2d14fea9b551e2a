// SPDX-License-Identifier: Apache-2.0
import PrefsStore
import PrefsWire

/// The domain a connection's previous request addressed, with its store identifier: a run of requests to one domain
/// checks its name once, not once per request (the check and the identifier cost about as much as the store's lookup).
struct RecentDomain {
    private var address: WireDomain?
    private var id: DomainID?

    /// The store's identifier of `address`.
    /// - Throws: ``WireError`` `invalidName` for a name the store refuses (not remembered).
    mutating func domainID(_ address: WireDomain) throws(WireError) -> DomainID {
        // Equal names are usually the very same string (the frame decoder reuses it), which compares at once.
        if let id, self.address == address { return id }
        let made = try address.domainID()
        self.address = address
        id = made
        return made
    }
}
