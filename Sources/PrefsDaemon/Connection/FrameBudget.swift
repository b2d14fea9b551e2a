// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The bytes of frames that have begun to arrive but are not complete, counted across every connection of a
/// daemon against one capacity (`maxBufferedFrameBytes`), so that many half-sent frames cannot exhaust memory.
final class FrameBudget: Sendable {
    private let used = Atomic<Int>(0)
    private let capacity: Atomic<Int>

    /// Creates a budget of `capacity` bytes.
    init(capacity: Int) {
        self.capacity = Atomic(capacity)
    }

    /// The bytes charged now.
    var usedBytes: Int { used.load(ordering: .relaxed) }

    /// The capacity, in bytes.
    var capacityBytes: Int { capacity.load(ordering: .relaxed) }

    /// Changes the capacity; bytes already charged stay charged.
    func setCapacity(_ bytes: Int) {
        capacity.store(bytes, ordering: .relaxed)
    }

    /// Charges `bytes` more, unless that would go beyond the capacity.
    /// - Returns: Whether the bytes were charged.
    func charge(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + bytes <= capacity.load(ordering: .relaxed) else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back bytes charged earlier.
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        used.subtract(bytes, ordering: .relaxed)
    }
}
