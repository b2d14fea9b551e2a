// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// A cursor over the command line, with the readers of arguments that several verbs share.
package struct ArgumentReader {
    /// The arguments, without the program name.
    let arguments: [String]
    /// The index of the next argument.
    var cursor = 0

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// True when every argument has been read.
    var isAtEnd: Bool { cursor >= arguments.count }
    /// How many arguments are left.
    var remaining: Int { max(0, arguments.count - cursor) }

    /// The next argument, without reading it.
    func peek() -> String? {
        isAtEnd ? nil : arguments[cursor]
    }

    /// Reads the next argument.
    mutating func next() -> String? {
        guard let argument = peek() else { return nil }
        cursor += 1
        return argument
    }

    /// Reads a domain (see ``DomainSelector/parse(_:cursor:)``).
    mutating func domain() throws(DefaultsError) -> DomainSelector {
        try DomainSelector.parse(arguments, cursor: &cursor)
    }

    /// A key, or `-keypath <path>`; `nil` at the end when the key is optional.
    mutating func key(required: Bool) throws(DefaultsError) -> PlistKeyPath? {
        guard let text = next() else {
            if required { throw .usage("a key is missing") }
            return nil
        }
        guard text == PlistKeyPath.optionName else { return PlistKeyPath(key: text) }
        guard let text = next() else { throw .usage("\(PlistKeyPath.optionName) needs a key path") }
        let path = PlistKeyPath(text)
        // Deeper paths could never be stored; refusing them here also bounds the recursion that follows them.
        guard path.components.count <= PlistKeyPath.maxComponents else {
            throw DefaultsError(
                .invalidArgument,
                "defaults: the key path has \(path.components.count) components; values nest at most "
                    + "\(PlistKeyPath.maxComponents - 1) deep (maxDepth = \(StoreLimits.default.maxDepth))")
        }
        return path
    }

    /// `-format <format>` right after the verb.
    mutating func formatOption() throws(DefaultsError) -> OutputFormat? {
        guard peek() == Verb.formatOptionName else { return nil }
        cursor += 1
        guard let name = next(), let format = OutputFormat(rawValue: name) else {
            throw .usage("-format takes openstep, xml, json or binary")
        }
        return format
    }

    /// Fails with a usage error when arguments are left (macOS ignores some; here they are always an error).
    func expectEnd() throws(DefaultsError) {
        if let extra = peek() { throw .usage("unexpected argument '\(extra)'") }
    }
}
