// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension WireRequest {
    /// Reads the most frequent requests straight from a frame's payload (``WireFlatRequest``), in their general form.
    ///
    /// Gives `nil` for anything the fast path does not read; the general way (``WireFrame/decodePayload(_:limits:)``
    /// and ``init(dictionary:)``) reads those or names their problem, and where this gives a request, the general way
    /// gives the same one (tested, and checked by the wire fuzz harness).
    /// - Parameters:
    ///   - payload: A frame's payload, without its length prefix.
    ///   - limits: The connection's limits; those the general way applies apply here too.
    package init?(flatPayload payload: UnsafeRawBufferPointer, limits: WireLimits) {
        var recentDomain = RecentDomainName()
        guard let flat = WireFlatRequest(payload: payload, limits: limits, recentDomain: &recentDomain) else {
            return nil
        }
        self = flat.request
    }
}
