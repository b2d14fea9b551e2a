// SPDX-License-Identifier: Apache-2.0
/// The name a user probably meant when they typed one a program does not know: `raed` for `read`, `-lnit` for
/// `-lint`, `--sokcet` for `--socket`. Usage errors of the three programs append it as `; did you mean 'read'?`.
///
/// Nearness is the optimal-string-alignment form of the Damerau–Levenshtein distance: the fewest insertions,
/// deletions, substitutions and swaps of two neighbouring characters that turn one word into the other, so that a
/// swapped pair, the commonest slip at a keyboard, counts as one edit and not two.
package enum SpellingSuggestion {
    /// The candidate nearest to `word`, or `nil` when none is near enough or two are equally near.
    ///
    /// Near enough is one edit for a word of up to three characters and two for a longer one: two edits turn almost
    /// any short word into any other (`rd` into `-p`), so a suggestion there would be a guess. A tie means the
    /// program cannot tell which was meant, so it names neither.
    /// - Parameters:
    ///   - word: What the user typed, compared as given (a caller whose names ignore case passes it lowercased).
    ///   - candidates: The names the program knows.
    package static func nearest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word)
        let limit = typed.count <= 3 ? 1 : 2
        var best: (name: String, distance: Int)?
        var isTied = false
        for candidate in candidates {
            let distance = self.distance(typed, Array(candidate), limit: limit)
            guard distance <= limit else { continue }
            if let current = best, distance >= current.distance {
                if distance == current.distance, candidate != current.name { isTied = true }
                continue
            }
            best = (candidate, distance)
            isTied = false
        }
        return isTied ? nil : best?.name
    }

    /// `; did you mean 'read'?` for the nearest candidate, or the empty string: the end of a usage message.
    /// - Parameters:
    ///   - word: What the user typed.
    ///   - candidates: The names the program knows.
    package static func clause(for word: String, among candidates: [String]) -> String {
        nearest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The distance between two words, or some number over `limit` as soon as it is certain to exceed it (words
    /// whose lengths differ by more than `limit` are not compared at all).
    static func distance(_ source: [Character], _ target: [Character], limit: Int) -> Int {
        guard abs(source.count - target.count) <= limit else { return limit + 1 }
        guard !source.isEmpty, !target.isEmpty else { return max(source.count, target.count) }
        // Three rows of the dynamic-programming table: the swap looks two rows back.
        var beforePrevious = [Int](repeating: 0, count: target.count + 1)
        var previous = Array(0...target.count)
        var current = [Int](repeating: 0, count: target.count + 1)
        for row in 1...source.count {
            current[0] = row
            var rowMinimum = row
            for column in 1...target.count {
                let substitution = source[row - 1] == target[column - 1] ? 0 : 1
                var cost = min(previous[column] + 1, current[column - 1] + 1, previous[column - 1] + substitution)
                if row > 1, column > 1, source[row - 1] == target[column - 2], source[row - 2] == target[column - 1] {
                    cost = min(cost, beforePrevious[column - 2] + 1)
                }
                current[column] = cost
                rowMinimum = min(rowMinimum, cost)
            }
            if rowMinimum > limit { return limit + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[target.count]
    }
}
