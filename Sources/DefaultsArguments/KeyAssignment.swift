// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// One key (or key path) and the value `write` gives it.
package struct KeyAssignment: Sendable, Hashable {
    /// How the value combines with the key's current value.
    package enum Mode: Sendable, Hashable {
        /// Replaces it.
        case set
        /// Appends to the current array (`-array-add`); creates the key when absent.
        case arrayAdd
        /// Adds entries to the current dictionary (`-dict-add`), replacing equal keys; creates the key when absent.
        case dictionaryAdd
    }

    /// The key, or the path into nested values (`-keypath`).
    package var key: PlistKeyPath
    /// The value parsed from the arguments.
    package var value: PlistValue
    /// How it combines with the current value.
    package var mode: Mode

    /// Applies the assignment to a domain's values, as `write` does: sets the key path to the value combined with
    /// the one there now.
    /// - Parameters:
    ///   - values: The domain's values, changed in place; unchanged when this throws.
    ///   - domainName: The domain, for messages.
    /// - Throws: ``DefaultsError`` with code `.invalidValue` when the value does not combine with the current one,
    ///   or the key path goes through a value that is not a container or names an array element that does not
    ///   exist.
    package func apply(to values: inout PlistDictionary, domainName: String) throws(DefaultsError) {
        let combined = try combined(with: key.value(in: values))
        try key.set(combined, in: &values, domainName: domainName)
    }

    /// The key's new value given its current one.
    /// - Throws: ``DefaultsError`` with macOS's message when `-array-add` or `-dict-add` meets a value of another
    ///   type.
    package func combined(with current: PlistValue?) throws(DefaultsError) -> PlistValue {
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
