// SPDX-License-Identifier: Apache-2.0
/// A GVariant value, as GLib's text format writes it (`g_variant_print`): what dconf stores and GSettings reads.
///
/// Read one with ``init(parsing:)``. A variant keeps the text its content was written as, so that a value mapped to
/// the tagged form (``plistValue(printed:)``) is exactly the text GLib printed. Equality is that of the cases'
/// payloads: a NaN double is not equal to itself.
package indirect enum GVariant: Sendable, Equatable {
    /// `b`: `true`, `false`.
    case boolean(Bool)
    /// `y`: `byte 0x10`.
    case byte(UInt8)
    /// `n`: `int16 -7`.
    case int16(Int16)
    /// `q`: `uint16 7`.
    case uint16(UInt16)
    /// `i`: `5`.
    case int32(Int32)
    /// `u`: `uint32 5`.
    case uint32(UInt32)
    /// `x`: `int64 -3`.
    case int64(Int64)
    /// `t`: `uint64 18446744073709551615`.
    case uint64(UInt64)
    /// `h`: `handle 3`.
    case handle(Int32)
    /// `d`: `2.5`, `inf`, `nan`.
    case double(Double)
    /// `s`: `'text'`, valid UTF-8 without NUL characters.
    case string(String)
    /// `o`: `objectpath '/org/example'`.
    case objectPath(String)
    /// `g`: `signature 'a{sv}'`.
    case signature(String)
    /// `v`: `<1>`; the content and the text it was written as (for `g_variant_print`'s output, the content printed
    /// with type annotations: `int64 3` in `<int64 3>`).
    case variant(GVariant, text: String)
    /// `m…`: the element type, and the element or `nil` for nothing (`@ms nothing`, `@ms 'x'`).
    case maybe(GVariantType, GVariant?)
    /// `a…`: the element type and the elements (`[1, 2]`, `@as []`, `b'bytes'`, `{'k': <1>}`).
    case array(GVariantType, [GVariant])
    /// `(…)`: the elements (`(1, 'x')`, `()`).
    case tuple([GVariant])
    /// `{…}`: a dictionary entry's key and value, inside a dictionary or alone (`{1, 'one'}`).
    case dictionaryEntry(GVariant, GVariant)

    /// The value's type.
    package var type: GVariantType {
        switch self {
        case .boolean: .boolean
        case .byte: .byte
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .handle: .handle
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .variant: .variant
        case .maybe(let element, _): .maybe(element)
        case .array(let element, _): .array(element)
        case .tuple(let elements): .tuple(elements.map(\.type))
        case .dictionaryEntry(let key, let value): .dictionaryEntry(key: key.type, value: value.type)
        }
    }

    /// Parses a value written in GLib's text format, typed as `g_variant_parse` types it with no expected type:
    /// `[1, 2]` is `ai`, `(1, 'x')` is `(is)`, `{'k': <1>}` is `a{sv}`, an integer without a type keyword `i`, a
    /// number with a point or an exponent `d`.
    /// - Parameter text: One value, with optional white space around it.
    /// - Throws: ``GVariantError`` naming the problem and its byte offset in `text`: a syntax error, an unknown
    ///   keyword, a type that cannot be inferred or does not fit, a number out of range, or nesting deeper than
    ///   ``GVariantType/maxDepth``.
    package init(parsing text: String) throws(GVariantError) {
        var parser = GVariantParser(Array(text.utf8))
        self = try parser.parseWhole()
    }
}
