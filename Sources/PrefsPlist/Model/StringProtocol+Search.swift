// SPDX-License-Identifier: Apache-2.0

extension StringProtocol {
    /// Whether `other` occurs in this text, character by character (canonically equivalent characters match), as
    /// Foundation's `contains(_:)` answers.
    ///
    /// The modules use this one so that no executable links `_StringProcessing` and its regular-expression parser,
    /// 1.2 MB of each executable for this one call (docs/PACKAGING.md, "Linking and start-up").
    ///
    /// - Parameter other: The text to look for; an empty one is never found, as in Foundation (the `contains(_:)` of
    ///   `_StringProcessing` finds it everywhere).
    /// - Returns: `true` when `other`'s characters occur in this text, one after another.
    package func containsText(_ other: some StringProtocol) -> Bool {
        guard let first = other.first else { return false }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: first) {
            var position = candidate
            var matched = true
            for character in other {
                guard position != endIndex, self[position] == character else {
                    matched = false
                    break
                }
                formIndex(after: &position)
            }
            if matched { return true }
            start = index(after: candidate)
        }
        return false
    }
}
