// SPDX-License-Identifier: Apache-2.0
extension BinaryPlistWriter {
    /// The longest marker: the marker byte, an integer marker and 8 bytes of count.
    static let maximumMarkerLength = 10

    /// Appends a string: `0x5n` and its bytes when it is all ASCII, else `0x6n` and big-endian
    /// UTF-16, the count being code units (as `plistlib` and CoreFoundation write it).
    static func appendString(_ string: String, to buffer: inout ByteBuffer) {
        let appended: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            appendString(utf8: UnsafeRawBufferPointer(utf8), to: &buffer)
        }
        if appended == nil {
            var contiguous = string
            contiguous.withUTF8 { appendString(utf8: UnsafeRawBufferPointer($0), to: &buffer) }
        }
    }

    /// Appends a string given as valid UTF-8.
    static func appendString(utf8: UnsafeRawBufferPointer, to buffer: inout ByteBuffer) {
        let count = utf8.count
        guard let source = utf8.baseAddress, count > 0 else {
            buffer.reserve(1).storeBytes(of: 0x50, as: UInt8.self)
            buffer.commit(1)
            return
        }
        if BinaryPlistReader.ObjectDecoder.firstNonASCIIIndex(utf8) == nil {
            let start = buffer.reserve(maximumMarkerLength + count)
            let markerLength = storeMarker(0x50, count: count, at: start)
            (start + markerLength).copyMemory(from: source, byteCount: count)
            buffer.commit(markerLength + count)
            return
        }
        // One UTF-16 unit per scalar (lead byte), two for a scalar beyond the BMP (4-byte lead).
        var units = 0
        for byte in utf8 {
            if byte & 0xC0 != 0x80 { units += 1 }
            if byte >= 0xF0 { units += 1 }
        }
        let start = buffer.reserve(maximumMarkerLength + 2 * units)
        let markerLength = storeMarker(0x60, count: units, at: start)
        var output = start + markerLength
        @inline(__always) func put(_ unit: UInt32) {
            output.storeBytes(of: UInt16(truncatingIfNeeded: unit).bigEndian, as: UInt16.self)
            output += 2
        }
        var index = 0
        while index < count {
            let lead = UInt32(utf8[index])
            if lead < 0x80 {
                put(lead)
                index += 1
            } else if lead < 0xE0 {
                put((lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F))
                index += 2
            } else if lead < 0xF0 {
                put((lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F))
                index += 3
            } else {
                let scalar =
                    (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12
                    | UInt32(utf8[index + 2] & 0x3F) << 6 | UInt32(utf8[index + 3] & 0x3F)
                let offset = scalar - 0x10000
                put(0xD800 | offset >> 10)
                put(0xDC00 | offset & 0x3FF)
                index += 4
            }
        }
        buffer.commit(markerLength + 2 * units)
    }

    /// Appends an integer the way `plistlib` sizes it: negative values as 8 signed bytes, others
    /// in 1, 2, 4 or 8 bytes, and 2^63 and above as a 16-byte integer.
    static func appendInteger(_ number: PlistInteger, to buffer: inout ByteBuffer) {
        let bits = number.bitPattern
        let start = buffer.reserve(17)
        let size: Int
        if number.isNegative || (bits >= 1 << 32 && bits < 1 << 63) {
            size = 8
        } else if bits < 1 << 8 {
            size = 1
        } else if bits < 1 << 16 {
            size = 2
        } else if bits < 1 << 32 {
            size = 4
        } else {
            start.storeBytes(of: 0x14, as: UInt8.self)
            storeBigEndian(0, size: 8, at: start + 1)
            storeBigEndian(bits, size: 8, at: start + 9)
            buffer.commit(17)
            return
        }
        start.storeBytes(of: 0x10 | UInt8(size.trailingZeroBitCount), as: UInt8.self)
        storeBigEndian(bits, size: size, at: start + 1)
        buffer.commit(1 + size)
    }

    /// Appends a real (`0x23`) or a date (`0x33`): the marker and 8 big-endian bytes.
    static func appendDouble(_ value: Double, marker: UInt8, to buffer: inout ByteBuffer) {
        let start = buffer.reserve(9)
        start.storeBytes(of: marker, as: UInt8.self)
        storeBigEndian(value.bitPattern, size: 8, at: start + 1)
        buffer.commit(9)
    }

    /// Appends data: `0x4n` (with the count) and the bytes.
    static func appendData(_ data: [UInt8], to buffer: inout ByteBuffer) {
        let start = buffer.reserve(maximumMarkerLength + data.count)
        let markerLength = storeMarker(0x40, count: data.count, at: start)
        data.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress {
                (start + markerLength).copyMemory(from: source, byteCount: bytes.count)
            }
        }
        buffer.commit(markerLength + data.count)
    }

    /// Appends a UID in 1, 2, 4 or 8 bytes (`0x80`, `0x81`, `0x83`, `0x87`).
    static func appendUID(_ number: UInt64, to buffer: inout ByteBuffer) {
        let size = number < 1 << 8 ? 1 : number < 1 << 16 ? 2 : number < 1 << 32 ? 4 : 8
        let start = buffer.reserve(1 + size)
        start.storeBytes(of: 0x80 | UInt8(size - 1), as: UInt8.self)
        storeBigEndian(number, size: size, at: start + 1)
        buffer.commit(1 + size)
    }

    /// Appends a one-byte object: a boolean or null.
    static func appendByte(_ byte: UInt8, to buffer: inout ByteBuffer) {
        buffer.reserve(1).storeBytes(of: byte, as: UInt8.self)
        buffer.commit(1)
    }

    /// Stores a marker whose low nibble holds `count`, or `0xF` followed by an integer object of
    /// 1, 2, 4 or 8 bytes (`plistlib`'s `_write_size`); returns the bytes written.
    @inline(__always)
    static func storeMarker(_ token: UInt8, count: Int, at pointer: UnsafeMutableRawPointer) -> Int {
        if count < 15 {
            pointer.storeBytes(of: token | UInt8(truncatingIfNeeded: count), as: UInt8.self)
            return 1
        }
        let size = ObjectTable.byteWidth(forCount: count)
        pointer.storeBytes(of: token | 0x0F, as: UInt8.self)
        pointer.storeBytes(of: 0x10 | UInt8(size.trailingZeroBitCount), toByteOffset: 1, as: UInt8.self)
        storeBigEndian(UInt64(count), size: size, at: pointer + 2)
        return 2 + size
    }

    /// Stores the low `size` (1, 2, 4 or 8) bytes of `value`, most significant first.
    @inline(__always)
    static func storeBigEndian(_ value: UInt64, size: Int, at pointer: UnsafeMutableRawPointer) {
        switch size {
        case 1: pointer.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2: pointer.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: pointer.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        default: pointer.storeBytes(of: value.bigEndian, as: UInt64.self)
        }
    }
}
