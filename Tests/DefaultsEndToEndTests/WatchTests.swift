// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `watch`: changes from other processes and hand edits, printed as they happen, until SIGINT or SIGTERM.
@Suite struct WatchTests {
    @Test func watchPrintsChangesFromOtherProcessesUntilInterrupted() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "light"])
        let watcher = try RunningProcess(
            sandbox.defaults, ["watch", "com.example.App"], environment: sandbox.environment)
        let ready = "Watching domain com.example.App; press Control-C to stop.\n"
        try #require(watcher.waitFor { _, error in error == ready }, "\(watcher.standardError)")
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        try sandbox.succeed(["write", "com.example.App", "List", "-array", "a", "two words"])
        try sandbox.succeed(["delete", "com.example.App", "Theme"])
        let expected = """
            com.example.App Theme = dark
            com.example.App List = (a, "two words")
            com.example.App Theme deleted

            """
        #expect(watcher.waitFor { output, _ in output == expected }, "\(watcher.standardOutput)")
        #expect(watcher.stop(signal: SIGINT) == 0)
        #expect(watcher.standardOutput == expected)
        #expect(watcher.standardError == ready)
    }

    @Test func watchOfOneKeyIgnoresTheOthersAndSIGTERMEndsItCleanly() throws {
        let sandbox = try Sandbox()
        let watcher = try RunningProcess(
            sandbox.defaults, ["watch", "com.example.App", "Theme"], environment: sandbox.environment)
        try #require(watcher.waitFor { _, error in error.hasSuffix("stop.\n") })
        #expect(watcher.standardError == "Watching key Theme of domain com.example.App; press Control-C to stop.\n")
        try sandbox.succeed(["write", "com.example.App", "Other", "x"])
        try sandbox.succeed(["write", "com.example.App", "Theme", "-dict", "mode", "dark"])
        let expected = "com.example.App Theme = { mode = dark; }\n"
        #expect(watcher.waitFor { output, _ in output == expected }, "\(watcher.standardOutput)")
        #expect(watcher.stop(signal: SIGTERM) == 0)
        #expect(watcher.standardOutput == expected)
    }

    @Test func watchOfTheGlobalDomainNamesItNSGlobalDomain() throws {
        let sandbox = try Sandbox()
        let watcher = try RunningProcess(sandbox.defaults, ["watch", "-g"], environment: sandbox.environment)
        try #require(
            watcher.waitFor { _, error in error == "Watching domain NSGlobalDomain; press Control-C to stop.\n" })
        try sandbox.succeed(["write", "-globalDomain", "AppleLocale", "en_GB"])
        let expected = "NSGlobalDomain AppleLocale = \"en_GB\"\n"
        #expect(watcher.waitFor { output, _ in output == expected }, "\(watcher.standardOutput)")
        #expect(watcher.stop() == 0)
    }

    @Test func watchSeesHandEdits() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "light"])
        let watcher = try RunningProcess(
            sandbox.defaults, ["watch", "com.example.App"], environment: sandbox.environment)
        try #require(watcher.waitFor { _, error in error.hasSuffix("stop.\n") })
        let path = sandbox.preferences + "/com.example.App.plist"
        try "{ Theme = \"hand edited\"; Size = 3; }".write(toFile: path, atomically: true, encoding: .utf8)
        // One re-read is one batch; the order of keys within it is not specified.
        let expected: Set = ["com.example.App Size = 3", "com.example.App Theme = \"hand edited\""]
        #expect(
            watcher.waitFor { output, _ in Set(output.split(separator: "\n").map(String.init)) == expected },
            "\(watcher.standardOutput)")
        #expect(watcher.stop() == 0)
    }

    @Test func watchOfEveryDomainFindsNewDomains() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.Old", "A", "1"])
        let watcher = try RunningProcess(sandbox.defaults, ["watch"], environment: sandbox.environment)
        try #require(watcher.waitFor { _, error in error == "Watching every domain; press Control-C to stop.\n" })
        try sandbox.succeed(["write", "com.example.Old", "A", "2"])
        #expect(watcher.waitFor { output, _ in output == "com.example.Old A = 2\n" }, "\(watcher.standardOutput)")
        try sandbox.succeed(["write", "com.example.New", "{ B = 1; C = (x); }"])
        let expected = "com.example.Old A = 2\ncom.example.New B = 1\ncom.example.New C = (x)\n"
        #expect(watcher.waitFor { output, _ in output == expected }, "\(watcher.standardOutput)")
        try sandbox.succeed(["write", "-g", "AppleLocale", "en_GB"])
        #expect(watcher.waitFor { output, _ in output.hasSuffix("NSGlobalDomain AppleLocale = \"en_GB\"\n") })
        #expect(watcher.stop() == 0)
    }

    @Test func watchOfTheEffectiveValuesFollowsEveryLayerAndSkipsShadowedChanges() throws {
        let sandbox = try Sandbox()
        let app = "com.example.App"
        try sandbox.succeed(["write", app, "Theme", "light"])
        // The system directory exists, as the package installs it; its forced directory appears later.
        try FileManager.default.createDirectory(atPath: sandbox.system, withIntermediateDirectories: true)
        let watcher = try RunningProcess(
            sandbox.defaults, ["watch", "-effective", app], environment: sandbox.environment)
        let ready = "Watching the effective values of com.example.App, from every layer; press Control-C to stop.\n"
        try #require(watcher.waitFor { _, error in error == ready }, "\(watcher.standardError)")
        var expected = ""
        func step(_ line: String, _ change: () throws -> Void) throws {
            try change()
            expected += line + "\n"
            #expect(watcher.waitFor { output, _ in output == expected }, "after \(line): \(watcher.standardOutput)")
        }
        try step("com.example.App Theme = dark from user com.example.App") {
            try sandbox.succeed(["write", app, "Theme", "dark"])
        }
        // An administrator's forced file wins; the user's later write is shadowed and prints nothing.
        try step("com.example.App Theme = admin from forced com.example.App") {
            try sandbox.domain(app, "{ Theme = admin; }", directory: "system/forced")
        }
        _ = try sandbox.run(["write", app, "Theme", "blue"])
        try step("com.example.App Size = 3 from user NSGlobalDomain") {
            try sandbox.succeed(["write", "-g", "Size", "-int", "3"])
        }
        try step("com.example.App Theme = blue from user com.example.App") {
            try FileManager.default.removeItem(atPath: sandbox.system + "/forced/\(app).plist")
        }
        try step("com.example.App Theme is not set in any layer") {
            try sandbox.succeed(["delete", app, "Theme"])
        }
        #expect(watcher.stop(signal: SIGINT) == 0)
        #expect(watcher.standardOutput == expected)
        #expect(watcher.standardError == ready)
    }
}
