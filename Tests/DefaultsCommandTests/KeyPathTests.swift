import PrefsPlist
import Testing

@testable import DefaultsCommand

/// Key paths: parsing with escapes, and reading, setting and removing nested values.
@Suite struct KeyPathTests {
    static let domain: [String: PlistValue] = [
        "Window": ["Frame": [10, 20], "Title.Text": "Main", "Tabs": [["Name": "a"], ["Name": "b"]]],
        "Window.Frame": "flat",
    ]

    @Test(arguments: [
        ("a.b.c", ["a", "b", "c"]),
        ("a\\.b.c", ["a.b", "c"]),
        ("a\\\\.b", ["a\\", "b"]),
        ("trailing\\", ["trailing\\"]),
        ("", [""]),
        ("a..b", ["a", "", "b"]),
    ])
    func componentsSplitAtUnescapedDots(text: String, components: [String]) {
        #expect(KeyPath(text).components == components)
        #expect(KeyPath(text).description == text)
    }

    @Test func aPlainKeyIsOneComponent() {
        #expect(KeyPath(key: "a.b").components == ["a.b"])
        #expect(KeyPath(key: "a.b").value(in: Self.domain) == nil)
        #expect(KeyPath(key: "Window.Frame").value(in: Self.domain) == "flat")
    }

    @Test func valuesAreFoundThroughDictionariesAndArrays() {
        #expect(KeyPath("Window.Frame.1").value(in: Self.domain) == 20)
        #expect(KeyPath("Window.Tabs.1.Name").value(in: Self.domain) == "b")
        #expect(KeyPath("Window.Title\\.Text").value(in: Self.domain) == "Main")
        #expect(KeyPath("Window.Frame.2").value(in: Self.domain) == nil)
        #expect(KeyPath("Window.Frame.x").value(in: Self.domain) == nil)
        #expect(KeyPath("Window.Title\\.Text.more").value(in: Self.domain) == nil)
        #expect(KeyPath("Missing.a").value(in: Self.domain) == nil)
    }

    @Test func settingCreatesDictionariesAndReplacesOrAppendsElements() throws {
        var domain = Self.domain
        try KeyPath("New.Inner.Leaf").set(1, in: &domain, domainName: "D")
        #expect(domain["New"] == ["Inner": ["Leaf": 1]])
        try KeyPath("Window.Frame.0").set(11, in: &domain, domainName: "D")
        try KeyPath("Window.Frame.2").set(30, in: &domain, domainName: "D")
        try KeyPath("Window.Tabs.0.Name").set("z", in: &domain, domainName: "D")
        #expect(domain["Window"]?["Frame"] == [11, 20, 30])
        #expect(KeyPath("Window.Tabs.0.Name").value(in: domain) == "z")
        try KeyPath("Top").set("t", in: &domain, domainName: "D")
        #expect(domain["Top"] == "t")
        #expect(domain["Window.Frame"] == "flat")
    }

    @Test func settingThroughAScalarOrPastAnArrayFails() {
        var domain = Self.domain
        #expect(throws: DefaultsError.self) {
            try KeyPath("Window.Title\\.Text.x").set(1, in: &domain, domainName: "D")
        }
        #expect(throws: DefaultsError.self) { try KeyPath("Window.Frame.3").set(1, in: &domain, domainName: "D") }
        #expect(throws: DefaultsError.self) { try KeyPath("Window.Frame.first").set(1, in: &domain, domainName: "D") }
        #expect(domain == Self.domain)
    }

    @Test func removingDropsOnlyTheValueAtThePath() {
        var domain = Self.domain
        #expect(KeyPath("Window.Frame.0").remove(from: &domain))
        #expect(domain["Window"]?["Frame"] == [20])
        #expect(KeyPath("Window.Tabs.1.Name").remove(from: &domain))
        #expect(domain["Window"]?["Tabs"] == [["Name": "a"], [:]])
        #expect(!KeyPath("Window.Nope").remove(from: &domain))
        #expect(!KeyPath("Window.Frame.5").remove(from: &domain))
        #expect(!KeyPath("Window.Title\\.Text.x").remove(from: &domain))
        #expect(KeyPath(key: "Window.Frame").remove(from: &domain))
        #expect(domain["Window.Frame"] == nil)
        #expect(domain["Window"] != nil)
    }
}
