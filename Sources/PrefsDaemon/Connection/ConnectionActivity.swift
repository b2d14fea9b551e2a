// SPDX-License-Identifier: Apache-2.0
import NIOCore
import Synchronization

/// What the server and a connection's handlers share about the connection: when it last made progress, whether
/// it holds subscriptions, whether its reads are held. The server reads it to choose a connection to close when
/// the table is full; the frame decoder reads it so that a frame the server stopped reading is not timed out.
final class ConnectionActivity: Sendable {
    private let lastProgress = Atomic<Int64>(NIODeadline.now().uptimeNanoseconds.clampedToInt64)
    private let subscribed = Atomic<Bool>(false)
    private let held = Atomic<Bool>(false)
    private let chosen = Atomic<Bool>(false)

    /// Records progress now: bytes received, or a reply or event written.
    func recordProgress() {
        lastProgress.store(NIODeadline.now().uptimeNanoseconds.clampedToInt64, ordering: .relaxed)
    }

    /// When the connection last made progress.
    var lastProgressTime: NIODeadline {
        .uptimeNanoseconds(UInt64(lastProgress.load(ordering: .relaxed)))
    }

    /// Whether the connection holds subscriptions (it is then never idle: it waits for events).
    var holdsSubscriptions: Bool {
        get { subscribed.load(ordering: .relaxed) }
        set { subscribed.store(newValue, ordering: .relaxed) }
    }

    /// Whether the server holds the connection's reads (its replies are not taken, or requests wait).
    var readsHeld: Bool {
        get { held.load(ordering: .relaxed) }
        set { held.store(newValue, ordering: .relaxed) }
    }

    /// Marks the connection as the one to close to make room; `false` when another caller chose it already.
    func choose() -> Bool {
        chosen.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }
}

extension UInt64 {
    fileprivate var clampedToInt64: Int64 { Int64(clamping: self) }
}
