// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// The one mapping of GVariant values to property-list values, the one the GSettings backend
/// (`clients/gsettings/gvariant-mapping.c`, docs/GSETTINGS.md "Mapping") stores them by, so that a value adopted from
/// dconf reads back in a GNOME application as the value it had.
///
/// A type a property list holds is stored as itself: `b` a boolean, the integers an integer (`t` above
/// `Int64.max` the unsigned range), `d` a real, `s` a string, `as` an array of strings, `ay` data, `a{ss}` and
/// `a{sv}` dictionaries. Every other type is the tagged form, a dictionary with the one key `$gvariant` holding the
/// value's text with type annotations (`g_variant_print(value, TRUE)`), which `g_variant_parse` reads back. A value
/// inside a variant (an `a{sv}` entry) has no schema type to be read back by, so it is stored as itself only where
/// reading the property-list type back gives its GVariant type again: `b`, `s`, `d`, `i`, `as`, `ay`, `a{sv}`, an
/// `x` outside the `int32` range and a `t` above `Int64.max`; an `x` inside the range, say, is `{"$gvariant":
/// "int64 3"}`. A dictionary that a dictionary cannot hold exactly (a key twice) or that would read back as a
/// tagged value (one key, `$gvariant`, a string) is tagged itself.
extension GVariant {
    /// The one key of the tagged form.
    package static let tagKey = "$gvariant"

    /// Parses GVariant text (what `dconf dump` prints for a key) and maps the value.
    /// - Parameter text: The value printed with type annotations.
    /// - Throws: ``GVariantError`` when the text is not a value.
    package static func plistValue(parsing text: String) throws(GVariantError) -> PlistValue {
        try GVariant(parsing: text).plistValue(printed: text)
    }

    /// The property-list value that stores this value as a GSettings key's value.
    /// - Parameter text: This value's text with type annotations (`g_variant_print(value, TRUE)`), for the tagged
    ///   form.
    package func plistValue(printed text: String) -> PlistValue {
        switch self {
        case .boolean(let truth): return .bool(truth)
        case .byte(let number): return .integer(PlistInteger(Int64(number)))
        case .int16(let number): return .integer(PlistInteger(Int64(number)))
        case .uint16(let number): return .integer(PlistInteger(Int64(number)))
        case .int32(let number): return .integer(PlistInteger(Int64(number)))
        case .uint32(let number): return .integer(PlistInteger(Int64(number)))
        case .int64(let number): return .integer(PlistInteger(number))
        case .uint64(let number): return .integer(PlistInteger(number))
        case .double(let real): return .real(real)
        case .string(let string): return .string(string)
        case .array(.string, let elements): return Self.strings(elements)
        case .array(.byte, let elements): return Self.bytes(elements)
        case .array(.dictionaryEntry(key: .string, value: .string), let entries),
            .array(.dictionaryEntry(key: .string, value: .variant), let entries):
            return Self.dictionary(entries) ?? Self.tagged(text)
        default: return Self.tagged(text)
        }
    }

    /// The property-list value that stores this value inside a variant (an `a{sv}` entry's value).
    /// - Parameter text: This value's text with type annotations, for the tagged form.
    package func plistValueInsideVariant(printed text: String) -> PlistValue {
        switch self {
        case .boolean(let truth): return .bool(truth)
        case .string(let string): return .string(string)
        case .double(let real): return .real(real)
        case .int32(let number): return .integer(PlistInteger(Int64(number)))
        // An integer that reads back as `i` (in the int32 range) or as `x` (below 2^63) when untagged is tagged.
        case .int64(let number) where Int32(exactly: number) == nil: return .integer(PlistInteger(number))
        case .uint64(let number) where number > UInt64(Int64.max): return .integer(PlistInteger(number))
        case .array(.string, let elements): return Self.strings(elements)
        case .array(.byte, let elements): return Self.bytes(elements)
        case .array(.dictionaryEntry(key: .string, value: .variant), let entries):
            return Self.dictionary(entries) ?? Self.tagged(text)
        default: return Self.tagged(text)
        }
    }

    /// `{"$gvariant": text}`.
    package static func tagged(_ text: String) -> PlistValue {
        var trimmed = Substring(text)
        while let first = trimmed.utf8.first, GVariantParser.isSpace(first) { trimmed = trimmed.dropFirst() }
        while let last = trimmed.utf8.last, GVariantParser.isSpace(last) { trimmed = trimmed.dropLast() }
        return .dictionary([tagKey: .string(String(trimmed))])
    }

    /// Whether a value has the tagged shape: a dictionary with exactly one key, `$gvariant`, holding a string.
    package static func isTagged(_ value: PlistValue) -> Bool {
        guard case .dictionary(let dictionary) = value, dictionary.count == 1,
            case .string? = dictionary[tagKey]
        else { return false }
        return true
    }

    private static func strings(_ elements: [GVariant]) -> PlistValue {
        .array(
            elements.map { element in
                if case .string(let string) = element { return .string(string) }
                return .null  // an `as` holds only strings
            })
    }

    private static func bytes(_ elements: [GVariant]) -> PlistValue {
        .data(
            elements.map { element in
                if case .byte(let byte) = element { return byte }
                return 0  // an `ay` holds only bytes
            })
    }

    /// An `a{ss}` or `a{sv}` as a dictionary, or `nil` when a dictionary cannot hold it exactly: a key twice (a
    /// GVariant dictionary is a list of entries), or the tagged shape, which would read back as a tagged value.
    private static func dictionary(_ entries: [GVariant]) -> PlistValue? {
        var dictionary = PlistDictionary(minimumCapacity: entries.count)
        for entry in entries {
            guard case .dictionaryEntry(.string(let key), let item) = entry, dictionary[key] == nil else { return nil }
            switch item {
            case .string(let string): dictionary[key] = .string(string)
            case .variant(let content, let text): dictionary[key] = content.plistValueInsideVariant(printed: text)
            default: return nil
            }
        }
        let value = PlistValue.dictionary(dictionary)
        return isTagged(value) ? nil : value
    }
}
