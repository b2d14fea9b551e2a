// SPDX-License-Identifier: Apache-2.0
/// A path into nested property-list values: `Window.Frame.0`.
///
/// Components are separated by `.`; `\.` is a dot inside a key and `\\` a backslash (a backslash before any
/// other character stands for that character). A component selects a dictionary's key, or an array's element
/// when it is a decimal index: digits only, no sign. This is the syntax of `plutil -extract` and of
/// `defaults -keypath`.
///
/// ```swift
/// let path = PlistKeyPath("Window.Frame.0")
/// path.components            // ["Window", "Frame", "0"]
/// path.value(in: settings)   // the first element of the array at Window → Frame
/// ```
public struct PlistKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// Why ``set(_:in:)`` cannot put a value at a path.
    ///
    /// Each case names the depth of the value that blocks the path: the number of components, counted from the
    /// top, that lead to it (``PlistKeyPath/prefix(_:)`` with that depth names it).
    public enum SetFailure: Error, Hashable, Sendable {
        /// The value reached by the first `depth` components is a scalar of type `typeName` (see
        /// ``PlistValue/typeName``), which has no keys or elements to go through.
        case notAContainer(depth: Int, typeName: String)
        /// The value reached by the first `depth` components is an array of `count` elements, and the component
        /// that follows is not an index from 0 (the first element) to `count` (one past the end, to append).
        case notAnIndex(depth: Int, count: Int)
        /// The path has `count` components, more than `limit` (``PlistLimits/default``'s `maxDepth`): the value
        /// would nest deeper than any reader accepts, and setting it would recurse once per component.
        case tooDeep(count: Int, limit: Int)
    }

    /// The keys and indices, outermost first; never empty.
    public let components: [String]
    /// The path as given.
    public let text: String

    /// Parses a key path.
    ///
    /// Every text is a path: an empty text is one empty key, `a..b` has an empty key in the middle, and a
    /// backslash at the end stands for itself.
    /// - Parameter text: Components separated by `.`, with `\.` and `\\` escapes.
    public init(_ text: String) {
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
        self.init(components: components, text: text)
    }

    /// Creates a one-component path: a plain key, never split at its dots.
    /// - Parameter key: The top-level key; it is also the path's ``text``.
    public init(key: String) {
        self.init(components: [key], text: key)
    }

    private init(components: [String], text: String) {
        self.components = components
        self.text = text
    }

    /// The first component: the key of the top-level dictionary that the path starts at.
    public var topLevelKey: String { components[0] }

    /// The path as given (``text``).
    public var description: String { text }

    /// The path of the first components, with dots and backslashes inside keys escaped: `Window.Frame`.
    /// - Parameter count: How many components to keep, from 1 to ``components``' count.
    /// - Returns: A path whose ``text`` parses back to the same components.
    public func prefix(_ count: Int) -> PlistKeyPath {
        let kept = Array(components.prefix(count))
        let text = kept.map(Self.escaped).joined(separator: ".")
        return PlistKeyPath(components: kept, text: text)
    }

    /// A key as one component of a path's text: a backslash before each dot and backslash.
    private static func escaped(_ key: String) -> String {
        var text = ""
        for character in key {
            if character == "\\" || character == "." { text.append("\\") }
            text.append(character)
        }
        return text
    }

    /// The value at this path under a root value.
    /// - Parameter root: The value the first component selects from: a dictionary, or an array.
    /// - Returns: The value, or `nil` when a component does not resolve.
    public func value(in root: PlistValue) -> PlistValue? {
        value(below: root, from: 0)
    }

    /// The value at this path in a top-level dictionary, such as a preferences domain.
    /// - Parameter dictionary: The dictionary the first component (``topLevelKey``) selects from.
    /// - Returns: The value, or `nil` when a component does not resolve.
    public func value(in dictionary: PlistDictionary) -> PlistValue? {
        guard let top = dictionary[topLevelKey] else { return nil }
        return value(below: top, from: 1)
    }

    /// Sets the value at this path in a top-level dictionary, creating missing dictionaries on the way (as
    /// `mkdir -p` does).
    ///
    /// A dictionary's key is added or replaced; an array's element is replaced by its index, and the index one
    /// past the end appends. On failure the dictionary is left unchanged.
    /// - Parameters:
    ///   - value: The new value.
    ///   - dictionary: The top-level dictionary, changed in place.
    /// - Throws: ``SetFailure`` when a component goes through a scalar or names an array element that does not
    ///   exist, or the path has more components than ``PlistLimits/default``'s `maxDepth`.
    public func set(_ value: PlistValue, in dictionary: inout PlistDictionary) throws(SetFailure) {
        let limit = PlistLimits.default.maxDepth
        guard components.count <= limit else { throw .tooDeep(count: components.count, limit: limit) }
        dictionary[topLevelKey] = try setting(value, in: dictionary[topLevelKey], at: 1)
    }

    /// Removes the value at this path from a top-level dictionary; removing an array's element moves the
    /// elements after it up.
    /// - Parameter dictionary: The top-level dictionary, changed in place.
    /// - Returns: Whether there was a value to remove.
    public func remove(from dictionary: inout PlistDictionary) -> Bool {
        guard let top = dictionary[topLevelKey] else { return false }
        if components.count == 1 {
            dictionary[topLevelKey] = nil
            return true
        }
        guard let updated = removing(from: top, at: 1) else { return false }
        dictionary[topLevelKey] = updated
        return true
    }

    /// A component as an array index.
    /// - Parameter component: A key-path component.
    /// - Returns: The index when the component is decimal digits only (no sign), else `nil`.
    public static func index(_ component: String) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(component)
    }

    /// The value that the components from `position` on select below `root`.
    private func value(below root: PlistValue, from position: Int) -> PlistValue? {
        var current = root
        for component in components[position...] {
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

    /// `slot` with the value set below it, the components before `position` having led to it.
    private func setting(_ value: PlistValue, in slot: PlistValue?, at position: Int) throws(SetFailure) -> PlistValue {
        guard position < components.count else { return value }
        let component = components[position]
        switch slot {
        case nil:
            return .dictionary([component: try setting(value, in: nil, at: position + 1)])
        case .dictionary(var entries)?:
            entries[component] = try setting(value, in: entries[component], at: position + 1)
            return .dictionary(entries)
        case .array(var elements)?:
            guard let index = Self.index(component), index <= elements.count else {
                throw .notAnIndex(depth: position, count: elements.count)
            }
            let existing = index < elements.count ? elements[index] : nil
            let element = try setting(value, in: existing, at: position + 1)
            if index < elements.count { elements[index] = element } else { elements.append(element) }
            return .array(elements)
        case let scalar?:
            throw .notAContainer(depth: position, typeName: scalar.typeName)
        }
    }

    /// `container` without the value that the components from `position` on select, or `nil` when there is none.
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
}

extension PlistKeyPath {
    /// Paths are equal when their components are, byte for byte (as keys are: see ``PlistKey``).
    public static func == (lhs: PlistKeyPath, rhs: PlistKeyPath) -> Bool {
        lhs.components.count == rhs.components.count
            && zip(lhs.components, rhs.components).allSatisfy { PlistKey($0) == PlistKey($1) }
    }

    public func hash(into hasher: inout Hasher) {
        for component in components { hasher.combine(PlistKey(component)) }
    }
}
