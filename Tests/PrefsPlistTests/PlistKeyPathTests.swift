// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@Suite struct PlistKeyPathTests {
    @Test func aPrefixEscapesDotsAndBackslashesInsideKeys() {
        let path = PlistKeyPath(#"Window\.Main.C:\\Users.0"#)
        #expect(path.components == ["Window.Main", #"C:\Users"#, "0"])
        let prefix = path.prefix(2)
        #expect(prefix.text == #"Window\.Main.C:\\Users"#)
        #expect(PlistKeyPath(prefix.text).components == ["Window.Main", #"C:\Users"#])
    }

    /// The key-path fuzz harness crashed on such a path: setting through tens of thousands of components recursed
    /// once per component and overflowed the stack.
    @Test func aPathDeeperThanAnyValueIsRefusedNotRecursedThrough() {
        let components = 100_000
        let path = PlistKeyPath(String(repeating: "a.", count: components - 1) + "a")
        #expect(path.components.count == components)
        var dictionary: PlistDictionary = ["kept": 1]
        #expect(throws: PlistKeyPath.SetFailure.tooDeep(count: components, limit: PlistLimits.default.maxDepth)) {
            try path.set("value", in: &dictionary)
        }
        #expect(dictionary == ["kept": 1])
    }

    @Test func aPathAsDeepAsTheLimitIsSet() throws {
        let limit = PlistLimits.default.maxDepth
        let path = PlistKeyPath(Array(repeating: "k", count: limit).joined(separator: "."))
        var dictionary: PlistDictionary = [:]
        try path.set("value", in: &dictionary)
        #expect(path.value(in: dictionary) == "value")
    }
}
