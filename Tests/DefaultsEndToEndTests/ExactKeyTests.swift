// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `defaults` keeps two keys that differ only in Unicode normalization apart, as macOS does.
@Suite struct ExactKeyTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func writeReadDeleteAndExportKeepBothKeys() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", Self.composed, "-int", "1"])
        try sandbox.succeed(["write", "com.example.App", Self.decomposed, "-int", "2"])
        let one = try sandbox.run(["read", "com.example.App", Self.composed])
        let two = try sandbox.run(["read", "com.example.App", Self.decomposed])
        #expect(one.standardOutput == "1\n" && two.standardOutput == "2\n", "\(one) \(two)")
        let export = try sandbox.run(["export", "com.example.App", "-"])
        let exported = try PlistSerialization.decode(Array(export.standardOutput.utf8))
        #expect(exported == [Self.composed: 1, Self.decomposed: 2])
        try sandbox.succeed(["delete", "com.example.App", Self.composed])
        let left = try PlistSerialization.decode(
            Array(try sandbox.run(["export", "com.example.App", "-"]).standardOutput.utf8))
        #expect(left == [Self.decomposed: 2])
    }

    @Test func importAndDictAddKeepBothKeys() throws {
        let sandbox = try Sandbox()
        let file = sandbox.directory.path + "/both.plist"
        let both: PlistValue = [Self.composed: "nfc", Self.decomposed: "nfd"]
        try Data(try PlistSerialization.encode(both, format: .binary)).write(to: URL(fileURLWithPath: file))
        try sandbox.succeed(["import", "com.example.App", file])
        try sandbox.succeed(["write", "com.example.App", "Dict", "-dict-add", Self.composed, "1", Self.decomposed, "2"])
        let export = try sandbox.run(["export", "com.example.App", "-"])
        let exported = try PlistSerialization.decode(Array(export.standardOutput.utf8))
        #expect(exported[Self.composed] == "nfc")
        #expect(exported[Self.decomposed] == "nfd")
        #expect(exported["Dict"] == [Self.composed: "1", Self.decomposed: "2"])
    }
}
