// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// Key paths as `defaults` uses them: its option, its depth limit and its messages.
@Suite struct DefaultsKeyPathTests {
    static let domain: PlistDictionary = ["Window": ["Frame": [10, 20], "Title.Text": "Main"]]

    @Test func theOptionAndTheDepthLimit() {
        #expect(PlistKeyPath.optionName == "-keypath")
        #expect(PlistKeyPath.maxComponents == 65)
    }

    @Test func settingCreatesDictionaries() throws {
        var domain = Self.domain
        try PlistKeyPath("New.Inner.Leaf").set(1, in: &domain, domainName: "D")
        try PlistKeyPath("Window.Frame.2").set(30, in: &domain, domainName: "D")
        #expect(domain["New"] == ["Inner": ["Leaf": 1]])
        #expect(domain["Window"]?["Frame"] == [10, 20, 30])
    }

    @Test(arguments: [
        (
            "Window.Title\\.Text.x",
            "defaults: cannot write key path Window.Title\\.Text.x in domain D: Window.Title\\.Text is a string, not a "
                + "dictionary or an array"
        ),
        (
            "Window.Frame.first",
            "defaults: cannot write key path Window.Frame.first in domain D: Window.Frame is an array of 2 elements, "
                + "and first is not an index from 0 to 2"
        ),
    ])
    func settingThroughAScalarOrPastAnArrayFails(path: String, message: String) {
        var domain = Self.domain
        let error = #expect(throws: DefaultsError.self) {
            try PlistKeyPath(path).set(1, in: &domain, domainName: "D")
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == message + "\n")
        #expect(domain == Self.domain)
    }
}
