// SPDX-License-Identifier: Apache-2.0
/// A standard-library type that `PlistEncoder` and `PlistDecoder` store as one plist scalar:
/// `Bool`, `String`, `Double`, `Float` and the integers of every width.
///
/// One protocol lets a generic `encode(_:)` or `decode(_:)` recognise all of them with a single
/// dynamic cast instead of a chain of type checks.
protocol PlistCodableScalar {
    /// The plist value, or `nil` when the value has none (a 128-bit integer out of range).
    var plistScalarValue: PlistValue? { get }

    /// Reads the value, or explains why `value` cannot be read as this type.
    init(plistScalar value: PlistValue) throws(PlistScalarMismatch)
}

/// Why a plist value cannot be read as a scalar type; turned into a ``PlistError`` with the path.
struct PlistScalarMismatch: Error {
    let message: String

    static func wrongType(_ expected: String, for type: Any.Type, found value: PlistValue) -> PlistScalarMismatch {
        PlistScalarMismatch(message: "type mismatch: expected \(expected) for \(type), found \(value.typeName)")
    }
}

extension PlistCodableScalar {
    /// Reads `value` as this type, throwing a ``PlistError`` that names `path` on failure.
    static func decode(from value: PlistValue, at path: @autoclosure () -> PlistCodingPath) throws -> Self {
        do {
            return try Self(plistScalar: value)
        } catch {
            throw PlistError(.typeMismatch, error.message, at: path().position)
        }
    }

    /// The plist value, throwing a ``PlistError`` that names `path` when there is none.
    func encodedValue(at path: @autoclosure () -> PlistCodingPath) throws -> PlistValue {
        guard let value = plistScalarValue else {
            throw PlistError(
                .unrepresentable,
                "\(Self.self) value \(self) is outside the plist integer range \(Int64.min)...\(UInt64.max)",
                at: path().position)
        }
        return value
    }
}

extension Bool: PlistCodableScalar {
    var plistScalarValue: PlistValue? { .bool(self) }

    init(plistScalar value: PlistValue) throws(PlistScalarMismatch) {
        guard case .bool(let bool) = value else { throw .wrongType("boolean", for: Bool.self, found: value) }
        self = bool
    }
}

extension String: PlistCodableScalar {
    var plistScalarValue: PlistValue? { .string(self) }

    init(plistScalar value: PlistValue) throws(PlistScalarMismatch) {
        guard case .string(let string) = value else { throw .wrongType("string", for: String.self, found: value) }
        self = string
    }
}

extension Double: PlistCodableScalar {
    var plistScalarValue: PlistValue? { .real(self) }

    /// Accepts integers too: `<integer>3</integer>` is a fine value for a `Double` setting.
    init(plistScalar value: PlistValue) throws(PlistScalarMismatch) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer): self = integer.doubleValue
        default: throw .wrongType("float", for: Double.self, found: value)
        }
    }
}

extension Float: PlistCodableScalar {
    var plistScalarValue: PlistValue? { .real(Double(self)) }

    /// Accepts integers too. Precision may be lost, as in a `Float` assignment; a finite value
    /// beyond `Float`'s range is an error rather than an infinity.
    init(plistScalar value: PlistValue) throws(PlistScalarMismatch) {
        switch value {
        case .real(let real):
            guard !real.isFinite || real.magnitude <= Double(Float.greatestFiniteMagnitude) else {
                throw PlistScalarMismatch(message: "float \(real) is out of range for Float")
            }
            self = Float(real)
        case .integer(let integer):
            self = Float(integer.doubleValue)
        default:
            throw .wrongType("float", for: Float.self, found: value)
        }
    }
}

extension PlistCodableScalar where Self: FixedWidthInteger {
    var plistScalarValue: PlistValue? {
        PlistInteger(exactly: self).map(PlistValue.integer)
    }

    /// Accepts an integer in range, or a real with an exact integral value (as Apple's decoder does).
    init(plistScalar value: PlistValue) throws(PlistScalarMismatch) {
        switch value {
        case .integer(let integer):
            guard let converted = Self.exactly(integer) else {
                throw PlistScalarMismatch(message: "integer \(integer) is out of range for \(Self.self)")
            }
            self = converted
        case .real(let real):
            guard let converted = Self(exactly: real) else {
                throw PlistScalarMismatch(message: "float \(real) is not exactly representable as \(Self.self)")
            }
            self = converted
        default:
            throw .wrongType("integer", for: Self.self, found: value)
        }
    }

    private static func exactly(_ integer: PlistInteger) -> Self? {
        if let signed = integer.int64Value { return Self(exactly: signed) }
        return integer.uint64Value.flatMap(Self.init(exactly:))
    }
}

extension Int: PlistCodableScalar {}
extension Int8: PlistCodableScalar {}
extension Int16: PlistCodableScalar {}
extension Int32: PlistCodableScalar {}
extension Int64: PlistCodableScalar {}
extension Int128: PlistCodableScalar {}
extension UInt: PlistCodableScalar {}
extension UInt8: PlistCodableScalar {}
extension UInt16: PlistCodableScalar {}
extension UInt32: PlistCodableScalar {}
extension UInt64: PlistCodableScalar {}
extension UInt128: PlistCodableScalar {}
