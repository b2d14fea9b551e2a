// SPDX-License-Identifier: Apache-2.0
/// A property-list integer: any value in `Int64.min ... UInt64.max`, kept exact.
///
/// Apple's formats store integers as signed 64-bit values, and unsigned values of 2^63 and above
/// as 128-bit (binary) or plain decimal text (XML). `PlistInteger` keeps both ranges without loss:
/// a value has exactly one representation, so equality and hashing follow the number.
public struct PlistInteger: Sendable, Hashable, Comparable {
    /// The value's bits; read as unsigned when `isLargeUnsigned`, else as a signed `Int64`.
    private let bits: UInt64
    /// True only for values above `Int64.max`.
    private let isLargeUnsigned: Bool

    /// Creates an integer from a signed 64-bit value.
    public init(_ value: Int64) {
        bits = UInt64(bitPattern: value)
        isLargeUnsigned = false
    }

    /// Creates an integer from an unsigned 64-bit value.
    public init(_ value: UInt64) {
        bits = value
        isLargeUnsigned = value > UInt64(Int64.max)
    }

    /// Creates an integer from any binary integer, or returns `nil` when it is out of range.
    public init?(exactly value: some BinaryInteger) {
        if let signed = Int64(exactly: value) {
            self.init(signed)
        } else if let unsigned = UInt64(exactly: value) {
            self.init(unsigned)
        } else {
            return nil
        }
    }

    /// The value as `Int64`, or `nil` when it is above `Int64.max`.
    public var int64Value: Int64? { isLargeUnsigned ? nil : Int64(bitPattern: bits) }

    /// The value as `UInt64`, or `nil` when it is negative.
    public var uint64Value: UInt64? {
        if isLargeUnsigned { return bits }
        let signed = Int64(bitPattern: bits)
        return signed < 0 ? nil : UInt64(signed)
    }

    /// True when the value is below zero.
    public var isNegative: Bool { !isLargeUnsigned && Int64(bitPattern: bits) < 0 }

    /// The two's-complement 64-bit pattern, as the binary format stores it.
    public var bitPattern: UInt64 { bits }

    /// True when the value needs the unsigned range (2^63 or more).
    public var needsUnsignedRange: Bool { isLargeUnsigned }

    /// The value as a `Double` (rounded when beyond 2^53).
    public var doubleValue: Double { isLargeUnsigned ? Double(bits) : Double(Int64(bitPattern: bits)) }

    public static func < (lhs: PlistInteger, rhs: PlistInteger) -> Bool {
        switch (lhs.isLargeUnsigned, rhs.isLargeUnsigned) {
        case (true, true): lhs.bits < rhs.bits
        case (true, false): false
        case (false, true): true
        case (false, false): Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits)
        }
    }
}

extension PlistInteger: CustomStringConvertible {
    /// The decimal text of the value.
    public var description: String {
        isLargeUnsigned ? String(bits) : String(Int64(bitPattern: bits))
    }
}

extension PlistInteger: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
}
