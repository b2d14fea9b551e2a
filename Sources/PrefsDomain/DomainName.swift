// SPDX-License-Identifier: Apache-2.0
/// A validated preferences domain name, such as `com.example.Editor`.
///
/// A name is 1–216 bytes of `A–Z a–z 0–9 . _ -`, does not start with `.`, and never contains `..`,
/// so it can never be read as a path, and every file of the domain can be written (see ``maxLength``).
/// `NSGlobalDomain` names the global domain (``global``), whose file is `.GlobalPreferences.plist`; the `defaults`
/// aliases `-g` and `-globalDomain` are the command line's business, not this type's.
public struct DomainName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name as given.
    public let rawValue: String

    /// The longest name accepted, in bytes: 216, so that the longest file name a domain has, its by-host file
    /// `<name>.<32-digit machine id>.plist` (39 bytes more), fits the 255-byte limit of a file name on Linux file
    /// systems (`NAME_MAX`). Its temp files and a corrupt file set aside shorten a long name to fit as well.
    public static let maxLength = 216

    /// The global domain, `NSGlobalDomain`: searched by every application after its own domains.
    public static let global = DomainName(unchecked: "NSGlobalDomain")

    /// Validates a domain name.
    /// - Parameter rawValue: The name, such as `com.example.Editor` or `NSGlobalDomain`.
    /// - Throws: ``PrefsStoreError`` with code `.invalidDomainName`, saying which rule the name breaks.
    public init(_ rawValue: String) throws(PrefsStoreError) {
        if let problem = Self.problem(with: rawValue) {
            throw PrefsStoreError(.invalidDomainName, "invalid domain name \(Self.quoted(rawValue)): \(problem)")
        }
        self.rawValue = rawValue
    }

    /// Returns a name without validating it; only for names known to be valid.
    init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Whether `rawValue` is a valid domain name.
    public static func isValid(_ rawValue: String) -> Bool {
        problem(with: rawValue) == nil
    }

    /// True for ``global``.
    public var isGlobal: Bool { rawValue == Self.global.rawValue }

    public var description: String { rawValue }

    public static func < (lhs: DomainName, rhs: DomainName) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The rule `rawValue` breaks, or `nil` when it is a valid name.
    private static func problem(with rawValue: String) -> String? {
        let bytes = rawValue.utf8
        if bytes.isEmpty { return "a domain name cannot be empty" }
        if bytes.count > maxLength {
            return "a domain name is at most \(maxLength) bytes (so that its by-host file name fits the file system's "
                + "255-byte limit), this one has \(bytes.count)"
        }
        if bytes.first == UInt8(ascii: ".") { return "a domain name cannot start with '.'" }
        // Over the contiguous bytes rather than the UTF-8 view's iterator: every daemon request checks its domain.
        var copy = rawValue
        return copy.withUTF8 { bytes -> String? in
            var previous: UInt8 = 0
            for byte in bytes {
                if !isAllowed(byte) {
                    return "only letters A–Z and a–z, digits, '.', '_' and '-' are allowed (not a path)"
                }
                if byte == UInt8(ascii: "."), previous == UInt8(ascii: ".") {
                    return "a domain name cannot contain '..'"
                }
                previous = byte
            }
            return nil
        }
    }

    /// Whether a byte may appear in a name: `A–Z a–z 0–9 . _ -`, looked up in a 128-bit table.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        // Bits 45 '-', 46 '.', 48–57 '0'–'9' of the low word; 65–90 'A'–'Z', 95 '_', 97–122 'a'–'z' of the high one.
        let low: UInt64 = 0x03FF_6000_0000_0000
        let high: UInt64 = 0x07FF_FFFE_87FF_FFFE
        guard byte < 128 else { return false }
        return ((byte < 64 ? low : high) >> (UInt64(byte) & 63)) & 1 == 1
    }

    /// The name in quotes, shortened and with control characters escaped, for error messages.
    private static func quoted(_ rawValue: String) -> String {
        var text = ""
        for scalar in rawValue.unicodeScalars.prefix(80) {
            text += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        if rawValue.unicodeScalars.count > 80 { text += "…" }
        return "\"\(text)\""
    }
}
