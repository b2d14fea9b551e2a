// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsWire
import Synchronization

/// Event frames shared by the connections: one change sent to many subscribers is encoded once, into one buffer
/// that every connection writes as it is (a `ByteBuffer` is not copied for that).
///
/// A subscription's identifier is its connection's own count, so the first subscription of every connection is
/// number 1, and a change that a thousand clients watch becomes the same event on each of them. Events are known by a
/// ``Key`` that names them exactly: the first and last change by domain and sequence number, how many, the
/// subscription's identifier and filter. A domain's sequence numbers never repeat within a daemon, so those changes,
/// and the old and new values the filter gives them (effective values for an effective filter), are always the same.
/// Only events made straight from the store's changes are cached: coalescing in a connection's queue can give an
/// event the same key and other contents (an older `old`).
///
/// The recent keys are searched in a short list rather than hashed: hashing the filter's strings would cost about
/// what encoding the event does, while comparing keys stops at the first differing sequence number.
final class EventFrameCache: Sendable {
    /// An event's identity: see the type's discussion. The cheap fields come first, where `==` starts.
    struct Key: Equatable, Sendable {
        let lastSequence: UInt64
        let firstSequence: UInt64
        let count: Int
        let subscription: UInt64
        let firstDomain: WireDomain
        let lastDomain: WireDomain
        let filter: WireSubscriptionFilter

        /// The key of an event made straight from the store's changes (never one from the queue).
        init(subscription: UInt64, filter: WireSubscriptionFilter, changes: [WireChange]) {
            self.subscription = subscription
            self.filter = filter
            firstDomain = changes.first?.domain ?? WireDomain("")
            firstSequence = changes.first?.sequence ?? 0
            lastDomain = changes.last?.domain ?? WireDomain("")
            lastSequence = changes.last?.sequence ?? 0
            count = changes.count
        }
    }

    private struct Entries {
        var keys: [Key] = []
        var frames: [ByteBuffer] = []
        /// Where the next entry goes once the list is full (the oldest one).
        var next = 0
    }

    /// How many recent events are kept.
    static let capacity = 16
    private let entries = Mutex(Entries())

    /// The frame (length prefix and payload) of the event `key` names, with the payload `encode` makes unless it
    /// was encoded recently.
    /// - Throws: What `encode` throws; a failure is not cached.
    func frame(for key: Key, encode: () throws(PrefsWireError) -> [UInt8]) throws(PrefsWireError) -> ByteBuffer {
        let cached = entries.withLock { entries -> ByteBuffer? in
            // Newest first: the event being fanned out is usually the last one added.
            var index = entries.next
            for _ in 0..<entries.keys.count {
                index = index == 0 ? entries.keys.count - 1 : index - 1
                if entries.keys[index] == key { return entries.frames[index] }
            }
            return nil
        }
        if let cached { return cached }
        // Encoded outside the lock: two threads meeting the same new event may both encode it, harmlessly.
        let payload = try encode()
        var frame = ByteBufferAllocator().buffer(capacity: payload.count + 4)
        frame.writeInteger(UInt32(payload.count), endianness: .big)
        frame.writeBytes(payload)
        entries.withLock { [frame] entries in
            if entries.keys.count < Self.capacity {
                entries.keys.append(key)
                entries.frames.append(frame)
                entries.next = entries.keys.count % Self.capacity
            } else {
                entries.keys[entries.next] = key
                entries.frames[entries.next] = frame
                entries.next = (entries.next + 1) % Self.capacity
            }
        }
        return frame
    }
}
