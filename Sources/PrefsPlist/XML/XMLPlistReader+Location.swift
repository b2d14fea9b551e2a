// SPDX-License-Identifier: Apache-2.0
extension XMLPlistReader {
    /// Finds line and column positions in the source for error messages.
    ///
    /// libxml2 tells a SAX handler the line its parser has reached, not the column where a tag or a run
    /// of text starts, so when a plist-level rule fails the reader knows "the third start tag on line
    /// 12"; this scanner turns that into a column. It runs only on the error path. Columns count Unicode
    /// scalars from 1.
    struct SourceLocator {
        private let source: UnsafeRawBufferPointer

        init(_ source: UnsafeRawBufferPointer) {
            self.source = source
        }

        /// The position of the `ordinal`-th (from 0) start tag on `line`.
        func position(ofStartTag ordinal: Int, onLine line: Int) -> PlistError.Position {
            var seen = 0
            var found: PlistError.Position?
            scan { event, eventLine, column in
                if eventLine > line { return true }
                guard event == .startTag, eventLine == line else { return false }
                if seen == ordinal {
                    found = .text(line: eventLine, column: column)
                    return true
                }
                seen += 1
                return false
            }
            return found ?? .text(line: max(1, line), column: 1)
        }

        /// The position of the first character on `line` that is text rather than markup or white space.
        func position(ofTextOnLine line: Int) -> PlistError.Position? {
            var found: PlistError.Position?
            scan { event, eventLine, column in
                if eventLine > line { return true }
                guard event == .text, eventLine == line else { return false }
                found = .text(line: eventLine, column: column)
                return true
            }
            return found
        }

        /// The position of the first CDATA section (its `<![CDATA[`) that starts on `line`.
        func position(ofCharacterDataOnLine line: Int) -> PlistError.Position? {
            var found: PlistError.Position?
            scan { event, eventLine, column in
                if eventLine > line { return true }
                guard event == .characterDataStart, eventLine == line else { return false }
                found = .text(line: eventLine, column: column)
                return true
            }
            return found
        }

        /// The position of the first occurrence of `needle`.
        func position(ofFirst needle: [UInt8]) -> PlistError.Position? {
            guard !needle.isEmpty, source.count >= needle.count else { return nil }
            for start in 0...(source.count - needle.count) where source[start] == needle[0] {
                if (0..<needle.count).allSatisfy({ source[start + $0] == needle[$0] }) {
                    return position(ofByteOffset: start)
                }
            }
            return nil
        }

        /// The line and column of a byte offset.
        func position(ofByteOffset offset: Int) -> PlistError.Position {
            var line = 1
            var column = 1
            for index in 0..<min(offset, source.count) {
                let byte = source[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return .text(line: line, column: column)
        }

        private enum Event { case startTag, text, characterDataStart }

        private enum State {
            case content
            case tag(quote: UInt8?)
            case comment
            case processingInstruction
            case characterData
            case declaration(quote: UInt8?, bracketDepth: Int)
        }

        /// Walks the markup, calling `visit` for each start tag, each CDATA section's start and each
        /// character of text (CDATA included) outside markup, until `visit` returns true.
        private func scan(_ visit: (Event, _ line: Int, _ column: Int) -> Bool) {
            var state = State.content
            var line = 1
            var column = 1
            var index = 0
            let count = source.count
            func starts(with literal: StaticString, at offset: Int) -> Bool {
                let length = literal.utf8CodeUnitCount
                guard offset + length <= count else { return false }
                return (0..<length).allSatisfy { source[offset + $0] == literal.utf8Start[$0] }
            }
            var skip = 0
            while index < count {
                let byte = source[index]
                if skip > 0 {
                    skip -= 1
                } else {
                    switch state {
                    case .content:
                        if byte == UInt8(ascii: "<") {
                            if starts(with: "<!--", at: index) {
                                state = .comment
                                skip = 3
                            } else if starts(with: "<![CDATA[", at: index) {
                                if visit(.characterDataStart, line, column) { return }
                                state = .characterData
                                skip = 8
                            } else if starts(with: "<!", at: index) {
                                state = .declaration(quote: nil, bracketDepth: 0)
                            } else if starts(with: "<?", at: index) {
                                state = .processingInstruction
                            } else {
                                let next = index + 1 < count ? source[index + 1] : 0
                                if next != UInt8(ascii: "/"), visit(.startTag, line, column) { return }
                                state = .tag(quote: nil)
                            }
                        } else if !Self.isXMLSpace(byte), byte & 0xC0 != 0x80, visit(.text, line, column) {
                            return
                        }
                    case .tag(let quote):
                        if let quote {
                            if byte == quote { state = .tag(quote: nil) }
                        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                            state = .tag(quote: byte)
                        } else if byte == UInt8(ascii: ">") {
                            state = .content
                        }
                    case .comment:
                        if starts(with: "-->", at: index) {
                            state = .content
                            skip = 2
                        }
                    case .processingInstruction:
                        if starts(with: "?>", at: index) {
                            state = .content
                            skip = 1
                        }
                    case .characterData:
                        if starts(with: "]]>", at: index) {
                            state = .content
                            skip = 2
                        } else if !Self.isXMLSpace(byte), byte & 0xC0 != 0x80, visit(.text, line, column) {
                            return
                        }
                    case .declaration(let quote, let depth):
                        if let quote {
                            if byte == quote { state = .declaration(quote: nil, bracketDepth: depth) }
                        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                            state = .declaration(quote: byte, bracketDepth: depth)
                        } else if byte == UInt8(ascii: "[") {
                            state = .declaration(quote: nil, bracketDepth: depth + 1)
                        } else if byte == UInt8(ascii: "]") {
                            state = .declaration(quote: nil, bracketDepth: max(0, depth - 1))
                        } else if byte == UInt8(ascii: ">"), depth == 0 {
                            state = .content
                        }
                    }
                }
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
                index += 1
            }
        }

        private static func isXMLSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }

    /// The byte offset of the first code unit that is not valid in `encoding`, for error messages.
    static func firstInvalidOffset(in bytes: UnsafeRawBufferPointer, encoding: TextEncodingSniffer.Encoding) -> Int {
        let bomLength = TextEncodingSniffer.detect(bytes).bomLength
        let unitSize = encoding.codeUnitSize
        let bigEndian = encoding == .utf16BigEndian || encoding == .utf32BigEndian
        var offset = bomLength
        var pendingHighSurrogateOffset: Int?
        while offset + unitSize <= bytes.count {
            var value: UInt32 = 0
            for index in 0..<unitSize {
                let byte = UInt32(bytes[offset + (bigEndian ? index : unitSize - 1 - index)])
                value = value << 8 | byte
            }
            if unitSize == 4 {
                if Unicode.Scalar(value) == nil { return offset }
            } else if (0xD800...0xDBFF).contains(value) {
                if let pending = pendingHighSurrogateOffset { return pending }
                pendingHighSurrogateOffset = offset
            } else if (0xDC00...0xDFFF).contains(value) {
                guard pendingHighSurrogateOffset != nil else { return offset }
                pendingHighSurrogateOffset = nil
            } else if let pending = pendingHighSurrogateOffset {
                return pending
            }
            offset += unitSize
        }
        return pendingHighSurrogateOffset ?? offset
    }
}
