// SPDX-License-Identifier: Apache-2.0
/// A definite GVariant type, such as `i`, `as` or `a{sv}`: what a ``GVariant`` value has.
///
/// Only definite types exist here; the indefinite `r`, `*` and `?` of GLib's type strings are what the parser's
/// type inference works with, never a value's type.
package indirect enum GVariantType: Sendable, Hashable, CustomStringConvertible {
    /// `b`.
    case boolean
    /// `y`, a byte.
    case byte
    /// `n`.
    case int16
    /// `q`.
    case uint16
    /// `i`, the type of an integer written without a type.
    case int32
    /// `u`.
    case uint32
    /// `x`.
    case int64
    /// `t`.
    case uint64
    /// `h`, a file-descriptor index (an `int32`).
    case handle
    /// `d`.
    case double
    /// `s`.
    case string
    /// `o`, a D-Bus object path.
    case objectPath
    /// `g`, a D-Bus type signature.
    case signature
    /// `v`, a value of any type with its type.
    case variant
    /// `m` and the element's type: a value or nothing.
    case maybe(GVariantType)
    /// `a` and the element's type; a dictionary is an array of dictionary entries.
    case array(GVariantType)
    /// `(…)`, the element types in order; `()` is the unit type.
    case tuple([GVariantType])
    /// `{…}`, a key of a basic type and a value.
    case dictionaryEntry(key: GVariantType, value: GVariantType)

    /// The deepest type string accepted (GLib's `G_VARIANT_MAX_RECURSION_DEPTH`): a longer chain of containers is
    /// refused rather than read with recursion that has no bound.
    package static let maxDepth = 128

    /// The type string, such as `a{sv}`.
    package var typeString: String {
        var text = ""
        append(to: &text)
        return text
    }

    package var description: String { typeString }

    private func append(to text: inout String) {
        switch self {
        case .maybe(let element):
            text += "m"
            element.append(to: &text)
        case .array(let element):
            text += "a"
            element.append(to: &text)
        case .tuple(let elements):
            text += "("
            for element in elements { element.append(to: &text) }
            text += ")"
        case .dictionaryEntry(let key, let value):
            text += "{"
            key.append(to: &text)
            value.append(to: &text)
            text += "}"
        default:
            text.unicodeScalars.append(Unicode.Scalar(basicCode!))
        }
    }

    /// The one character of a type that has no element types (`b`, `s`, `v`, …), else `nil`.
    var basicCode: UInt8? {
        switch self {
        case .boolean: UInt8(ascii: "b")
        case .byte: UInt8(ascii: "y")
        case .int16: UInt8(ascii: "n")
        case .uint16: UInt8(ascii: "q")
        case .int32: UInt8(ascii: "i")
        case .uint32: UInt8(ascii: "u")
        case .int64: UInt8(ascii: "x")
        case .uint64: UInt8(ascii: "t")
        case .handle: UInt8(ascii: "h")
        case .double: UInt8(ascii: "d")
        case .string: UInt8(ascii: "s")
        case .objectPath: UInt8(ascii: "o")
        case .signature: UInt8(ascii: "g")
        case .variant: UInt8(ascii: "v")
        case .maybe, .array, .tuple, .dictionaryEntry: nil
        }
    }

    /// Whether a dictionary key may have this type: every type of one character but `v`.
    package var isBasic: Bool { basicCode != nil && self != .variant }

    /// A type from its type string.
    /// - Parameter typeString: One complete definite type, such as `a{sv}`, nested at most ``maxDepth`` deep.
    /// - Returns: `nil` for anything else (an indefinite type, trailing characters, a dictionary entry whose key is
    ///   not basic).
    package init?(_ typeString: String) {
        let bytes = Array(typeString.utf8)
        var index = 0
        var tooDeep = false
        guard let type = Self.scan(bytes[...], at: &index, depthLimit: Self.maxDepth, tooDeep: &tooDeep),
            index == bytes.count
        else { return nil }
        self = type
    }

    /// Reads one complete definite type at `index` in `bytes`, moving `index` past it; `nil` when there is none.
    /// - Parameters:
    ///   - depthLimit: How deep the type may nest; a deeper one is `nil`, with `tooDeep` set.
    ///   - tooDeep: Set when the type was refused for its depth.
    static func scan(
        _ bytes: ArraySlice<UInt8>, at index: inout Int, depthLimit: Int, tooDeep: inout Bool
    ) -> GVariantType? {
        guard index < bytes.endIndex else { return nil }
        guard depthLimit > 0 else {
            tooDeep = true
            return nil
        }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "a"):
            return scan(bytes, at: &index, depthLimit: depthLimit - 1, tooDeep: &tooDeep).map { .array($0) }
        case UInt8(ascii: "m"):
            return scan(bytes, at: &index, depthLimit: depthLimit - 1, tooDeep: &tooDeep).map { .maybe($0) }
        case UInt8(ascii: "("):
            var elements: [GVariantType] = []
            while index < bytes.endIndex, bytes[index] != UInt8(ascii: ")") {
                guard let element = scan(bytes, at: &index, depthLimit: depthLimit - 1, tooDeep: &tooDeep) else {
                    return nil
                }
                elements.append(element)
            }
            guard index < bytes.endIndex else { return nil }
            index += 1
            return .tuple(elements)
        case UInt8(ascii: "{"):
            guard let key = scan(bytes, at: &index, depthLimit: depthLimit - 1, tooDeep: &tooDeep), key.isBasic,
                let value = scan(bytes, at: &index, depthLimit: depthLimit - 1, tooDeep: &tooDeep),
                index < bytes.endIndex, bytes[index] == UInt8(ascii: "}")
            else { return nil }
            index += 1
            return .dictionaryEntry(key: key, value: value)
        default:
            return basic(code)
        }
    }

    /// The nesting depth as GLib counts it for a type declaration (`g_variant_type_string_get_depth_`): 1 for a
    /// basic type, 1 more than the element for an array or maybe, 1 more than the deepest element (or the value)
    /// for a tuple or dictionary entry.
    var depth: Int {
        switch self {
        case .maybe(let element), .array(let element): element.depth + 1
        case .tuple(let elements): elements.map { $0.depth + 1 }.max() ?? 0
        case .dictionaryEntry(_, let value): value.depth + 1
        default: 1
        }
    }

    /// The type of one character (`b`, `i`, `s`, `v`, …), or `nil`.
    static func basic(_ code: UInt8) -> GVariantType? {
        switch code {
        case UInt8(ascii: "b"): .boolean
        case UInt8(ascii: "y"): .byte
        case UInt8(ascii: "n"): .int16
        case UInt8(ascii: "q"): .uint16
        case UInt8(ascii: "i"): .int32
        case UInt8(ascii: "u"): .uint32
        case UInt8(ascii: "x"): .int64
        case UInt8(ascii: "t"): .uint64
        case UInt8(ascii: "h"): .handle
        case UInt8(ascii: "d"): .double
        case UInt8(ascii: "s"): .string
        case UInt8(ascii: "o"): .objectPath
        case UInt8(ascii: "g"): .signature
        case UInt8(ascii: "v"): .variant
        default: nil
        }
    }
}
