// SPDX-License-Identifier: Apache-2.0
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

        @inline(__always)
        private static func digitValue(_ byte: UInt8, radix: UInt64) -> UInt64? {
            // One wrapping subtraction and comparison per range, rather than a pattern match.
            let decimal = byte &- UInt8(ascii: "0")
            if decimal < 10 { return UInt64(decimal) }
            guard radix == 16 else { return nil }
            let letter = (byte | 0x20) &- UInt8(ascii: "a")
            return letter < 6 ? UInt64(letter) + 10 : nil
        }

        /// Reads a `<date>`: the form every writer uses, `YYYY-MM-DDTHH:MM:SSZ`, directly; anything else
        /// through ``PlistDate/init(iso8601:)``, which takes Apple's lenient forms too.
        static func date(_ text: [UInt8]) -> PlistDate? {
            text.withUnsafeBufferPointer { date($0) }
        }

        static func date(_ text: UnsafeBufferPointer<UInt8>) -> PlistDate? {
            if let date = canonicalDate(text) { return date }
            return PlistDate(iso8601: String(decoding: text, as: UTF8.self))
        }

        private static func canonicalDate(_ text: UnsafeBufferPointer<UInt8>) -> PlistDate? {
            guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
                text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
                text[19] == UInt8(ascii: "Z")
            else { return nil }
            // Each digit is checked by one wrapping subtraction; any byte that is not a digit leaves a
            // value of 10 or more, which the OR of all of them keeps.
            var invalid: UInt8 = 0
            @inline(__always) func digit(_ index: Int) -> Int {
                let value = text[index] &- UInt8(ascii: "0")
                invalid |= value >= 10 ? 1 : 0
                return Int(value)
            }
            let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3)
            let month = digit(5) * 10 + digit(6)
            let day = digit(8) * 10 + digit(9)
            let hour = digit(11) * 10 + digit(12)
            let minute = digit(14) * 10 + digit(15)
            let second = digit(17) * 10 + digit(18)
            guard invalid == 0 else { return nil }
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

        /// 10^0 … 10^22, each exactly representable as a `Double`.
        private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
            var value = 1.0
            for _ in 0..<exponent { value *= 10 }
            return value
        }

        /// 5^0 … 5^27, the largest powers of five below 2^64.
        private static let powersOfFive: [UInt64] = (0...27).map { exponent in
            var value: UInt64 = 1
            for _ in 0..<exponent { value *= 5 }
            return value
        }

        /// Reads a decimal of at most 19 significant digits scaled by at most 10^±27, correctly rounded,
        /// without `strtod`; `nil` for anything else (the caller falls back to the standard library).
        ///
        /// Digits that fit in 53 bits scaled by at most 10^22 take Clinger's fast path: one exact
        /// multiplication or division. Otherwise the digits `m` are multiplied by 5^k in 128 bits, or
        /// divided by 5^k with the remainder kept as a sticky bit, and the 64-bit result rounded once
        /// to a `Double` and scaled by a power of two, which is exact. That covers the 17-digit reals
        /// every writer produces.
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
                let digit = byte &- UInt8(ascii: "0")
                if digit < 10 {
                    digitCount += 1
                    if mantissa != 0 || digit != 0 { significantDigits += 1 }
                    guard significantDigits <= 19 else { return nil }
                    mantissa = mantissa &* 10 &+ UInt64(digit)
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
            let value: Double
            if mantissa <= 1 << 53, scale >= -22, scale <= 22 {
                value =
                    scale < 0 ? Double(mantissa) / exactPowersOfTen[-scale] : Double(mantissa) * exactPowersOfTen[scale]
            } else if mantissa == 0 || scale < -27 || scale > 27 {
                return nil
            } else if scale >= 0 {
                value = scaledProduct(mantissa, powersOfFive[scale], binaryExponent: scale)
            } else {
                value = scaledQuotient(mantissa, powersOfFive[-scale], binaryExponent: scale)
            }
            return isNegative ? -value : value
        }

        /// `m × 5^k × 2^binaryExponent`, correctly rounded: the 128-bit product's top 64 bits, with a
        /// sticky bit for the rest, rounded once.
        private static func scaledProduct(_ mantissa: UInt64, _ power: UInt64, binaryExponent: Int) -> Double {
            let (high, low) = mantissa.multipliedFullWidth(by: power)
            guard high != 0 else { return Double(sign: .plus, exponent: binaryExponent, significand: Double(low)) }
            let shift = high.leadingZeroBitCount
            var top = shift == 0 ? high : high << shift | low >> (64 - shift)
            // Below the top 64 bits; the rounding point is 11 bits up, so bit 0 only breaks ties.
            if low << shift != 0 { top |= 1 }
            return Double(sign: .plus, exponent: binaryExponent + 64 - shift, significand: Double(top))
        }

        /// `m / 5^k × 2^binaryExponent`, correctly rounded: the digits are shifted so the quotient has
        /// 63 or 64 bits, and a non-zero remainder becomes a sticky bit before the single rounding.
        private static func scaledQuotient(_ mantissa: UInt64, _ power: UInt64, binaryExponent: Int) -> Double {
            let normalizeShift = mantissa.leadingZeroBitCount
            let normalized = mantissa << normalizeShift
            // 2^powerBits <= power, so the quotient stays below 2^64 and at or above 2^62.
            let powerBits = 63 - power.leadingZeroBitCount
            let dividend = (high: normalized >> (64 - powerBits), low: normalized << powerBits)
            var (quotient, remainder) = power.dividingFullWidth(dividend)
            if remainder != 0 { quotient |= 1 }
            return Double(
                sign: .plus, exponent: binaryExponent - normalizeShift - powerBits, significand: Double(quotient))
        }
    }
}
