import PrefsPlist

/// The volatile argument domain: `-key value` pairs from the command line, as `UserDefaults` reads them.
public enum ArgumentDomain {
    /// Collects `-key value` pairs from command-line arguments.
    ///
    /// Each argument that starts with `-` (and is more than `-`) names a key; the argument after it is its value,
    /// read as a property list (OpenStep text such as `(a, b)` or `{ k = v; }`, XML, JSON) when it parses as one,
    /// else kept as the string given. A later pair for the same key wins. Arguments that are not part of a pair
    /// are ignored, as is everything after `--`.
    /// - Parameter arguments: The arguments, without the program name.
    /// - Returns: The argument domain's values.
    public static func parse(_ arguments: [String]) -> [String: PlistValue] {
        var values: [String: PlistValue] = [:]
        var index = 0
        while index + 1 < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.utf8.count > 1 else {
                index += 1
                continue
            }
            values[String(argument.dropFirst())] = value(of: arguments[index + 1])
            index += 2
        }
        return values
    }

    /// A command-line value as a property list when it parses as one, else as a string.
    static func value(of text: String) -> PlistValue {
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 64, maxObjectCount: 1 << 16)
        guard let parsed = try? PlistSerialization.decode(Array(text.utf8), limits: limits) else {
            return .string(text)
        }
        return parsed
    }
}
