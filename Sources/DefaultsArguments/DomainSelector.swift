// SPDX-License-Identifier: Apache-2.0
/// A domain as the command line names it.
package enum DomainSelector: Sendable, Hashable {
    /// `-g`, `-globalDomain`, `NSGlobalDomain` or `Apple Global Domain`.
    case global
    /// A domain name such as `com.example.App`.
    case name(String)
    /// A file path (any argument containing `/`), with or without `.plist`.
    case path(String)
    /// `-app <name>`, which names a macOS application bundle.
    case application(String)

    /// Reads a domain argument; `-app` takes the argument after it, so `cursor` may move by two.
    /// - Throws: ``DefaultsError`` (usage) when `-app` has no name after it.
    static func parse(_ arguments: [String], cursor: inout Int) throws(DefaultsError) -> DomainSelector {
        guard cursor < arguments.count else { throw .usage("a domain is missing") }
        let text = arguments[cursor]
        cursor += 1
        switch text {
        case "-g", "-globalDomain", "NSGlobalDomain", "Apple Global Domain":
            return .global
        case "-app":
            guard cursor < arguments.count else { throw .usage("-app needs an application name") }
            cursor += 1
            return .application(arguments[cursor - 1])
        default:
            return text.contains("/") ? .path(text) : .name(text)
        }
    }
}
