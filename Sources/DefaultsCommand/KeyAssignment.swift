import PrefsPlist

/// One key (or key path) and the value `write` gives it.
struct KeyAssignment: Sendable, Hashable {
    /// How the value combines with the key's current value.
    enum Mode: Sendable, Hashable {
        /// Replaces it.
        case set
        /// Appends to the current array (`-array-add`); creates the key when absent.
        case arrayAdd
        /// Adds entries to the current dictionary (`-dict-add`), replacing equal keys; creates the key when absent.
        case dictionaryAdd
    }

    /// The key, or the path into nested values (`-keypath`).
    var key: PlistKeyPath
    /// The value parsed from the arguments.
    var value: PlistValue
    /// How it combines with the current value.
    var mode: Mode

    /// The key's new value given its current one.
    /// - Throws: ``DefaultsError`` with macOS's message when `-array-add` or `-dict-add` meets a value of another
    ///   type.
    func combined(with current: PlistValue?) throws(DefaultsError) -> PlistValue {
        switch (mode, current, value) {
        case (.set, _, _), (_, nil, _):
            return value
        case (.arrayAdd, .array(let existing)?, .array(let added)):
            return .array(existing + added)
        case (.arrayAdd, _, _):
            throw DefaultsError(
                .invalidValue, "Value for key \(key) is not an array; cannot append.  Leaving defaults unchanged.")
        case (.dictionaryAdd, .dictionary(var existing)?, .dictionary(let added)):
            existing.merge(added) { _, new in new }
            return .dictionary(existing)
        case (.dictionaryAdd, _, _):
            throw DefaultsError(
                .invalidValue,
                "Value for key \(key) is not a dictionary; cannot append.  Leaving defaults unchanged.")
        }
    }
}
