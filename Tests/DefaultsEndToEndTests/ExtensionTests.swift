// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// The extensions: `-format`, `-keypath`, batch writes and `explain`.
@Suite struct ExtensionTests {
    private func sandboxWithWindow() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.write(
            "prefs/com.example.App.plist",
            """
            <plist version="1.0"><dict>
            <key>Window</key><dict>
                <key>Frame</key><array><integer>10</integer><integer>20</integer></array>
                <key>Title.Text</key><string>Main</string>
            </dict>
            <key>Window.Frame</key><string>flat key</string>
            <key>Opened</key><date>2024-05-01T12:30:00Z</date>
            </dict></plist>
            """)
        return sandbox
    }

    @Test func readFormatJSONPrintsIndentedJSON() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "{ Theme = dark; List = (a, b); }"])
        try sandbox.succeed(["write", "com.example.App", "Size", "-int", "12"])
        let result = try sandbox.run(["read", "-format", "json", "com.example.App"])
        expectRun(result, stdout: result.standardOutput)
        let value = try PlistSerialization.decode(result.standardOutputBytes, format: .json).value
        #expect(value == ["Theme": "dark", "List": ["a", "b"], "Size": 12])
        #expect(result.standardOutput.hasSuffix("\n"))
        #expect(result.standardOutput.contains("\n  "))
        expectRun(try sandbox.run(["read", "-format", "json", "com.example.App", "Size"]), stdout: "12\n")
    }

    @Test func readFormatXMLAndOpenStepAndBinaryRoundTrip() throws {
        let sandbox = try sandboxWithWindow()
        for format in ["xml", "openstep", "binary"] {
            let result = try sandbox.run(["read", "-format", format, "com.example.App", "Window"])
            #expect(result.status == 0 && result.standardError == "", "\(format): \(result)")
            let value = try PlistSerialization.decode(result.standardOutputBytes)
            let expected: PlistValue =
                format == "openstep"
                ? ["Frame": ["10", "20"], "Title.Text": "Main"] : ["Frame": [10, 20], "Title.Text": "Main"]
            #expect(value == expected, "\(format)")
        }
        let xml = try sandbox.run(["read", "-format", "xml", "com.example.App", "Opened"])
        #expect(xml.standardOutput.contains("<date>2024-05-01T12:30:00Z</date>"))
    }

    @Test func aFormatThatCannotHoldTheValueSaysSo() throws {
        let sandbox = try sandboxWithWindow()
        let result = try sandbox.run(["read", "-format", "json", "com.example.App", "Opened"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("defaults: cannot print key Opened of domain com.example.App as json: "))
    }

    @Test func exportFormatChoosesTheFormat() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        expectRun(
            try sandbox.run(["export", "-format", "openstep", "com.example.App", "-"]),
            stdout: "{\n\tTheme = dark;\n}\n")
        let path = sandbox.directory.file("out.json")
        try sandbox.succeed(["export", "-format", "json", "com.example.App", path])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try PlistSerialization.decode(Array(text.utf8), format: .json).value == ["Theme": "dark"])
    }

    @Test func keyPathsReachIntoNestedValuesAndPlainKeysKeepTheirDots() throws {
        let sandbox = try sandboxWithWindow()
        expectRun(try sandbox.run(["read", "com.example.App", "-keypath", "Window.Frame.1"]), stdout: "20\n")
        expectRun(try sandbox.run(["read", "com.example.App", "Window.Frame"]), stdout: "flat key\n")
        expectRun(try sandbox.run(["read", "com.example.App", "-keypath", "Window.Title\\.Text"]), stdout: "Main\n")
        expectRun(
            try sandbox.run(["read-type", "com.example.App", "-keypath", "Window.Frame"]), stdout: "Type is array\n")
        expectRun(
            try sandbox.run(["read", "com.example.App", "-keypath", "Window.Frame.5"]), status: 1,
            stderr: "\nThe domain/default pair of (com.example.App, Window.Frame.5) does not exist\n")
    }

    @Test func keyPathWritesCreateDictionariesAndReplaceOrAppendElements() throws {
        let sandbox = try sandboxWithWindow()
        try sandbox.succeed(["write", "com.example.App", "-keypath", "Window.Frame.0", "-int", "11"])
        try sandbox.succeed(["write", "com.example.App", "-keypath", "Window.Frame.2", "-int", "30"])
        try sandbox.succeed(["write", "com.example.App", "-keypath", "Editor.Font.Size", "-float", "12.5"])
        try sandbox.succeed(["write", "com.example.App", "-keypath", "Window.Frame", "-array-add", "-int", "40"])
        expectRun(
            try sandbox.run(["read", "com.example.App", "Window"]),
            stdout: "{\n    Frame =     (\n        11,\n        20,\n        30,\n        40\n    );\n"
                + "    \"Title.Text\" = Main;\n}\n")
        expectRun(
            try sandbox.run(["read", "com.example.App", "Editor"]),
            stdout: "{\n    Font =     {\n        Size = \"12.5\";\n    };\n}\n")
        expectRun(try sandbox.run(["read", "com.example.App", "Window.Frame"]), stdout: "flat key\n")
    }

    @Test func keyPathWritesThroughAScalarOrPastAnArrayFail() throws {
        let sandbox = try sandboxWithWindow()
        expectRun(
            try sandbox.run(["write", "com.example.App", "-keypath", "Window.Title\\.Text.x", "v"]), status: 1,
            stderr: "defaults: cannot write key path Window.Title\\.Text.x in domain com.example.App: "
                + "Window.Title\\.Text is a string, not a dictionary or an array\n")
        expectRun(
            try sandbox.run(["write", "com.example.App", "-keypath", "Window.Frame.9", "v"]), status: 1,
            stderr: "defaults: cannot write key path Window.Frame.9 in domain com.example.App: Window.Frame is an "
                + "array of 2 elements, and 9 is not an index from 0 to 2\n")
    }

    @Test func keyPathDeletesRemoveNestedValues() throws {
        let sandbox = try sandboxWithWindow()
        try sandbox.succeed(["delete", "com.example.App", "-keypath", "Window.Frame.0"])
        try sandbox.succeed(["delete", "com.example.App", "-keypath", "Window.Title\\.Text"])
        expectRun(
            try sandbox.run(["read", "com.example.App", "Window"]),
            stdout: "{\n    Frame =     (\n        20\n    );\n}\n")
        expectRun(
            try sandbox.run(["delete", "com.example.App", "-keypath", "Window.Missing"]), status: 1,
            stderr: "\nDomain (com.example.App) not found.\nDefaults have not been changed.\n")
    }

    @Test func severalPairsInOneWriteAreOneChange() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed([
            "write", "com.example.App", "Theme", "dark", "--", "Size", "-int", "12", "--", "Recent", "-array", "a",
            "b", "--", "-keypath", "Window.Width", "-int", "800", "--", "Recent", "-array-add", "c",
        ])
        expectRun(
            try sandbox.run(["read", "com.example.App"]),
            stdout: "{\n    Recent =     (\n        a,\n        b,\n        c\n    );\n    Size = 12;\n"
                + "    Theme = dark;\n    Window =     {\n        Width = 800;\n    };\n}\n")
    }

    @Test func aFailingPairLeavesEveryPairUnwritten() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Name", "text"])
        expectRun(
            try sandbox.run(["write", "com.example.App", "A", "1", "--", "Name", "-array-add", "x"]), status: 1,
            stderr: "Value for key Name is not an array; cannot append.  Leaving defaults unchanged.\n")
        expectRun(try sandbox.run(["read", "com.example.App"]), stdout: "{\n    Name = text;\n}\n")
    }

    @Test func explainShowsTheWinnerAndEveryShadowedLayer() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = user; }")
        try sandbox.domain("com.example.App", "{ Theme = system; Other = x; }", directory: "system")
        try sandbox.domain("com.example.App", "{ Theme = shipped; }", directory: "shipped")
        try sandbox.domain("NSGlobalDomain", "{ Theme = global; }")
        try sandbox.domain("com.example.Suite", "{ Theme = (suite, value); }")
        let prefs = sandbox.preferences
        let expected = """
            Theme = user from user com.example.App (\(prefs)/com.example.App.plist)
              shadows (suite, value) from user com.example.Suite (\(prefs)/com.example.Suite.plist)
              shadows global from user NSGlobalDomain (\(prefs)/.GlobalPreferences.plist)
              shadows system from system com.example.App (\(sandbox.system)/com.example.App.plist)
              shadows shipped from shipped com.example.App (\(sandbox.shipped)/com.example.App.plist)

            """
        expectRun(
            try sandbox.run(["explain", "-suite", "com.example.Suite", "com.example.App", "Theme"]), stdout: expected)
    }

    @Test func explainShowsForcedValuesAndSkippedLayers() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = user; }")
        try sandbox.domain("com.example.App", "{ Theme = admin; }", directory: "system/forced")
        try sandbox.write("shipped/com.example.App.plist", "{ broken")
        let result = try sandbox.run(["explain", "com.example.App", "Theme"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(
            lines.first == "Theme = admin from forced com.example.App (\(sandbox.system)/forced/com.example.App.plist)")
        #expect(
            lines.dropFirst().first
                == "  shadows user from user com.example.App (\(sandbox.preferences)/com.example.App.plist)")
        #expect(
            lines.last?.hasPrefix("  skipped shipped com.example.App: \(sandbox.shipped)/com.example.App.plist") == true
        )
    }

    @Test func explainOfAKeyNoLayerHoldsFails() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["explain", "com.example.App", "two words"]), status: 1,
            stdout: "\"two words\" is not set in any layer\n")
        expectRun(
            try sandbox.run(["explain", sandbox.directory.file("x"), "Key"]), status: 1,
            stderr:
                "defaults: explain searches the layers of a domain name, not a file (\(sandbox.directory.file("x")))\n")
    }
}
