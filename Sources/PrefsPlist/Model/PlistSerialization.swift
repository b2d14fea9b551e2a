// SPDX-License-Identifier: Apache-2.0
/// Reads and writes property lists in every supported format.
///
/// Reading detects the format from the bytes: binary `bplist0?`, XML (UTF-8/16/32, with or without a
/// byte-order mark), OpenStep text, or JSON. Writing takes the format explicitly.
///
/// ```swift
/// let value = try PlistSerialization.decode(bytes)
/// let xml = try PlistSerialization.encode(value, format: .xml)
/// ```
public enum PlistSerialization {
    /// Decodes a property list in any supported format.
    /// - Parameters:
    ///   - bytes: The serialised property list.
    ///   - limits: Bounds on size, depth and object count.
    /// - Returns: The decoded value.
    /// - Throws: ``PlistError`` naming the problem and where it is.
    public static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistValue {
        try decode(bytes, format: nil, limits: limits).value
    }

    /// Decodes a property list, in the given format or (with `nil`) the detected one.
    /// - Parameters:
    ///   - bytes: The serialised property list.
    ///   - format: The format to read, or `nil` to detect it.
    ///   - limits: Bounds on size, depth and object count.
    /// - Returns: The decoded value and the format it was read as.
    /// - Throws: ``PlistError`` naming the problem and where it is.
    public static func decode(
        _ bytes: [UInt8], format: PlistFormat?, limits: PlistLimits = .default
    ) throws -> (value: PlistValue, format: PlistFormat) {
        try bytes.withUnsafeBytes { try decode($0, format: format, limits: limits) }
    }

    /// Decodes a property list from raw memory, in the given format or (with `nil`) the detected one.
    /// - Parameters:
    ///   - bytes: The serialised property list; read only during the call.
    ///   - format: The format to read, or `nil` to detect it.
    ///   - limits: Bounds on size, depth and object count.
    /// - Returns: The decoded value and the format it was read as.
    /// - Throws: ``PlistError`` naming the problem and where it is.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, format: PlistFormat?, limits: PlistLimits = .default
    ) throws -> (value: PlistValue, format: PlistFormat) {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded, "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes) bytes")
        }
        switch format ?? PlistFormat.sniff(bytes) {
        case .binary: return (try BinaryPlistReader.read(bytes, limits: limits), .binary)
        case .xml: return (try XMLPlistReader.read(bytes, limits: limits), .xml)
        case .json: return (try JSONPlistReader.read(bytes, limits: limits), .json)
        case .openStep:
            if format == .openStep { return (try OpenStepPlistReader.read(bytes, limits: limits), .openStep) }
            return try decodeOpenStepOrJSON(bytes, limits: limits)
        }
    }

    /// Text that is neither XML nor binary is OpenStep or JSON; `[` and `{"key":` can only be JSON.
    private static func decodeOpenStepOrJSON(
        _ bytes: UnsafeRawBufferPointer, limits: PlistLimits
    ) throws -> (value: PlistValue, format: PlistFormat) {
        if looksLikeJSON(bytes) { return (try JSONPlistReader.read(bytes, limits: limits), .json) }
        do {
            return (try OpenStepPlistReader.read(bytes, limits: limits), .openStep)
        } catch let openStepError {
            guard let value = try? JSONPlistReader.read(bytes, limits: limits) else { throw openStepError }
            return (value, .json)
        }
    }

    private static func looksLikeJSON(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let utf8 = TextEncodingSniffer.utf8Bytes(of: UnsafeRawBufferPointer(rebasing: bytes.prefix(4096)))
        else { return false }
        let significant = utf8.bytes.lazy.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let first = significant.first else { return false }
        if first == UInt8(ascii: "[") { return true }
        guard first == UInt8(ascii: "{") else { return false }
        // `{"key":` — OpenStep separates keys from values with `=`, never `:`.
        var sawQuote = false
        var escaped = false
        var index = 0
        for byte in significant.dropFirst() {
            index += 1
            if !sawQuote {
                guard byte == UInt8(ascii: "\"") else { return false }
                sawQuote = true
                continue
            }
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                let rest = significant.dropFirst(index + 1)
                return rest.first == UInt8(ascii: ":")
            }
        }
        return false
    }

    /// Encodes a property list.
    /// - Parameters:
    ///   - value: The value to write.
    ///   - format: The format to write.
    /// - Returns: The serialised bytes.
    /// - Throws: ``PlistError`` with code `.unrepresentable` when the format cannot hold a value in `value`
    ///   (a date in JSON, a control character in XML, null outside binary and JSON).
    public static func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] {
        switch format {
        case .xml: try XMLPlistWriter.write(value)
        case .binary: try BinaryPlistWriter.write(value)
        case .openStep: try OpenStepPlistWriter.write(value)
        case .json: try JSONPlistWriter.write(value, pretty: false)
        }
    }

    /// Encodes a property list as JSON, compact or indented.
    /// - Parameters:
    ///   - value: The value to write.
    ///   - pretty: Indent the output for people to read.
    /// - Returns: The JSON text as UTF-8.
    /// - Throws: ``PlistError`` with code `.unrepresentable` for dates, data, uids and non-finite reals.
    public static func encodeJSON(_ value: PlistValue, pretty: Bool) throws -> [UInt8] {
        try JSONPlistWriter.write(value, pretty: pretty)
    }
}
