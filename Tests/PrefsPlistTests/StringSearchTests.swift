// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import Testing

/// `containsText(_:)` answers as Foundation's `contains(_:)` does. The file imports Foundation so that `contains` is
/// Foundation's: the `_StringProcessing` one finds an empty text in every text.
@Suite struct StringSearchTests {
    @Test(arguments: [
        ("permission denied by etcd", "permission denied", true),
        ("etcdserver: mvcc: required revision has been compacted", "compacted", true),
        ("aaab", "aab", true),  // a partial match (the first "aa") does not hide the one after it
        ("abcab", "cab", true),
        ("suffix", "fix", true),
        ("same", "same", true),
        ("anything", "", false),  // as in Foundation: an empty text is never found
        ("", "", false),
        ("", "a", false),
        ("short", "shorter", false),
        ("abc", "abd", false),
        ("HTTP 502", "HTTP 503", false),
        ("caf\u{E9} au lait", "cafe\u{301}", true),  // canonically equivalent characters match
        ("e\u{301}", "e", false),  // a base letter is not the character it is part of
        ("日本語のキー", "本語", true),
    ])
    func findsWhatContainsFinds(text: String, other: String, expected: Bool) {
        #expect(text.containsText(other) == expected)
        #expect(text.contains(other) == expected)
        #expect(Substring(text).containsText(other) == expected)
    }
}
