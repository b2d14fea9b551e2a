// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// How the store turns domain files into dictionaries and back.
///
/// Files are written as XML, which people can edit by hand, unless a value cannot be written as XML (a string
/// with control characters, a null): then that domain is written as binary. Any format is read.
struct StoreCodec: Sendable {
    /// Decodes a file of any format.
    var decode: @Sendable ([UInt8], PlistLimits) throws -> PlistValue
    /// Encodes a domain for writing.
    var encode: @Sendable (PlistValue) throws -> [UInt8]

    /// The codecs of `PrefsPlist`: any format in, XML out (binary when XML cannot hold a value).
    static let standard = StoreCodec(
        decode: { bytes, limits in try PlistSerialization.decode(bytes, limits: limits) },
        encode: { value in
            do {
                return try PlistSerialization.encode(value, format: .xml)
            } catch let error as PlistError where error.code == .unrepresentable {
                return try PlistSerialization.encode(value, format: .binary)
            }
        })
}
