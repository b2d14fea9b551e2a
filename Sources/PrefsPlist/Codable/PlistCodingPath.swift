// SPDX-License-Identifier: Apache-2.0
/// Where a value sits inside the value being encoded, decoded or written, as a list linked towards
/// the root.
///
/// Nesting one level costs one small allocation instead of copying a `[CodingKey]` array, and the
/// `[CodingKey]` form or the `a.b[2]` text is built only when someone asks (an error, usually).
indirect enum PlistCodingPath: Sendable {
    /// The top-level value.
    case root
    /// The value under `key` in the dictionary at `parent`.
    case key(any CodingKey, parent: PlistCodingPath)
    /// The element at `index` in the array at `parent`.
    case index(Int, parent: PlistCodingPath)

    /// The path a `[CodingKey]` spells; `Index n` keys (as Foundation's coders and this one name
    /// array positions) become array positions again.
    init(codingKeys: [any CodingKey]) {
        self = codingKeys.reduce(PlistCodingPath.root) { path, key in
            if let index = key.intValue, key.stringValue == "Index \(index)" { return path.appending(index: index) }
            return path.appending(key: key)
        }
    }

    /// The path one dictionary key further down.
    func appending(key: some CodingKey) -> PlistCodingPath {
        .key(key, parent: self)
    }

    /// The path one key further down, for a key given as text.
    func appending(key: String) -> PlistCodingPath {
        .key(PlistCodingKey(stringValue: key), parent: self)
    }

    /// The path one array element further down.
    func appending(index: Int) -> PlistCodingPath {
        .index(index, parent: self)
    }

    /// The path as Codable spells it; array positions become `Index n` keys, as Foundation's coders do.
    var codingKeys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(PlistCodingKey(index: index))
                node = parent
            }
        }
    }

    /// The path as text: keys joined by `.`, array positions as `[n]`, empty for the top level.
    var text: String {
        var components: [String] = []
        var node = self
        loop: while true {
            switch node {
            case .root:
                break loop
            case .key(let key, let parent):
                components.append(key.stringValue)
                node = parent
            case .index(let index, let parent):
                components.append("[\(index)]")
                node = parent
            }
        }
        var text = ""
        for component in components.reversed() {
            if !text.isEmpty, !component.hasPrefix("[") { text += "." }
            text += component
        }
        return text
    }

    /// The error position naming this path.
    var position: PlistError.Position { .codingPath(text) }
}

/// A coding key made at run time: dictionary keys read from a value, array positions, `super`.
struct PlistCodingKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key Foundation's coders use for an array position.
    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    /// The key `superEncoder()` and `superDecoder()` use.
    static let `super` = PlistCodingKey(stringValue: "super")
}
