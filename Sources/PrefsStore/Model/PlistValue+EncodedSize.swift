// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension PlistValue {
    /// An upper bound on the bytes this value takes in an XML file at `depth` tabs of indentation.
    ///
    /// It lets `set` refuse a value that would push a domain past its size limit without encoding the domain.
    func estimatedXMLSize(depth: Int) -> Int {
        let indent = depth + 1  // tabs and the newline
        switch self {
        case .string(let text): return indent + 17 + Self.escapedSize(text)
        case .integer: return indent + 19 + 20
        case .real: return indent + 13 + 32
        case .bool: return indent + 8
        case .date: return indent + 13 + 26
        case .data(let bytes):
            let base64 = (bytes.count + 2) / 3 * 4
            let lines = base64 / 36 + 1
            return 2 * (indent + 7) + base64 + lines * (indent + 1)
        case .array(let elements):
            return elements.reduce(2 * (indent + 8)) { $0 + $1.estimatedXMLSize(depth: depth + 1) }
        case .dictionary(let entries):
            return entries.reduce(2 * (indent + 7)) {
                $0 + Self.estimatedEntrySize(key: $1.key, value: $1.value, depth: depth + 1)
            }
        case .uid: return 4 * indent + 80
        case .null: return indent + 16
        }
    }

    /// An upper bound on the bytes one dictionary entry takes at `depth`: its `<key>` line and its value.
    static func estimatedEntrySize(key: String, value: PlistValue, depth: Int) -> Int {
        depth + 12 + escapedSize(key) + value.estimatedXMLSize(depth: depth)
    }

    /// The size of an XML document's header and its top-level `<dict>`.
    static let estimatedDocumentOverhead = 240

    /// The UTF-8 size of text once `&`, `<` and `>` are escaped.
    private static func escapedSize(_ text: String) -> Int {
        // Over the contiguous bytes: iterating the UTF-8 view costs several times as much per byte (`set` computes
        // this for the old and the new value of every key it changes).
        text.utf8.withContiguousStorageIfAvailable(escapedSize) ?? escapedSize(Array(text.utf8))
    }

    private static func escapedSize(_ bytes: some Collection<UInt8>) -> Int {
        var size = bytes.count
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): size += 4
            case UInt8(ascii: "<"), UInt8(ascii: ">"): size += 3
            default: break
            }
        }
        return size
    }
}
