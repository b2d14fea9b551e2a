// SPDX-License-Identifier: Apache-2.0
import PrefsWire

extension WireLimits {
    /// The refusal of a search list longer than `maxSuites`, or `nil`.
    func refusal(of list: WireSearchList) -> WireError? {
        guard list.suites.count > maxSuites else { return nil }
        return .limitExceeded(.maxSuites, value: maxSuites, "search list of \(list.suites.count) suites")
    }
}
