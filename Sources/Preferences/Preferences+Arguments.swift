// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension Preferences {
    /// Parses `-key value` pairs from command-line arguments into an argument domain, strictly.
    ///
    /// - Arguments are read in pairs, `-key value`, up to the end or to `--` (what follows `--` is left to the
    ///   application). A later pair for the same key wins.
    /// - A value that starts with `(`, `{`, `[`, `<` or `"` is a property list (OpenStep such as `(a, b)` or
    ///   `{ k = v; }`, JSON, or XML such as `<integer>5</integer>`) and must parse as one. Any other value is the
    ///   string given, as is: `-Name "Ada Lovelace"` is the string `Ada Lovelace`, `-Size 12` the string `12`
    ///   (which the integer getter reads as 12).
    /// - Anything else is an error, never a guess: an argument where a `-key` is expected that does not start with
    ///   `-` (or is `-` alone), a key without a value, a value that looks like a property list but does not parse.
    ///
    /// - Parameter arguments: The arguments, without the program name.
    /// - Returns: The argument domain's keys and values.
    /// - Throws: ``PreferencesError`` with code `invalidArgument`, naming the argument, its position and the
    ///   problem.
    public static func parseArguments(_ arguments: [String]) throws(PreferencesError) -> PlistDictionary {
        var values: PlistDictionary = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.utf8.count > 1 else {
                throw PreferencesError(
                    .invalidArgument,
                    "argument \(index + 1) \(quoted(argument)) is not a -key: arguments must be -key value pairs "
                        + "(put other arguments after --)")
            }
            let key = String(argument.dropFirst())
            guard index + 1 < arguments.count, arguments[index + 1] != "--" else {
                throw PreferencesError(.invalidArgument, "argument \(index + 1) \(quoted(argument)) has no value")
            }
            values[key] = try argumentValue(arguments[index + 1], key: key, position: index + 2)
            index += 2
        }
        return values
    }

    /// A value: a property list when it starts like one, else the string as given.
    private static func argumentValue(
        _ text: String, key: String, position: Int
    ) throws(PreferencesError)
        -> PlistValue
    {
        let structural: Set<Character> = ["(", "{", "[", "<", "\""]
        guard let first = text.first(where: { !$0.isWhitespace }), structural.contains(first) else {
            return .string(text)
        }
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 64, maxObjectCount: 1 << 16)
        do {
            return try PlistSerialization.decode(Array(text.utf8), limits: limits)
        } catch {
            if first == "<", let fragment = try? xmlFragment(text, limits: limits) { return fragment }
            throw PreferencesError(
                .invalidArgument,
                "argument \(position), the value of -\(key), starts like a property list but does not parse as one",
                cause: error)
        }
    }

    /// An XML value without the document around it (`<integer>5</integer>`), as Apple's argument domain takes it.
    private static func xmlFragment(_ text: String, limits: PlistLimits) throws -> PlistValue {
        let document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">\(text)</plist>"
        return try PlistSerialization.decode(Array(document.utf8), limits: limits)
    }

    /// An argument in quotes, shortened, for messages.
    private static func quoted(_ text: String) -> String {
        text.count > 60 ? "\"\(text.prefix(60))…\"" : "\"\(text)\""
    }
}
