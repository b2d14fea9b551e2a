// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// Ways the fuzz targets cut one input into the parts they need.
enum FuzzInput {
    /// The limits for a property list read from fuzz input, as the reader harnesses use them.
    static let plistLimits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 128, maxObjectCount: 100_000)

    /// The input split at every NUL byte, each part read as UTF-8 with invalid bytes replaced, as
    /// `CommandLine.arguments` reads a command line.
    static func arguments(_ input: UnsafeRawBufferPointer) -> [String] {
        input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The input before its first NUL byte, and the bytes after it (empty when there is no NUL).
    static func splitAtFirstNUL(
        _ input: UnsafeRawBufferPointer
    ) -> (head: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer) {
        guard let nul = input.firstIndex(of: 0) else {
            return (input, UnsafeRawBufferPointer(rebasing: input[input.endIndex...]))
        }
        return (UnsafeRawBufferPointer(rebasing: input[..<nul]), UnsafeRawBufferPointer(rebasing: input[(nul + 1)...]))
    }

    /// A property list read from bytes in any format, or `nil` when they are not one.
    static func plist(_ bytes: UnsafeRawBufferPointer) -> PlistValue? {
        try? PlistSerialization.decode(bytes, format: nil, limits: plistLimits).value
    }

    /// Whether a value has only the types OpenStep text holds: strings, data, arrays and dictionaries.
    static func isOpenStepOnly(_ value: PlistValue) -> Bool {
        switch value {
        case .string, .data: true
        case .array(let elements): elements.allSatisfy(isOpenStepOnly)
        case .dictionary(let entries): entries.values.allSatisfy(isOpenStepOnly)
        default: false
        }
    }

    /// Whether the binary format gives back exactly this value, as it must for any value.
    static func survivesBinary(_ value: PlistValue) -> Bool {
        guard let bytes = try? PlistSerialization.encode(value, format: .binary),
            let again = try? PlistSerialization.decode(bytes, format: .binary).value
        else { return false }
        return again == value
    }
}
