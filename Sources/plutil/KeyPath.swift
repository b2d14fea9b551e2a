import PrefsPlist

/// A `plutil` key path: components separated by `.`, with `\.` for a dot inside a key and `\\` for a
/// backslash. A component selects a dictionary key, or an array index when the value there is an array.
struct KeyPath: Equatable, CustomStringConvertible {
    let components: [String]
    let text: String

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

    var description: String { text }

    /// The value at this path, or `nil` when a component does not resolve.
    func value(in root: PlistValue) -> PlistValue? {
        var current = root
        for component in components {
            switch current {
            case .dictionary(let entries):
                guard let next = entries[component] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(component), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}
