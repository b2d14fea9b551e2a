// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import PrefsStore

/// The key changes an update turns into events and pending writes: changed, added and removed keys, sorted by their
/// bytes, and nothing for a key whose value stayed.
@Suite struct UpdateChangesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let old: PlistDictionary
        let new: PlistDictionary
        let expected: [(String, PlistValue?)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing changed", old: ["a": 1, "b": "x"], new: ["a": 1, "b": "x"], expected: []),
        Case(name: "one value changed", old: ["a": 1, "b": 2], new: ["a": 1, "b": 3], expected: [("b", 3)]),
        Case(name: "a key added", old: ["a": 1], new: ["a": 1, "b": 2], expected: [("b", 2)]),
        Case(name: "a key removed", old: ["a": 1, "b": 2], new: ["a": 1], expected: [("b", nil)]),
        Case(
            name: "one key removed and another added (same count)", old: ["a": 1, "b": 2], new: ["a": 1, "c": 3],
            expected: [("b", nil), ("c", 3)]),
        Case(name: "everything removed", old: ["b": 2, "a": 1], new: [:], expected: [("a", nil), ("b", nil)]),
        Case(name: "from nothing", old: [:], new: ["z": 1, "A": 2], expected: [("A", 2), ("z", 1)]),
        Case(
            name: "keys equal as strings, distinct as bytes", old: ["caf\u{E9}": 1], new: ["cafe\u{301}": 1],
            expected: [("cafe\u{301}", 1), ("caf\u{E9}", nil)]),
    ]

    @Test(arguments: cases)
    func changesAreTheDifferenceInByteOrder(_ testCase: Case) {
        let changes = PreferencesStore.changes(from: testCase.old, to: testCase.new)
        #expect(changes.map { Array($0.key.utf8) } == testCase.expected.map { Array($0.0.utf8) })
        #expect(changes.map(\.value) == testCase.expected.map(\.1))
    }
}
