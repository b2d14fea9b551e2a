// SPDX-License-Identifier: Apache-2.0
extension XMLPlistReader {
    /// The text of the scalar element being read (`<key>`, `<string>`, `<integer>`, …), reused from one
    /// element to the next.
    ///
    /// libxml2 hands text over in pieces (a long run in several calls, each reference on its own, the
    /// text on either side of a comment) from memory it reuses, so the bytes are copied here until the
    /// closing tag says the text is complete. A raw buffer rather than an `[UInt8]`: emptying and
    /// appending to an array costs a uniqueness check and a generic call each, per element.
    final class TextBuffer {
        // Only the owning value builder touches the buffer, on one thread.
        @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt8>
        @exclusivity(unchecked) private var capacity: Int
        @exclusivity(unchecked) private(set) var count = 0

        init(capacity: Int) {
            self.capacity = max(capacity, 16)
            base = .allocate(capacity: self.capacity)
        }

        deinit {
            base.deallocate()
        }

        /// The text so far; valid until the next ``append(_:)`` or ``removeAll()``.
        var bytes: UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: base, count: count)
        }

        func append(_ text: UnsafeBufferPointer<UInt8>) {
            guard let source = text.baseAddress, !text.isEmpty else { return }
            if count + text.count > capacity { grow(toAtLeast: count + text.count) }
            (base + count).initialize(from: source, count: text.count)
            count += text.count
        }

        func removeAll() {
            count = 0
        }

        private func grow(toAtLeast minimum: Int) {
            var newCapacity = capacity * 2
            while newCapacity < minimum { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.initialize(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
    }
}
