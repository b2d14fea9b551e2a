import PrefsPlist
import Testing

@testable import PrefsStore

@Suite struct ArgumentDomainTests {
    @Test func pairsBecomeValuesParsedAsPropertyLists() {
        let values = ArgumentDomain.parse([
            "input.txt", "-Name", "Ada", "-List", "(a, b)", "-Dict", "{ k = v; }", "-Spaced", "two words",
            "-Level", "-1", "-Name", "Grace", "--", "-After", "x",
        ])
        #expect(values["Name"] == "Grace", "a later pair wins")
        #expect(values["List"] == ["a", "b"])
        #expect(values["Dict"] == ["k": "v"])
        #expect(values["Spaced"] == "two words", "text that is not a plist stays a string")
        #expect(values["Level"] == "-1")
        #expect(values["After"] == nil, "nothing after --")
        #expect(values["input.txt"] == nil)
    }

    @Test func aTrailingKeyWithoutValueIsIgnored() {
        #expect(ArgumentDomain.parse(["-Alone"]).isEmpty)
        #expect(ArgumentDomain.parse(["-", "x"]).isEmpty)
    }
}
