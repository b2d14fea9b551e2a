// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension GVariantParser {
    // MARK: Type inference

    // A node's pattern is a type string that may hold GLib's wildcards: `*` any type, `N` any number type, `S` any
    // string type (s, o, g), and `M` before a type that may also be a maybe of it. The elements of an array (and the
    // keys of a dictionary) must have patterns with a common refinement, which is their type; what is still open
    // when a value is resolved gets GLib's defaults: not a maybe, `s` for a string, `i` for a number.

    /// The node's pattern (GLib's `ast_get_pattern`).
    func pattern(_ node: Node) throws(GVariantError) -> [UInt8] {
        switch node.kind {
        case .array(let children):
            if children.isEmpty { return Array("Ma*".utf8) }
            return Array("Ma".utf8) + (try commonPattern(children))
        case .tuple(let children):
            var result = Array("M(".utf8)
            for child in children { result += try pattern(child) }
            return result + [UInt8(ascii: ")")]
        case .variant:
            return Array("Mv".utf8)
        case .dictionary(let keys, let values):
            if keys.isEmpty { return Array("Ma{**}".utf8) }
            return try dictionaryPattern(node, keys: keys, firstValue: values[0], prefix: "Ma{")
        case .entry(let key, let value):
            return try dictionaryPattern(node, keys: [key], firstValue: value, prefix: "M{")
        case .string:
            return Array("MS".utf8)
        case .byteString:
            return Array("May".utf8)
        case .number(let token):
            return Self.isFloating(token) ? Array("Md".utf8) : Array("MN".utf8)
        case .boolean:
            return Array("Mb".utf8)
        case .maybe(let child):
            guard let child else { return Array("m*".utf8) }
            return [UInt8(ascii: "m")] + (try pattern(child))
        case .typeDeclaration(let type, _):
            return Array(type.typeString.utf8)
        }
    }

    /// A dictionary's pattern: the keys' common pattern must be a basic type; the value's is the first entry's, as
    /// in GLib (the other values are read as that type).
    func dictionaryPattern(
        _ node: Node, keys: [Node], firstValue: Node, prefix: String
    ) throws(GVariantError) -> [UInt8] {
        let keyPattern = try commonPattern(keys)
        let keyCode = keyPattern.first == UInt8(ascii: "M") ? keyPattern.dropFirst().first : keyPattern.first
        guard let keyCode, Array("bynqiuxthdsogNS".utf8).contains(keyCode) else {
            throw GVariantError(.typeMismatch, "dictionary keys must have basic types", at: node.range.lowerBound)
        }
        return Array(prefix.utf8) + [keyCode] + (try pattern(firstValue)) + [UInt8(ascii: "}")]
    }

    /// The pattern every one of `nodes` fits (GLib's `ast_array_get_pattern`).
    func commonPattern(_ nodes: [Node]) throws(GVariantError) -> [UInt8] {
        var common = try pattern(nodes[0])
        for node in nodes.dropFirst() {
            guard let merged = Self.coalesce(common, try pattern(node)) else {
                throw GVariantError(
                    .typeMismatch, "unable to find a common type for the elements", at: node.range.lowerBound)
            }
            common = merged
        }
        return common
    }

    /// The most general pattern that refines both, or `nil` (GLib's `pattern_coalesce`).
    static func coalesce(_ left: [UInt8], _ right: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(left.count + right.count)
        var leftIndex = 0
        var rightIndex = 0
        while leftIndex < left.count, rightIndex < right.count {
            if left[leftIndex] == right[rightIndex] {
                result.append(left[leftIndex])
                leftIndex += 1
                rightIndex += 1
                continue
            }
            let refined =
                refine(left, &leftIndex, by: right, &rightIndex, into: &result)
                || refine(right, &rightIndex, by: left, &leftIndex, into: &result)
            if !refined { break }
        }
        return leftIndex == left.count && rightIndex == right.count ? result : nil
    }

    /// One step of ``coalesce(_:_:)`` where `one`'s wildcard at `oneIndex` takes in `other`'s type at `otherIndex`.
    /// - Returns: Whether a rule applied.
    private static func refine(
        _ one: [UInt8], _ oneIndex: inout Int, by other: [UInt8], _ otherIndex: inout Int,
        into result: inout [UInt8]
    ) -> Bool {
        let wildcard = one[oneIndex]
        let code = other[otherIndex]
        switch wildcard {
        case UInt8(ascii: "*") where code != UInt8(ascii: ")"):
            copyType(other, &otherIndex, into: &result)
            oneIndex += 1
        case UInt8(ascii: "M") where code == UInt8(ascii: "m"):
            result.append(code)
            otherIndex += 1
        case UInt8(ascii: "M") where code != UInt8(ascii: "*"):
            oneIndex += 1
        case UInt8(ascii: "N") where Array("ynqiuxthd".utf8).contains(code),
            UInt8(ascii: "S") where Array("sog".utf8).contains(code):
            result.append(code)
            oneIndex += 1
            otherIndex += 1
        default:
            return false
        }
        return true
    }

    /// Copies one complete type of a pattern (GLib's `pattern_copy`).
    private static func copyType(_ pattern: [UInt8], _ index: inout Int, into result: inout [UInt8]) {
        while index < pattern.count, Array("amM".utf8).contains(pattern[index]) {
            result.append(pattern[index])
            index += 1
        }
        var brackets = 0
        repeat {
            guard index < pattern.count else { return }
            let code = pattern[index]
            if code == UInt8(ascii: "(") || code == UInt8(ascii: "{") {
                brackets += 1
            } else if code == UInt8(ascii: ")") || code == UInt8(ascii: "}") {
                brackets -= 1
            }
            result.append(code)
            index += 1
        } while brackets > 0
    }

    /// Whether a number token is a double by its look (GLib's `number_get_pattern`): a point, an exponent (unless it
    /// is hexadecimal), `inf` or `nan`.
    static func isFloating(_ token: [UInt8]) -> Bool {
        let text = String(decoding: token, as: UTF8.self)
        // containsText, not contains: String's contains(_:) of a string links _StringProcessing (docs/PACKAGING.md).
        return text.containsText(".") || (!text.hasPrefix("0x") && text.containsText("e")) || text.containsText("inf")
            || text.containsText("nan")
    }

    /// The node's value with its type inferred (GLib's `ast_resolve`).
    func resolve(_ node: Node) throws(GVariantError) -> GVariant {
        var typeString: [UInt8] = []
        for code in try pattern(node) {
            switch code {
            case UInt8(ascii: "*"):
                throw GVariantError(
                    .typeMismatch, "unable to infer type (an empty container needs a type: @as [])",
                    at: node.range.lowerBound)
            case UInt8(ascii: "M"): continue
            case UInt8(ascii: "S"): typeString.append(UInt8(ascii: "s"))
            case UInt8(ascii: "N"): typeString.append(UInt8(ascii: "i"))
            default: typeString.append(code)
            }
        }
        var index = 0
        var tooDeep = false
        guard
            let type = GVariantType.scan(
                typeString[...], at: &index, depthLimit: 2 * GVariantType.maxDepth, tooDeep: &tooDeep),
            index == typeString.count
        else {
            throw GVariantError(.typeMismatch, "unable to infer type", at: node.range.lowerBound)
        }
        return try value(node, as: type)
    }

    // MARK: Values

    /// The node's value as `type` (GLib's `ast_get_value`).
    func value(_ node: Node, as type: GVariantType) throws(GVariantError) -> GVariant {
        switch node.kind {
        case .typeDeclaration(_, let child):
            // As in GLib, the declaration chose the pattern; the value is read as the type asked for.
            return try value(child, as: type)
        case .maybe(let child):
            guard case .maybe(let element) = type else { throw typeError(node, type) }
            guard let child else { return .maybe(element, nil) }
            return .maybe(element, try value(child, as: element))
        default:
            // Any other value is also a value of a maybe of its type (`@ms 'x'`), wrapped once per `m`.
            var elements: [GVariantType] = []
            var base = type
            while case .maybe(let element) = base {
                elements.append(element)
                base = element
            }
            var result = try baseValue(node, as: base)
            for element in elements.reversed() { result = .maybe(element, result) }
            return result
        }
    }

    func typeError(_ node: Node, _ type: GVariantType) -> GVariantError {
        GVariantError(.typeMismatch, "cannot parse as value of type '\(type.typeString)'", at: node.range.lowerBound)
    }

    /// The value of a node that is not a maybe or a declaration, as a type that is not a maybe.
    func baseValue(_ node: Node, as type: GVariantType) throws(GVariantError) -> GVariant {
        switch (node.kind, type) {
        case (.array(let children), .array(let element)):
            var values: [GVariant] = []
            values.reserveCapacity(children.count)
            for child in children { values.append(try value(child, as: element)) }
            return .array(element, values)
        case (.tuple(let children), .tuple(let elements)) where children.count == elements.count:
            var values: [GVariant] = []
            for (child, element) in zip(children, elements) { values.append(try value(child, as: element)) }
            return .tuple(values)
        case (.variant(let child), .variant):
            let text = String(decoding: bytes[child.range], as: UTF8.self)
            return .variant(try resolve(child), text: text)
        case (.dictionary(let keys, let values), .array(.dictionaryEntry(let keyType, let valueType))):
            var entries: [GVariant] = []
            entries.reserveCapacity(keys.count)
            for (key, entryValue) in zip(keys, values) {
                entries.append(.dictionaryEntry(try value(key, as: keyType), try value(entryValue, as: valueType)))
            }
            return .array(.dictionaryEntry(key: keyType, value: valueType), entries)
        case (.entry(let key, let entryValue), .dictionaryEntry(let keyType, let valueType)):
            return .dictionaryEntry(try value(key, as: keyType), try value(entryValue, as: valueType))
        case (.string(let text), .string):
            return .string(text)
        case (.string(let text), .objectPath):
            guard Self.isObjectPath(text) else {
                throw GVariantError(.syntax, "not a valid object path", at: node.range.lowerBound)
            }
            return .objectPath(text)
        case (.string(let text), .signature):
            guard Self.isSignature(text) else {
                throw GVariantError(.syntax, "not a valid signature", at: node.range.lowerBound)
            }
            return .signature(text)
        case (.byteString(let bytes), .array(.byte)):
            return .array(.byte, bytes.map { .byte($0) })
        case (.number(let token), _):
            return try number(token, as: type, node: node)
        case (.boolean(let truth), .boolean):
            return .boolean(truth)
        default:
            throw typeError(node, type)
        }
    }

    /// A D-Bus object path: `/`, or `/`-separated non-empty components of `A–Z a–z 0–9 _`.
    static func isObjectPath(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        var previous = UInt8(ascii: "/")
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previous == UInt8(ascii: "/") { return false }
            } else if !isAlphanumeric(byte) && byte != UInt8(ascii: "_") {
                return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: "/")
    }

    /// A D-Bus signature: zero or more complete types, without maybes.
    static func isSignature(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ Array("ybnqiuxthdvasog(){}".utf8).contains($0) }) else { return false }
        var index = 0
        var tooDeep = false
        while index < bytes.count {
            guard
                GVariantType.scan(bytes[...], at: &index, depthLimit: GVariantType.maxDepth, tooDeep: &tooDeep)
                    != nil
            else { return false }
        }
        return true
    }

    // MARK: Numbers

    /// A number token read as `type` (GLib's `number_get_value`): `strtod` for a double, else `strtoull` with base
    /// 0 (so `0x10` is hexadecimal and `010` octal) and a range check for the type.
    func number(_ token: [UInt8], as type: GVariantType, node: Node) throws(GVariantError) -> GVariant {
        let start = node.range.lowerBound
        if type == .double {
            let text = String(decoding: token, as: UTF8.self)
            guard let real = Double(text) else {
                throw GVariantError(.syntax, "invalid character in number", at: start)
            }
            if real.isInfinite && !text.lowercased().containsText("inf") {
                throw GVariantError(.outOfRange, "number too big for any type", at: start)
            }
            return .double(real)
        }
        let negative = token.first == UInt8(ascii: "-")
        let digits = negative ? token.dropFirst() : token[...]
        let (magnitude, end, overflow) = Self.unsignedValue(digits)
        if overflow { throw GVariantError(.outOfRange, "integer too big for any type", at: start) }
        if end < digits.endIndex {
            throw GVariantError(.syntax, "invalid character in number", at: start + end)
        }
        let isNegative = negative && magnitude != 0
        func outOfRange() -> GVariantError {
            GVariantError(.outOfRange, "number out of range for type '\(type.typeString)'", at: start)
        }
        func signed(_ limit: UInt64) throws(GVariantError) -> Int64 {
            // The magnitude of a negative number may be one more than the largest positive one.
            guard magnitude <= limit + (isNegative ? 1 : 0) else { throw outOfRange() }
            return isNegative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude)
        }
        func unsigned(_ limit: UInt64) throws(GVariantError) -> UInt64 {
            guard !isNegative, magnitude <= limit else { throw outOfRange() }
            return magnitude
        }
        switch type {
        case .byte: return .byte(UInt8(try unsigned(UInt64(UInt8.max))))
        case .int16: return .int16(Int16(try signed(UInt64(Int16.max))))
        case .uint16: return .uint16(UInt16(try unsigned(UInt64(UInt16.max))))
        case .int32: return .int32(Int32(try signed(UInt64(Int32.max))))
        case .uint32: return .uint32(UInt32(try unsigned(UInt64(UInt32.max))))
        case .int64: return .int64(try signed(UInt64(Int64.max)))
        case .uint64: return .uint64(try unsigned(UInt64.max))
        case .handle: return .handle(Int32(try signed(UInt64(Int32.max))))
        default: throw typeError(node, type)
        }
    }

    /// `strtoull(text, &end, 0)`: an optional sign (a minus negates, wrapping), then `0x` and hexadecimal digits, `0`
    /// and octal ones, or decimal ones.
    /// - Returns: The value, the index where the number ended (the start when there are no digits), and whether it
    ///   overflowed (`ERANGE`).
    static func unsignedValue(_ text: ArraySlice<UInt8>) -> (UInt64, end: Int, overflow: Bool) {
        var index = text.startIndex
        var negated = false
        if index < text.endIndex, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
            negated = text[index] == UInt8(ascii: "-")
            index += 1
        }
        var base: UInt64 = 10
        if index < text.endIndex, text[index] == UInt8(ascii: "0") {
            if index + 2 < text.endIndex, text[index + 1] | 0x20 == UInt8(ascii: "x"), hexValue(text[index + 2]) != nil
            {
                base = 16
                index += 2
            } else {
                base = 8
            }
        }
        var value: UInt64 = 0
        var overflow = false
        let digitsStart = index
        while index < text.endIndex, let digit = hexValue(text[index]), UInt64(digit) < base {
            let (shifted, multiplyOverflow) = value.multipliedReportingOverflow(by: base)
            let (sum, addOverflow) = shifted.addingReportingOverflow(UInt64(digit))
            if multiplyOverflow || addOverflow { overflow = true }
            value = sum
            index += 1
        }
        if index == digitsStart { return (0, text.startIndex, false) }
        if overflow { return (UInt64.max, index, true) }
        return (negated ? 0 &- value : value, index, false)
    }
}
