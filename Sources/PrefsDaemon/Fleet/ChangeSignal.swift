// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A generation counter that tasks can wait on: ``signal()`` moves it on and wakes every waiter. The fleet's status
/// board signals each change, and the host registration waits for one (or for its next lease renewal), so an idle
/// daemon does not wake up to poll.
final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    /// The number of changes signalled so far.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Records a change and wakes every waiter.
    func signal() {
        let woken = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Waits until the generation is no longer `generation`, or `timeout` has passed, or the task is cancelled.
    /// - Returns: The generation then.
    @discardableResult
    func wait(after generation: UInt64, timeout: Duration) async -> UInt64 {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.changed(after: generation) }
            await group.next()
            group.cancelAll()
        }
        return self.generation
    }

    /// Waits until the generation is no longer `generation`, or the task is cancelled.
    func wait(after generation: UInt64) async {
        await changed(after: generation)
    }

    private func changed(after generation: UInt64) async {
        let waiter = state.withLock { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[waiter] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume()
        }
    }
}
