// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// A key's whole value as an outline: one line per element, nested arrays and dictionaries folded and unfoldable,
/// and edits of one element by its path.
enum ValueOutline {
    /// One step into a container: an array index or a dictionary key.
    enum Step: Hashable, Sendable {
        case index(Int)
        case key(String)
    }

    /// One line of the outline.
    struct Line: Sendable {
        let path: [Step]
        let value: PlistValue
        var depth: Int { path.count }
        var isContainer: Bool {
            switch value {
            case .array, .dictionary: true
            default: false
            }
        }
        let isFolded: Bool

        /// `[2]`, `name`, or `value` for the whole value.
        var label: String {
            switch path.last {
            case .index(let index): "[\(index)]"
            case .key(let key): key
            case nil: "value"
            }
        }
    }

    /// The lines of `value`: containers deeper than the first level start folded; a path in `toggled` flips that.
    static func lines(of value: PlistValue, toggled: Set<[Step]>) -> [Line] {
        var lines: [Line] = []
        func visit(_ value: PlistValue, _ path: [Step]) {
            let folded = (path.count >= 2) != toggled.contains(path)
            let line = Line(path: path, value: value, isFolded: folded)
            lines.append(line)
            guard line.isContainer, !folded else { return }
            switch value {
            case .array(let items):
                for (index, item) in items.enumerated() { visit(item, path + [.index(index)]) }
            case .dictionary(let entries):
                for key in entries.keys.sorted() { visit(entries[key]!, path + [.key(key)]) }
            default: break
            }
        }
        visit(value, [])
        return lines
    }

    /// The value with the element at `path` replaced by `new`, or removed when `new` is `nil`; `nil` when the path
    /// names nothing.
    static func replacing(_ path: ArraySlice<Step>, in value: PlistValue, with new: PlistValue?) -> PlistValue?? {
        guard let step = path.first else { return .some(new) }
        switch (value, step) {
        case (.array(var items), .index(let index)) where items.indices.contains(index):
            guard let inner = replacing(path.dropFirst(), in: items[index], with: new) else { return nil }
            if let inner { items[index] = inner } else { items.remove(at: index) }
            return .some(.array(items))
        case (.dictionary(var entries), .key(let key)):
            guard let current = entries[key], let inner = replacing(path.dropFirst(), in: current, with: new) else {
                return nil
            }
            entries[key] = inner
            return .some(.dictionary(entries))
        default:
            return nil
        }
    }

    /// The value with `item` added to the container at `path`: appended to an array, or under `key` in a
    /// dictionary; `nil` when the path names no container (or a dictionary's key is missing or taken).
    static func adding(_ item: PlistValue, key: String?, to path: [Step], in value: PlistValue) -> PlistValue? {
        guard let container = element(at: path[...], in: value) else { return nil }
        let grown: PlistValue
        switch container {
        case .array(let items): grown = .array(items + [item])
        case .dictionary(var entries):
            guard let key, entries[key] == nil else { return nil }
            entries[key] = item
            grown = .dictionary(entries)
        default: return nil
        }
        guard case .some(.some(let result)) = replacing(path[...], in: value, with: grown) else { return nil }
        return result
    }

    /// The element at `path`.
    static func element(at path: ArraySlice<Step>, in value: PlistValue) -> PlistValue? {
        guard let step = path.first else { return value }
        switch (value, step) {
        case (.array(let items), .index(let index)) where items.indices.contains(index):
            return element(at: path.dropFirst(), in: items[index])
        case (.dictionary(let entries), .key(let key)):
            return entries[key].flatMap { element(at: path.dropFirst(), in: $0) }
        default: return nil
        }
    }
}
