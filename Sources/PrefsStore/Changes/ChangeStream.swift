// SPDX-License-Identifier: Apache-2.0
import PrefsDomain

/// The changes matching a filter as an `AsyncSequence`, from ``PreferencesStore/changes(_:bufferLimit:)``.
///
/// Meant for one consumer. It ends when the consuming task is cancelled or ``cancel()`` is called.
public struct ChangeStream: AsyncSequence, Sendable {
    public typealias Element = ChangeEvent
    public typealias Failure = Never

    let buffer: ChangeBuffer

    /// The observed values when the stream began, and their sequence number; the first event follows it.
    public var snapshot: StoreSnapshot { buffer.snapshot }

    /// Ends the stream: a waiting `next()` returns `nil`, and so does every later one.
    public func cancel() {
        buffer.finish()
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer)
    }

    /// Returns the next change, waiting for one.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: ChangeBuffer

        public mutating func next() async -> ChangeEvent? {
            await buffer.next()
        }
    }
}
