// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held. For a test that waits
/// on another process or thread: the one blocking wait of the test targets.
/// - Parameters:
///   - timeout: How long to wait before giving up (a failing test's cost only: a passing one returns at once).
///   - condition: What to wait for; checked once more after the deadline.
public func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(5_000)
    }
    return try condition()
}

/// Polls `condition` until it holds or `timeout` passes, suspending rather than blocking between polls, so that the
/// tasks the condition waits for can run on the few threads of the cooperative pool.
/// - Parameters:
///   - timeout: How long to wait before giving up.
///   - condition: What to wait for; checked once more after the deadline.
public func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
