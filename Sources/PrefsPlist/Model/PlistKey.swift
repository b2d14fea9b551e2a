// SPDX-License-Identifier: Apache-2.0
/// A dictionary key compared byte for byte, as Apple's property lists, CPython and GNUstep compare keys.
///
/// Swift's `String` compares by canonical equivalence: "é" (U+00E9) and "e" followed by U+0301 are equal
/// strings, so a `[String: …]` dictionary keeps only one of two keys that CoreFoundation keeps apart. A
/// `PlistKey` compares, hashes and orders by the string's UTF-8 bytes, so both survive every reader, writer
/// and layer above them. Its order is the Unicode scalar order (UTF-8 byte order), the order Python sorts
/// `str` in and the order the writers emit keys in.
public struct PlistKey: Sendable {
    /// The key's text, exactly as read or given.
    public let string: String

    /// Creates a key from `string`, keeping its exact scalars (no normalization).
    /// - Parameter string: The key's text.
    @inlinable
    public init(_ string: String) { self.string = string }
}

extension PlistKey: Hashable {
    @inlinable
    public static func == (lhs: PlistKey, rhs: PlistKey) -> Bool {
        lhs.string.utf8.count == rhs.string.utf8.count && hasEqualBytes(lhs.string, rhs.string)
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
    }

    /// Whether two strings of the same UTF-8 length have the same bytes.
    @usableFromInline
    static func hasEqualBytes(_ lhs: String, _ rhs: String) -> Bool {
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                RawBytes.equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
            }
        }
        if let compared, let compared { return compared }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}

extension PlistKey: Comparable {
    /// Orders keys by their UTF-8 bytes, which is the Unicode scalar order, a shorter prefix first.
    public static func < (lhs: PlistKey, rhs: PlistKey) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }
}

extension PlistKey: ExpressibleByStringLiteral {
    @inlinable
    public init(stringLiteral value: String) { self.string = value }
}

extension PlistKey: CustomStringConvertible {
    public var description: String { string }
}

extension PlistKey: CustomDebugStringConvertible {
    public var debugDescription: String { string.debugDescription }
}
