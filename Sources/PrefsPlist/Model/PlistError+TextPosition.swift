// SPDX-License-Identifier: Apache-2.0
extension PlistError.Position {
    /// The 1-based line and column of a byte offset in UTF-8 text. Lines end at LF, CR LF or CR; columns count
    /// Unicode scalars. Readers compute it only when they report an error, so scanning never tracks lines.
    static func text(ofByteOffset offset: Int, in text: UnsafeBufferPointer<UInt8>) -> PlistError.Position {
        var line = 1
        var column = 1
        var index = 0
        let limit = min(offset, text.count)
        while index < limit {
            let current = text[index]
            if current == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if current == UInt8(ascii: "\r") {
                if index + 1 < limit, text[index + 1] == UInt8(ascii: "\n") { index += 1 }
                line += 1
                column = 1
            } else if current & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return .text(line: line, column: column)
    }
}
