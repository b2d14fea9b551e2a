// SPDX-License-Identifier: Apache-2.0
extension XMLPlistReader {
    /// A stack that holds the children of every open container, moved in and moved out.
    ///
    /// One shared buffer instead of an array per open container means a container's elements are
    /// allocated once, at their final size, when it closes; and moving them (rather than copying
    /// out of a Swift array and then removing) spares a retain and a release per value.
    final class ValueStack<Element> {
        // Only the owning value builder touches the stack, on one thread.
        @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>
        @exclusivity(unchecked) private var capacity: Int
        @exclusivity(unchecked) private(set) var count = 0

        init(capacity: Int) {
            self.capacity = max(capacity, 1)
            base = .allocate(capacity: self.capacity)
        }

        deinit {
            base.deinitialize(count: count)
            base.deallocate()
        }

        func append(_ element: consuming Element) {
            if count == capacity { grow() }
            (base + count).initialize(to: element)
            count += 1
        }

        /// The element at `index`, which must be below ``count``.
        func peek(_ index: Int) -> Element {
            precondition(index >= 0 && index < count, "value stack index out of range")
            return base[index]
        }

        /// Removes the top element; the stack must not be empty.
        func removeLast() -> Element {
            precondition(count > 0, "value stack is empty")
            count -= 1
            return (base + count).move()
        }

        /// Moves the elements from `start` to the top into an array, in order, and removes them.
        func removeArray(from start: Int) -> [Element] {
            removeMoving(from: start) { first, count in
                // `Array(_:)` of a sequence that knows its count allocates once, with the element type's
                // metadata resolved at compile time; `Array(unsafeUninitializedCapacity:)` looks it up
                // in the runtime's cache on every call, which cost more than the elements themselves.
                Array(MovedElements(first: first, count: count))
            }
        }

        /// Removes the elements from `start` to the top and lends them, still initialized, to `body`, which
        /// must move every one of them out (or deinitialize it) before it returns.
        ///
        /// Moving rather than copying hands each element on without a retain and a release.
        func removeMoving<Result>(
            from start: Int, _ body: (UnsafeMutablePointer<Element>, _ count: Int) -> Result
        ) -> Result {
            precondition(start >= 0 && start <= count, "value stack index out of range")
            let moved = count - start
            // Shrink first: the elements belong to `body` from here on.
            count = start
            return body(base + start, moved)
        }

        /// Elements moved out of the stack one at a time. Single pass only: iterating consumes them.
        private struct MovedElements: Sequence, IteratorProtocol {
            private var cursor: UnsafeMutablePointer<Element>
            private var remaining: Int

            init(first: UnsafeMutablePointer<Element>, count: Int) {
                cursor = first
                remaining = count
            }

            var underestimatedCount: Int { remaining }

            mutating func next() -> Element? {
                guard remaining > 0 else { return nil }
                let element = cursor.move()
                cursor += 1
                remaining -= 1
                return element
            }
        }

        private func grow() {
            let newCapacity = capacity * 2
            let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
    }
}
