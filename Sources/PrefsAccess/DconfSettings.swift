// SPDX-License-Identifier: Apache-2.0
import PrefsGVariant
package import PrefsPlist
package import PrefsStore

/// A dconf database in Preferences' terms: what `dconf dump /` printed, one domain per dconf directory, each value
/// mapped as the GSettings backend stores it (``PrefsGVariant/GVariant/plistValue(printed:)``, docs/GSETTINGS.md).
///
/// The dump is a GLib key file: a `[org/gnome/desktop/interface]` header per directory (`[/]` for the root), then
/// `key=value` lines whose values are GVariant text with type annotations. The directory
/// `/org/gnome/desktop/interface/` is the domain `org.gnome.desktop.interface`, as the backend names it; a directory
/// that names no domain (a component with a `.` or a character outside `A–Z a–z 0–9 _ -`, a name over 216 bytes)
/// is skipped, and so are keys at the root, which belong to no directory. A value that is not GVariant text is a
/// problem of its domain; the domain's other keys are still read.
package struct DconfSettings: Sendable {
    /// One dconf directory as a domain.
    package struct Domain: Sendable, Equatable {
        /// The domain, `org.gnome.desktop.interface`.
        package var name: DomainName
        /// The dconf directory, `/org/gnome/desktop/interface/`.
        package var path: String
        /// Its keys' values, mapped.
        package var values: PlistDictionary
        /// Its keys whose values could not be read, each naming the key (code `.corrupt` or `.limitExceeded`).
        package var problems: [PrefsAccessError]

        package static func == (lhs: Domain, rhs: Domain) -> Bool {
            lhs.name == rhs.name && lhs.path == rhs.path && lhs.values == rhs.values
                && lhs.problems.map(\.message) == rhs.problems.map(\.message)
        }
    }

    /// A dconf directory that is not a domain.
    package struct Skipped: Sendable, Equatable, CustomStringConvertible {
        /// The dconf directory, `/org/example/Odd.Name/`.
        package var path: String
        /// Why it names no domain.
        package var reason: String
        /// How many keys it holds.
        package var keyCount: Int

        /// `/org/example/Odd.Name/ (2 keys): component 'Odd.Name' contains '.', …`.
        package var description: String {
            "\(path) (\(keyCount) \(keyCount == 1 ? "key" : "keys")): \(reason)"
        }
    }

    /// The domains, sorted by name.
    package var domains: [Domain] = []
    /// The directories that are not domains, in the dump's order.
    package var skipped: [Skipped] = []
    /// Lines of the dump that are neither a header nor a key (none in what dconf prints).
    package var malformedLines: [PrefsAccessError] = []
    /// What `dconf dump` wrote on standard error, line by line.
    package var warnings: [String] = []

    /// Whether `dconf dump` said it left settings out: GLib's key file, which it prints through, refuses a key
    /// whose name holds `=`, `[` or `]` or starts or ends with a space, and a directory whose name holds `[`, `]` or
    /// a control character, with a warning naming `g_key_file_set_value`.
    package var omitsSettings: Bool {
        warnings.contains { $0.containsText("g_key_file_set_value") }
    }

    /// No settings.
    package init() {}

    /// Reads what `dconf dump /` printed.
    /// - Parameter dump: The key file's bytes.
    package init(dump: [UInt8]) {
        // By dconf directory, mutated in place: a directory's keys may be many.
        var domainsByPath: [String: Domain] = [:]
        var skippedByPath: [String: Skipped] = [:]
        var order: [String] = []
        var current: String?
        var lineNumber = 0
        for rawLine in dump.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            guard let text = String(validating: line, as: UTF8.self) else {
                malformedLines.append(
                    PrefsAccessError(.corrupt, "line \(lineNumber) of the dconf dump is not UTF-8, and was not read"))
                continue
            }
            if text.hasPrefix("["), text.hasSuffix("]"), text.utf8.count >= 2 {
                let name = String(text.dropFirst().dropLast())
                let path = name == "/" ? "/" : "/" + name + "/"
                current = path
                if domainsByPath[path] == nil && skippedByPath[path] == nil {
                    order.append(path)
                    switch Self.domainName(ofPath: path) {
                    case .success(let domain):
                        domainsByPath[path] = Domain(name: domain, path: path, values: [:], problems: [])
                    case .failure(let reason):
                        skippedByPath[path] = Skipped(path: path, reason: reason.message, keyCount: 0)
                    }
                }
                continue
            }
            guard let equals = text.firstIndex(of: "="), let path = current else {
                malformedLines.append(
                    PrefsAccessError(
                        .corrupt, "line \(lineNumber) of the dconf dump is neither [directory] nor key=value: \(text)"))
                continue
            }
            if skippedByPath[path] != nil {
                skippedByPath[path]!.keyCount += 1
                continue
            }
            let key = String(text[..<equals]).trimmingSpaces()
            switch Self.value(String(text[text.index(after: equals)...]), key: key, path: path) {
            case .success(let value): domainsByPath[path]!.values[key] = value
            case .failure(let problem): domainsByPath[path]!.problems.append(problem)
            }
        }
        domains = domainsByPath.values.sorted { $0.name < $1.name }
        skipped = order.compactMap { skippedByPath[$0] }
    }

    /// The domain of a name, or `nil` when the dump has no such directory.
    package func domain(named name: DomainName) -> Domain? {
        domains.first { $0.name == name }
    }

    /// The dconf directory of a domain: `org.gnome.desktop.interface` is `/org/gnome/desktop/interface/`.
    package static func path(of domain: DomainName) -> String {
        "/" + domain.rawValue.split(separator: ".", omittingEmptySubsequences: false).joined(separator: "/") + "/"
    }

    /// The domain a dconf directory names, as the GSettings backend names it (`pgs_path_to_domain`): the
    /// components joined with `.`; or why it names none.
    /// - Parameter path: A directory, starting and ending with `/`.
    package static func domainName(ofPath path: String) -> Result<DomainName, PrefsAccessError> {
        func refused(_ reason: String) -> Result<DomainName, PrefsAccessError> {
            .failure(PrefsAccessError(.invalidName, reason, path: path))
        }
        let bytes = Array(path.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "/"), bytes.last == UInt8(ascii: "/") else {
            return refused(
                bytes == [UInt8(ascii: "/")]
                    ? "keys at the root of dconf belong to no directory, so to no domain"
                    : "'\(path)' is not a dconf directory (one starts and ends with '/')")
        }
        let components = bytes.dropFirst().dropLast().split(
            separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for component in components {
            let name = String(decoding: component, as: UTF8.self)
            if component.isEmpty { return refused("it has an empty component") }
            for byte in component where !Self.isNamePart(byte) {
                if byte == UInt8(ascii: ".") {
                    return refused(
                        "component '\(name)' contains '.', which would be ambiguous in a domain name (each '/' becomes "
                            + "a '.')")
                }
                if byte >= 0x80 || byte < 0x20 {
                    let hex = String(byte, radix: 16, uppercase: false)
                    return refused(
                        "a component has byte 0x\(hex.count == 1 ? "0" + hex : hex); domain names are [A-Za-z0-9._-]")
                }
                return refused(
                    "component '\(name)' has '\(Character(Unicode.Scalar(byte)))'; domain names are [A-Za-z0-9._-]")
            }
        }
        let length = bytes.count - 2
        if length > DomainName.maxLength {
            return refused("it names a domain of \(length) bytes, longer than the store's \(DomainName.maxLength)")
        }
        let joined = components.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
        do {
            return .success(try DomainName(joined))
        } catch {
            return refused(error.description)
        }
    }

    /// `A–Z a–z 0–9 _ -`: what a component may hold.
    private static func isNamePart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// A key's value mapped, or the problem naming the key.
    static func value(_ text: String, key: String, path: String) -> Result<PlistValue, PrefsAccessError> {
        let name = path + key
        let limits = StoreLimits.default
        if key.utf8.count > limits.maxKeyBytes {
            return .failure(
                PrefsAccessError(
                    .limitExceeded,
                    "dconf key \(name.prefix(80))…: the key is \(key.utf8.count) bytes, more than a key may have "
                        + "(\(limits.maxKeyBytes))", path: name))
        }
        let value: PlistValue
        do {
            value = try GVariant.plistValue(parsing: text)
        } catch {
            let shown = text.count > 60 ? text.prefix(60) + "…" : Substring(text)
            return .failure(
                PrefsAccessError(
                    .corrupt, "dconf key \(name): its value \(shown) is not GVariant text: \(error)", path: name,
                    cause: error))
        }
        if value.depth > limits.maxDepth {
            return .failure(
                PrefsAccessError(
                    .limitExceeded,
                    "dconf key \(name): its value nests \(value.depth) deep, deeper than a value may "
                        + "(\(limits.maxDepth))", path: name))
        }
        return .success(value)
    }
}

extension String {
    /// The string without the spaces and tabs around it (GLib's key files allow them around `=`).
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
