extension XMLPlistReader {
    /// Parses the text of `<integer>` and `<real>` as CoreFoundation does, straight from UTF-8 bytes.
    enum ScalarParser {
        /// The outcome of reading an `<integer>`.
        enum IntegerResult: Equatable {
            case value(PlistInteger)
            case outOfRange
            case malformed
        }

        /// Reads `S* [+-]? S* (0[xX] hex+ | digit+)` where `S` is white space, as CoreFoundation does
        /// (`" +\t42"`, `"-0xFACE"`); nothing may follow the digits. The range is `Int64.min ... UInt64.max`.
        static func integer(_ text: [UInt8]) -> IntegerResult {
            text.withUnsafeBufferPointer { integer($0) }
        }

        static func integer(_ text: UnsafeBufferPointer<UInt8>) -> IntegerResult {
            let count = text.count
            var index = 0
            func skipSpace() {
                while index < count, text[index] <= 0x20 { index += 1 }
            }
            skipSpace()
            var isNegative = false
            if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                isNegative = text[index] == UInt8(ascii: "-")
                index += 1
                skipSpace()
            }
            var radix: UInt64 = 10
            if index + 1 < count, text[index] == UInt8(ascii: "0"), text[index + 1] | 0x20 == UInt8(ascii: "x") {
                radix = 16
                index += 2
            }
            guard index < count else { return .malformed }
            var magnitude: UInt64 = 0
            var overflowed = false
            while index < count {
                guard let digit = digitValue(text[index], radix: radix) else { return .malformed }
                let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: radix)
                let (sum, overflow2) = shifted.addingReportingOverflow(digit)
                overflowed = overflowed || overflow1 || overflow2
                magnitude = sum
                index += 1
            }
            if overflowed { return .outOfRange }
            guard isNegative else { return .value(PlistInteger(magnitude)) }
            guard magnitude <= UInt64(Int64.max) + 1 else { return .outOfRange }
            return .value(PlistInteger(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)))
        }

        private static func digitValue(_ byte: UInt8, radix: UInt64) -> UInt64? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: return UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: return UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }

        /// Reads a `<date>`: the form every writer uses, `YYYY-MM-DDTHH:MM:SSZ`, directly; anything else
        /// through ``PlistDate/init(iso8601:)``, which takes Apple's lenient forms too.
        static func date(_ text: [UInt8]) -> PlistDate? {
            if let date = text.withUnsafeBufferPointer(canonicalDate) { return date }
            return PlistDate(iso8601: String(decoding: text, as: UTF8.self))
        }

        private static func canonicalDate(_ text: UnsafeBufferPointer<UInt8>) -> PlistDate? {
            guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
                text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
                text[19] == UInt8(ascii: "Z")
            else { return nil }
            func number(_ offset: Int, _ length: Int) -> Int? {
                var value = 0
                for index in offset..<(offset + length) {
                    let digit = Int(text[index]) - Int(UInt8(ascii: "0"))
                    guard digit >= 0, digit <= 9 else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
            else { return nil }
            return PlistDate(
                components: PlistDate.Components(
                    year: Int64(year), month: month, day: day, hour: hour, minute: minute, second: second))
        }

        /// Reads a `<real>` as CoreFoundation does: `nan`, `inf`, `infinity` with an optional sign in
        /// any case, else what `strtod` reads in the C locale with the whole text consumed. Leading
        /// white space is skipped, trailing white space and hexadecimal are refused.
        static func real(_ text: [UInt8]) -> Double? {
            text.withUnsafeBufferPointer { real($0) }
        }

        static func real(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            if let special = specialReal(text) { return special }
            var start = 0
            while start < text.count, isCSpace(text[start]) { start += 1 }
            let body = UnsafeBufferPointer(rebasing: text[start...])
            guard !body.isEmpty, !looksHexadecimal(body) else { return nil }
            if let exact = exactDecimal(body) { return exact }
            return Double(String(decoding: body, as: UTF8.self))
        }

        private static func specialReal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            func matches(_ word: StaticString, from offset: Int) -> Bool {
                guard text.count - offset == word.utf8CodeUnitCount else { return false }
                let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
                for (index, letter) in letters.enumerated() where text[offset + index] | 0x20 != letter {
                    return false
                }
                return true
            }
            guard let first = text.first else { return nil }
            let sign: Double = first == UInt8(ascii: "-") ? -1 : 1
            let offset = first == UInt8(ascii: "-") || first == UInt8(ascii: "+") ? 1 : 0
            if offset == 0, matches("nan", from: 0) { return .nan }
            if matches("infinity", from: offset) || (offset == 1 && matches("inf", from: 1)) {
                return sign * .infinity
            }
            return nil
        }

        private static func isCSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
        }

        /// `strtod` would read `0x1p3`; CoreFoundation refuses it, as does this reader.
        private static func looksHexadecimal(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in text {
                switch byte {
                case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0"): continue
                case UInt8(ascii: "x"), UInt8(ascii: "X"): return true
                default: return false
                }
            }
            return false
        }

        private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
            var value = 1.0
            for _ in 0..<exponent { value *= 10 }
            return value
        }

        /// Clinger's fast path: a decimal whose digits fit in 53 bits, scaled by at most 10^22, is
        /// one exact multiplication or division away, so correctly rounded without `strtod`.
        private static func exactDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            let count = text.count
            var index = 0
            var isNegative = false
            if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
                isNegative = text[0] == UInt8(ascii: "-")
                index = 1
            }
            var mantissa: UInt64 = 0
            var significantDigits = 0
            var digitCount = 0
            var scale = 0
            var seenPoint = false
            while index < count {
                let byte = text[index]
                if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    digitCount += 1
                    if mantissa != 0 || byte != UInt8(ascii: "0") { significantDigits += 1 }
                    guard significantDigits <= 19 else { return nil }
                    mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                    if seenPoint { scale -= 1 }
                } else if byte == UInt8(ascii: "."), !seenPoint {
                    seenPoint = true
                } else {
                    break
                }
                index += 1
            }
            guard digitCount > 0 else { return nil }
            if index < count {
                guard text[index] | 0x20 == UInt8(ascii: "e") else { return nil }
                index += 1
                var exponentIsNegative = false
                if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                    exponentIsNegative = text[index] == UInt8(ascii: "-")
                    index += 1
                }
                var exponent = 0
                var exponentDigits = 0
                while index < count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") {
                    exponent = exponent * 10 + Int(text[index] - UInt8(ascii: "0"))
                    exponentDigits += 1
                    guard exponent < 1000 else { return nil }
                    index += 1
                }
                guard exponentDigits > 0, index == count else { return nil }
                scale += exponentIsNegative ? -exponent : exponent
            }
            guard mantissa <= 1 << 53, scale >= -22, scale <= 22 else { return nil }
            var value = Double(mantissa)
            if scale < 0 {
                value /= exactPowersOfTen[-scale]
            } else {
                value *= exactPowersOfTen[scale]
            }
            return isNegative ? -value : value
        }
    }
}
