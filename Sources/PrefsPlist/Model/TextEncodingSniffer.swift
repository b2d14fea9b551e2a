// SPDX-License-Identifier: Apache-2.0
/// Detects the Unicode encoding of a text property list from its byte-order mark or first bytes.
///
/// XML and OpenStep files may be UTF-8, UTF-16 or UTF-32, with or without a byte-order mark;
/// without one, the zero bytes around the first ASCII character give the encoding away.
enum TextEncodingSniffer {
    enum Encoding: Sendable, Hashable {
        case utf8, utf16BigEndian, utf16LittleEndian, utf32BigEndian, utf32LittleEndian

        var codeUnitSize: Int {
            switch self {
            case .utf8: 1
            case .utf16BigEndian, .utf16LittleEndian: 2
            case .utf32BigEndian, .utf32LittleEndian: 4
            }
        }

        /// The ASCII character at `offset`, or `nil` when the code unit there is not ASCII.
        func asciiScalar(in bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt8? {
            guard offset + codeUnitSize <= bytes.count else { return nil }
            let units = (0..<codeUnitSize).map { bytes[offset + $0] }
            let value: UInt32
            switch self {
            case .utf8: value = UInt32(units[0])
            case .utf16BigEndian: value = UInt32(units[0]) << 8 | UInt32(units[1])
            case .utf16LittleEndian: value = UInt32(units[1]) << 8 | UInt32(units[0])
            case .utf32BigEndian: value = units.reduce(0) { $0 << 8 | UInt32($1) }
            case .utf32LittleEndian: value = units.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            }
            return value < 0x80 ? UInt8(value) : nil
        }
    }

    /// The encoding and the length of its byte-order mark (0 when there is none).
    static func detect(_ bytes: UnsafeRawBufferPointer) -> (Encoding, bomLength: Int) {
        let b = Array(bytes.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - bytes.count))
        switch (b[0], b[1], b[2], b[3]) {
        case (0x00, 0x00, 0xFE, 0xFF): return (.utf32BigEndian, 4)
        case (0xFF, 0xFE, 0x00, 0x00): return (.utf32LittleEndian, 4)
        case (0xEF, 0xBB, 0xBF, _): return (.utf8, 3)
        case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
        case (0x00, 0x00, 0x00, let c) where c != 0: return (.utf32BigEndian, 0)
        case (let c, 0x00, 0x00, 0x00) where c != 0: return (.utf32LittleEndian, 0)
        case (0x00, let c, _, _) where c != 0: return (.utf16BigEndian, 0)
        case (let c, 0x00, _, _) where c != 0: return (.utf16LittleEndian, 0)
        default: return (.utf8, 0)
        }
    }

    /// Transcodes the text after the byte-order mark to UTF-8; `nil` when it is not valid.
    static func utf8Bytes(of bytes: UnsafeRawBufferPointer) -> (bytes: [UInt8], encoding: Encoding)? {
        let (encoding, bom) = detect(bytes)
        let body = UnsafeRawBufferPointer(rebasing: bytes[bom...])
        switch encoding {
        case .utf8:
            return (Array(body), encoding)
        case .utf16BigEndian, .utf16LittleEndian:
            guard body.count % 2 == 0 else { return nil }
            let bigEndian = encoding == .utf16BigEndian
            let units = stride(from: 0, to: body.count, by: 2).lazy.map { i -> UInt16 in
                bigEndian ? UInt16(body[i]) << 8 | UInt16(body[i + 1]) : UInt16(body[i + 1]) << 8 | UInt16(body[i])
            }
            var output: [UInt8] = []
            output.reserveCapacity(body.count)
            var iterator = units.makeIterator()
            var decoder = UTF16()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): UTF8.encode(scalar) { output.append($0) }
                case .emptyInput: break loop
                case .error: return nil
                }
            }
            return (output, encoding)
        case .utf32BigEndian, .utf32LittleEndian:
            guard body.count % 4 == 0 else { return nil }
            var output: [UInt8] = []
            output.reserveCapacity(body.count / 2)
            for i in stride(from: 0, to: body.count, by: 4) {
                let quad = (0..<4).map { UInt32(body[i + $0]) }
                let value =
                    encoding == .utf32BigEndian
                    ? quad[0] << 24 | quad[1] << 16 | quad[2] << 8 | quad[3]
                    : quad[3] << 24 | quad[2] << 16 | quad[1] << 8 | quad[0]
                guard let scalar = Unicode.Scalar(value) else { return nil }
                UTF8.encode(scalar) { output.append($0) }
            }
            return (output, encoding)
        }
    }
}
