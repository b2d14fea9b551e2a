import PrefsPlist
import PrefsStore

/// A path into nested values, given with `-keypath`: `Window.Frame.0`.
///
/// Components are separated by `.`; `\.` is a dot inside a key and `\\` a backslash, as in `plutil`. A component
/// selects a dictionary's key, or an element of an array when it is a decimal index. A plain key (without
/// `-keypath`) is never split, so keys that contain dots keep working unchanged.
struct KeyPath: Hashable, Sendable, CustomStringConvertible {
    /// The option that introduces a key path where a key goes.
    static let optionName = "-keypath"
    /// The most components a key path may have: one per level the store accepts, plus the top-level key.
    static let maxComponents = StoreLimits.default.maxDepth + 1

    /// The keys and indices, outermost first; never empty.
    let components: [String]
    /// The path as given.
    let text: String

    /// Parses a key path.
    /// - Parameter text: Components separated by `.`, with `\.` and `\\` escapes.
    init(_ text: String) {
        self.text = text
        var components: [String] = []
        var current = ""
        var escaping = false
        for character in text {
            if escaping {
                current.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaping { current.append("\\") }
        components.append(current)
        self.components = components
    }

    /// Creates a one-component path: a plain key.
    init(key: String) {
        self.text = key
        self.components = [key]
    }

    /// The top-level key of the domain that the path starts at.
    var topLevelKey: String { components[0] }

    var description: String { text }

    /// The value at this path in a domain, or `nil` when a component does not resolve.
    func value(in domain: [String: PlistValue]) -> PlistValue? {
        guard var current = domain[topLevelKey] else { return nil }
        for component in components.dropFirst() {
            switch current {
            case .dictionary(let entries):
                guard let next = entries[component] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Self.index(component), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Sets the value at this path, creating missing dictionaries on the way (as `mkdir -p` does).
    ///
    /// An array element is replaced by its index; the index one past the end appends.
    /// - Parameters:
    ///   - value: The new value.
    ///   - domain: The domain's values, changed in place.
    ///   - domainName: The domain, for messages.
    /// - Throws: ``DefaultsError`` with code `.invalidValue` when a component goes through a value that is not a
    ///   container, or names an array element that does not exist.
    func set(_ value: PlistValue, in domain: inout [String: PlistValue], domainName: String) throws(DefaultsError) {
        let replaced = try setting(value, in: domain[topLevelKey], at: 1, domainName: domainName)
        domain[topLevelKey] = replaced
    }

    /// Removes the value at this path.
    /// - Returns: Whether there was a value to remove.
    func remove(from domain: inout [String: PlistValue]) -> Bool {
        guard let top = domain[topLevelKey] else { return false }
        if components.count == 1 {
            domain[topLevelKey] = nil
            return true
        }
        guard let updated = removing(from: top, at: 1) else { return false }
        domain[topLevelKey] = updated
        return true
    }

    private func setting(
        _ value: PlistValue, in container: PlistValue?, at position: Int, domainName: String
    ) throws(DefaultsError) -> PlistValue {
        guard position < components.count else { return value }
        let component = components[position]
        switch container {
        case nil:
            return .dictionary([component: try setting(value, in: nil, at: position + 1, domainName: domainName)])
        case .dictionary(var entries)?:
            entries[component] = try setting(value, in: entries[component], at: position + 1, domainName: domainName)
            return .dictionary(entries)
        case .array(var elements)?:
            guard let index = Self.index(component), index <= elements.count else {
                throw DefaultsError(
                    .invalidValue,
                    "defaults: cannot write key path \(text) in domain \(domainName): \(prefix(position)) is an array "
                        + "of \(elements.count) elements, and \(component) is not an index from 0 to \(elements.count)"
                )
            }
            let existing = index < elements.count ? elements[index] : nil
            let element = try setting(value, in: existing, at: position + 1, domainName: domainName)
            if index < elements.count { elements[index] = element } else { elements.append(element) }
            return .array(elements)
        case let scalar?:
            throw DefaultsError(
                .invalidValue,
                "defaults: cannot write key path \(text) in domain \(domainName): \(prefix(position)) is a "
                    + "\(scalar.typeName), not a dictionary or an array")
        }
    }

    private func removing(from container: PlistValue, at position: Int) -> PlistValue? {
        let component = components[position]
        let isLast = position == components.count - 1
        switch container {
        case .dictionary(var entries):
            guard let child = entries[component] else { return nil }
            if isLast {
                entries[component] = nil
            } else {
                guard let updated = removing(from: child, at: position + 1) else { return nil }
                entries[component] = updated
            }
            return .dictionary(entries)
        case .array(var elements):
            guard let index = Self.index(component), elements.indices.contains(index) else { return nil }
            if isLast {
                elements.remove(at: index)
            } else {
                guard let updated = removing(from: elements[index], at: position + 1) else { return nil }
                elements[index] = updated
            }
            return .array(elements)
        default:
            return nil
        }
    }

    /// The path up to (not including) a component, for messages: `Window.Frame`.
    private func prefix(_ count: Int) -> String {
        components.prefix(count).map { $0.replacing("\\", with: "\\\\").replacing(".", with: "\\.") }
            .joined(separator: ".")
    }

    /// A component as an array index: decimal digits only, no sign.
    private static func index(_ component: String) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(component)
    }
}
