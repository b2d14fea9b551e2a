// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Synchronization

/// The queue behind a ``ChangeStream``: bounded by merging events per key once the consumer falls behind.
final class ChangeBuffer: Sendable {
    private struct State {
        var queue: [ChangeEvent] = []
        var head = 0
        var waiter: CheckedContinuation<ChangeEvent?, Never>?
        var isFinished = false
        var subscription: Subscription?
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    deinit {
        state.withLock { $0.subscription }?.token.cancel()
    }

    /// Keeps the subscription (and so the observation) alive as long as the stream.
    func attach(_ subscription: Subscription) {
        state.withLock { $0.subscription = subscription }
    }

    var snapshot: StoreSnapshot {
        state.withLock { $0.subscription?.snapshot } ?? StoreSnapshot(values: [:], sequence: 0)
    }

    /// Queues events, or hands the first to a waiting consumer.
    func append(_ events: [ChangeEvent]) {
        let resumption = state.withLock { state -> (CheckedContinuation<ChangeEvent?, Never>, ChangeEvent)? in
            guard !state.isFinished else { return nil }
            for event in events { enqueue(event, into: &state) }
            guard let waiter = state.waiter, state.head < state.queue.count else { return nil }
            state.waiter = nil
            return (waiter, dequeue(from: &state))
        }
        if let (waiter, event) = resumption { waiter.resume(returning: event) }
    }

    /// The next event, waiting for one; `nil` once the stream is finished.
    func next() async -> ChangeEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ChangeEvent?, Never>) in
                let immediate = state.withLock { state -> ChangeEvent?? in
                    if state.head < state.queue.count { return .some(dequeue(from: &state)) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the stream and its observation.
    func finish() {
        let (waiter, subscription) = state.withLock { state in
            state.isFinished = true
            state.queue = []
            state.head = 0
            defer {
                state.waiter = nil
                state.subscription = nil
            }
            return (state.waiter, state.subscription)
        }
        subscription?.token.cancel()
        waiter?.resume(returning: nil)
    }

    private func enqueue(_ event: ChangeEvent, into state: inout State) {
        if state.queue.count - state.head >= limit,
            let index = state.queue[state.head...].lastIndex(where: { $0.domain == event.domain && $0.key == event.key }
            )
        {
            var merged = state.queue[index]
            merged.newValue = event.newValue
            merged.sequence = event.sequence
            merged.origin = event.origin
            if merged.oldValue == merged.newValue {
                state.queue.remove(at: index)
            } else {
                state.queue[index] = merged
            }
            return
        }
        state.queue.append(event)
    }

    private func dequeue(from state: inout State) -> ChangeEvent {
        let event = state.queue[state.head]
        state.head += 1
        if state.head == state.queue.count {
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head >= 1024, state.head * 2 >= state.queue.count {
            state.queue.removeFirst(state.head)
            state.head = 0
        }
        return event
    }
}
