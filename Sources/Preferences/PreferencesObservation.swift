// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// Keeps a callback observation alive (``Preferences/observe(_:handler:)``): the handler is called until
/// ``cancel()`` is called or the observation is released.
public final class PreferencesObservation: Sendable {
    private let token: ObservationToken

    init(token: ObservationToken) {
        self.token = token
    }

    /// Stops the observation: no call of the handler starts after this returns. Cancelling twice is harmless.
    public func cancel() {
        token.cancel()
    }

    /// Whether the observation has been cancelled.
    public var isCancelled: Bool { token.isCancelled }
}
