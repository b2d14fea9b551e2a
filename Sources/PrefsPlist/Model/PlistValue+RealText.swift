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
