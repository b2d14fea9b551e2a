// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// The effective values of one key as they change, from ``Preferences/changes(for:bufferLimit:)``: an
/// `AsyncSequence` with one element per change, whether this process, another process or a hand edit made it.
///
/// The sequence starts after ``initialValue`` (taken atomically with the subscription, so no change falls between
/// them). It ends when the consuming task is cancelled or ``cancel()`` is called. A consumer that falls far behind
/// gets queued changes merged, so memory stays bounded. Meant for one consumer.
public struct PreferenceChanges<Value: Sendable>: AsyncSequence, Sendable {
    /// Each new effective value.
    public typealias Element = Value
    /// The sequence never fails.
    public typealias Failure = Never

    let stream: ChangeStream
    let key: String
    let transform: @Sendable (PlistValue?) -> Value

    /// The effective value when the sequence began; the first element is the first change after it.
    public var initialValue: Value {
        transform(stream.snapshot.values[key])
    }

    /// Ends the sequence: a waiting `next()` returns `nil`, and so does every later one.
    public func cancel() {
        stream.cancel()
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), transform: transform)
    }

    /// Returns each new effective value, waiting for it.
    public struct Iterator: AsyncIteratorProtocol {
        var base: ChangeStream.Iterator
        let transform: @Sendable (PlistValue?) -> Value

        /// The next effective value, or `nil` when the sequence has ended.
        public mutating func next() async -> Value? {
            guard let event = await base.next() else { return nil }
            return transform(event.newValue)
        }
    }
}
