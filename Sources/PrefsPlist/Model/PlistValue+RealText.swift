// SPDX-License-Identifier: Apache-2.0
import Glibc

extension PlistValue {
    /// The text C's `printf` gives a finite real with `%.<digits>g`, with a `.` as the decimal point whatever
    /// the process's locale. CoreFoundation writes XML reals with `%.17g`; `NSNumber` describes them with `%.16g`.
    static func printfRealText(_ real: Double, significantDigits: Int) -> String {
        withPrintfRealText(real, significantDigits: significantDigits) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of ``printfRealText(_:significantDigits:)``, without building a string.
    static func withPrintfRealText<Result>(
        _ real: Double, significantDigits: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        // `%.17g` of a double is at most 24 bytes ("-1.2345678901234567e-308"); a locale's decimal point may
        // take a few more.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer in
            let length = withVaList([Int32(significantDigits), real]) { arguments in
                Int(vsnprintf(buffer.baseAddress, buffer.count, "%.*g", arguments))
            }
            let written = UnsafeMutableRawBufferPointer(buffer).bindMemory(to: UInt8.self)
            var count = 0
            var pointWritten = false
            for index in 0..<max(0, min(length, buffer.count - 1)) {
                let byte = written[index]
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "e"),
                    UInt8(ascii: "n"), UInt8(ascii: "a"), UInt8(ascii: "i"), UInt8(ascii: "f"):
                    written[count] = byte
                    count += 1
                default:
                    // The decimal point, in whatever bytes the locale spells it.
                    if !pointWritten {
                        written[count] = UInt8(ascii: ".")
                        count += 1
                        pointWritten = true
                    }
                }
            }
            return body(UnsafeBufferPointer(rebasing: written[..<count]))
        }
    }
}

extension PlistValue {
    /// Calls `body` with the text CoreFoundation writes for a finite, non-zero real in XML: `%.17g`.
    ///
    /// Reals from 1e-4 up to 1e17 (fixed notation in `%g`) take an exact integer path: the 17 significant
    /// digits are `|real| × 10^k` rounded half to even, computed as `m × 5^k × 2^(e+k)` in 128 bits from the
    /// real's significand `m` and exponent `e`, which is what a correctly rounding `printf` gives. Other reals
    /// go through ``withPrintfRealText(_:significantDigits:_:)``.
    static func withCoreFoundationRealText<Result>(
        _ real: Double, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let magnitude = real.magnitude
        guard magnitude >= 1e-4, magnitude < 1e17, let (digits, exponent) = seventeenDigits(of: magnitude) else {
            return withPrintfRealText(real, significantDigits: 17, body)
        }
        // The 17 digits go at the end of the buffer, the text at its start.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            let digitsStart = 31
            var remaining = digits
            for index in stride(from: digitsStart + 16, through: digitsStart, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
            var significant = 17
            while significant > 1, buffer[digitsStart + significant - 1] == UInt8(ascii: "0") { significant -= 1 }
            var count = 0
            if real < 0 {
                buffer[count] = UInt8(ascii: "-")
                count += 1
            }
            if exponent >= 0 {
                for index in 0...exponent {
                    buffer[count] = buffer[digitsStart + index]
                    count += 1
                }
                if significant > exponent + 1 {
                    buffer[count] = UInt8(ascii: ".")
                    count += 1
                    for index in (exponent + 1)..<significant {
                        buffer[count] = buffer[digitsStart + index]
                        count += 1
                    }
                }
            } else {
                buffer[count] = UInt8(ascii: "0")
                buffer[count + 1] = UInt8(ascii: ".")
                count += 2
                for _ in 0..<(-exponent - 1) {
                    buffer[count] = UInt8(ascii: "0")
                    count += 1
                }
                for index in 0..<significant {
                    buffer[count] = buffer[digitsStart + index]
                    count += 1
                }
            }
            return body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// `magnitude` to 17 significant digits, rounded half to even, and its decimal exponent: `digits` is in
    /// `10^16 ..< 10^17` and `magnitude ≈ digits × 10^(exponent - 16)`. `nil` outside 1e-4 ..< 1e17.
    private static func seventeenDigits(of magnitude: Double) -> (digits: UInt64, exponent: Int)? {
        let significand = UInt128(magnitude.significandBitPattern | (1 << 52))
        let binaryExponent = Int(magnitude.exponentBitPattern) - 1075
        var exponent = Int(log10(magnitude).rounded(.down))
        for _ in 0..<3 {
            let scale = 16 - exponent  // the power of ten to multiply by
            guard (0...21).contains(scale) else { return nil }
            var power: UInt128 = 1
            for _ in 0..<scale { power *= 5 }
            let product = significand * power
            let shift = binaryExponent + scale
            let digits: UInt128
            if shift >= 0 {
                digits = product << shift
            } else {
                let dropped = -shift
                let quotient = product >> dropped
                let remainder = product & ((1 << dropped) - 1)
                let half: UInt128 = 1 << (dropped - 1)
                digits = remainder > half || (remainder == half && quotient & 1 == 1) ? quotient + 1 : quotient
            }
            if digits >= 100_000_000_000_000_000 {
                exponent += 1
            } else if digits < 10_000_000_000_000_000 {
                exponent -= 1
            } else {
                return (UInt64(digits), exponent)
            }
        }
        return nil
    }
}
