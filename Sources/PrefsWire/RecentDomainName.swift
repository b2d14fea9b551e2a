// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The domain name of a connection's previous request, reused while its requests name the same domain: a run of
/// requests to one domain makes the name's `String` once, not once per request.
package struct RecentDomainName: Sendable {
    private var name: String?

    /// Creates an empty one.
    package init() {}

    /// The name spelled by `bytes`: the previous one when the bytes are its own.
    mutating func name(_ bytes: UnsafeRawBufferPointer) -> String {
        if let name,
            name.utf8.withContiguousStorageIfAvailable({ RawBytes.equal(UnsafeRawBufferPointer($0), bytes) }) == true
        {
            return name
        }
        let made = String(decoding: bytes, as: UTF8.self)
        name = made
        return made
    }
}
