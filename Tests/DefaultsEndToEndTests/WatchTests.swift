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
}
