// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsCommandLine

@Suite struct SpellingSuggestionTests {
    static let verbs = [
        "read", "read-type", "write", "rename", "delete", "remove", "import", "export", "domains",
        "find", "help", "watch", "explain", "fleet", "migrate", "completion", "man",
    ]

    @Test(arguments: [
        ("read", "read", 0), ("raed", "read", 1), ("red", "read", 1), ("reaad", "read", 1), ("rad", "read", 1),
        ("ab", "ba", 1), ("abc", "ca", 3), ("", "abc", 3), ("domian", "domains", 2), ("kitten", "sitting", 3),
    ])
    func distanceCountsASwapAsOneEdit(source: String, target: String, distance: Int) {
        #expect(SpellingSuggestion.distance(Array(source), Array(target), limit: 9) == distance)
        #expect(SpellingSuggestion.distance(Array(target), Array(source), limit: 9) == distance)
    }

    @Test func distanceStopsPastTheLimit() {
        #expect(SpellingSuggestion.distance(Array("abcdef"), Array("uvwxyz"), limit: 2) == 3)
        #expect(SpellingSuggestion.distance(Array("a"), Array("abcdef"), limit: 2) == 3)
    }

    @Test(arguments: [
        ("raed", "read"), ("wirte", "write"), ("delte", "delete"), ("expot", "export"), ("domian", "domains"),
        ("hlep", "help"), ("fnd", "find"), ("mna", "man"), ("completoin", "completion"), ("wach", "watch"),
        ("read-tpye", "read-type"), ("remvoe", "remove"),
    ])
    func aMisspelledVerbFindsTheVerb(typed: String, meant: String) {
        #expect(SpellingSuggestion.nearest(to: typed, among: Self.verbs) == meant)
    }

    @Test(arguments: ["frobnicate", "rd", "xyz", "", "wrt", "explode-all"])
    func aWordFarFromEveryNameFindsNone(typed: String) {
        #expect(SpellingSuggestion.nearest(to: typed, among: Self.verbs) == nil)
    }

    @Test func twoEquallyNearNamesAreNotGuessedBetween() {
        // One edit from both -o and -s: which was meant cannot be told.
        #expect(SpellingSuggestion.nearest(to: "-x", among: ["-o", "-s", "-lint"]) == nil)
        #expect(SpellingSuggestion.nearest(to: "-x", among: ["-o", "-lint"]) == "-o")
        // A nearer name wins over one further away, whichever comes first.
        #expect(SpellingSuggestion.nearest(to: "-lnit", among: ["-list", "-lint"]) == "-lint")
        #expect(SpellingSuggestion.nearest(to: "-lnit", among: ["-lint", "-list"]) == "-lint")
        #expect(SpellingSuggestion.nearest(to: "read", among: ["read", "read"]) == "read")
    }

    @Test func theClauseEndsAUsageMessage() {
        #expect(
            SpellingSuggestion.clause(for: "--sokcet", among: ["--socket", "--help"]) == "; did you mean '--socket'?")
        #expect(SpellingSuggestion.clause(for: "--bogus", among: ["--socket", "--help"]) == "")
    }
}
