// SPDX-License-Identifier: Apache-2.0
/// An observation with the values it starts from: no change falls between the snapshot and the first event.
public struct Subscription: Sendable {
    /// Keeps the observation alive; release or cancel it to stop.
    public let token: ObservationToken
    /// The observed values when the observation began (one key's, a domain's, or a view's), and their sequence.
    public let snapshot: StoreSnapshot
}
