extension XMLPlistReader {
    /// A stack that holds the children of every open container, moved in and moved out.
    ///
    /// One shared buffer instead of an array per open container means a container's elements are
    /// allocated once, at their final size, when it closes; and moving them (rather than copying
    /// out of a Swift array and then removing) spares a retain and a release per value.
    final class ValueStack<Element> {
        // Only the owning tree builder touches the stack, on one thread.
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
            precondition(start >= 0 && start <= count, "value stack index out of range")
            let moved = count - start
            guard moved > 0 else { return [] }
            let elements = [Element](unsafeUninitializedCapacity: moved) { buffer, initialized in
                buffer.baseAddress?.moveInitialize(from: base + start, count: moved)
                initialized = moved
            }
            count = start
            return elements
        }

        /// Moves each element from `start` to the top, in order, into `body`, and removes them.
        func removeEach(from start: Int, _ body: (consuming Element) -> Void) {
            precondition(start >= 0 && start <= count, "value stack index out of range")
            let end = count
            // Shrink first: the elements are moved out whatever `body` does with them.
            count = start
            for index in start..<end { body((base + index).move()) }
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
