// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// Domain selectors: the global domain's names, `-currentHost`, `-host`, file paths, and names that are refused.
@Suite struct SelectorTests {
    @Test(arguments: ["-g", "-globalDomain", "NSGlobalDomain", "Apple Global Domain"])
    func everyNameOfTheGlobalDomainUsesItsFile(name: String) throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", name, "AppleLocale", "en_GB"])
        #expect(sandbox.exists("prefs/.GlobalPreferences.plist"))
        expectRun(try sandbox.run(["read", "NSGlobalDomain", "AppleLocale"]), stdout: "en_GB\n")
        expectRun(try sandbox.run(["read", "-g"]), stdout: "{\n    AppleLocale = \"en_GB\";\n}\n")
    }

    @Test(.enabled(if: Sandbox.machineID.count == 32, "this machine has no /etc/machine-id"))
    func currentHostUsesTheByHostFileOfThisMachine() throws {
        let sandbox = try Sandbox()
        let machineID = Sandbox.machineID
        try sandbox.succeed(["-currentHost", "write", "com.example.App", "Screen", "-int", "2"])
        #expect(sandbox.exists("prefs/ByHost/com.example.App.\(machineID).plist"))
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
        expectRun(try sandbox.run(["-currentHost", "read", "com.example.App", "Screen"]), stdout: "2\n")
        expectRun(
            try sandbox.run(["read", "com.example.App", "Screen"]), status: 1,
            stderr: "\nThe domain/default pair of (com.example.App, Screen) does not exist\n")
        expectRun(try sandbox.run(["-currentHost", "domains"]), stdout: "com.example.App\n")
        expectRun(try sandbox.run(["domains"]), stdout: "\n")
        expectRun(try sandbox.run(["-host", machineID, "read", "com.example.App", "Screen"]), stdout: "2\n")
        let hostName = try String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        expectRun(try sandbox.run(["-host", hostName, "read", "com.example.App", "Screen"]), stdout: "2\n")
        try sandbox.succeed(["-currentHost", "delete", "com.example.App"])
        #expect(!sandbox.exists("prefs/ByHost/com.example.App.\(machineID).plist"))
    }

    @Test func hostTakesAnotherMachinesID() throws {
        let sandbox = try Sandbox()
        let other = "0123456789abcdef0123456789abcdef"
        try sandbox.succeed(["-host", other, "write", "com.example.App", "Screen", "1"])
        #expect(sandbox.exists("prefs/ByHost/com.example.App.\(other).plist"))
    }

    @Test func anUnknownHostIsRefused() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["-host", "elsewhere.example", "read", "com.example.App"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError.hasPrefix(
                "defaults: unknown host 'elsewhere.example': -host takes this machine's host name ("))
        expectRun(
            try sandbox.run(["-host"]), status: 255, stdout: helpText, stderr: "defaults: -host needs a host name\n")
    }

    @Test func aPathWithOrWithoutPlistNamesTheSameFile() throws {
        let sandbox = try Sandbox()
        let base = sandbox.directory.file("files/com.example.Doc")
        try sandbox.succeed(["write", base, "Title", "Report"])
        #expect(sandbox.exists("files/com.example.Doc.plist"))
        expectRun(try sandbox.run(["read", base + ".plist", "Title"]), stdout: "Report\n")
        expectRun(
            try sandbox.run(["read", "files/com.example.Doc", "Title"], in: sandbox.directory.path), stdout: "Report\n")
        expectRun(try sandbox.run(["read", "~/files/com.example.Doc.plist", "Title"]), stdout: "Report\n")
        expectRun(
            try sandbox.run(["read", base, "Missing"]), status: 1,
            stderr: "\nThe domain/default pair of (\(base), Missing) does not exist\n")
        expectRun(
            try sandbox.run(["read", sandbox.directory.file("files/Other")]), status: 1,
            stderr: "\nDomain \(sandbox.directory.file("files/Other")) does not exist\n")
        #expect(!sandbox.exists("prefs/com.example.Doc.plist"))
    }

    @Test("a file outside the Preferences directory is locked in the runtime directory, not beside the file")
    func aPathDomainsLockIsInTheRuntimeDirectory() throws {
        let sandbox = try Sandbox()
        let work = sandbox.directory.path + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false)
        let canonicalWork = URL(fileURLWithPath: work).resolvingSymlinksInPath().path
        expectRun(try sandbox.run(["write", "./local.plist", "a", "1"], in: work), stdout: "")
        #expect(sandbox.list("work") == ["local.plist"])
        let escaped = canonicalWork.replacingOccurrences(of: "/", with: "%2F")
        #expect(sandbox.list("runtime/preferences/locks") == [escaped])
        #expect(sandbox.list("runtime/preferences/locks/\(escaped)") == ["local.lock"])
        expectRun(try sandbox.run(["read", "./local.plist", "a"], in: work), stdout: "1\n")

        // In the Preferences directory a file path locks where prefsd and every other writer of the domain do.
        expectRun(try sandbox.run(["write", sandbox.preferences + "/com.example.App.plist", "a", "1"]), stdout: "")
        #expect(sandbox.list("prefs/.locks") == ["com.example.App.lock"])
        #expect(sandbox.list("runtime/preferences/locks") == [escaped])

        // Without a runtime directory there is no private place for them: they stay beside the file.
        var environment = sandbox.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let result = try sandbox.defaults.run(
            ["write", "./other.plist", "a", "1"], environment: environment.merging(["XDG_RUNTIME_DIR": ""]) { $1 },
            in: work)
        #expect(result.status == 0, "\(result)")
        #expect(sandbox.list("work") == [".locks", "local.plist", "other.plist"])
    }

    @Test func aPathToGlobalPreferencesIsThatDirectorysGlobalDomain() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("NSGlobalDomain", "{ AppleLocale = fr_FR; }", directory: "system")
        expectRun(
            try sandbox.run(["read", sandbox.system + "/.GlobalPreferences", "AppleLocale"]), stdout: "fr_FR\n")
    }

    @Test func aPathWhoseFileNameIsNotADomainNameIsRefused() throws {
        let sandbox = try Sandbox()
        let path = sandbox.directory.file("My Settings.plist")
        let result = try sandbox.run(["write", path, "Key", "value"])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix(
                "defaults: cannot use \(path) as a domain: its file name must be a valid domain name plus '.plist' ("))
        #expect(!sandbox.exists("My Settings.plist"))
    }

    @Test func aHostOptionWithAPathIsRefused() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["-currentHost", "read", sandbox.directory.file("x")]), status: 1,
            stderr: "defaults: -currentHost and -host do not apply to a domain given as a file path\n")
    }

    @Test func invalidDomainNamesAreRefusedNeverUsedAsPaths() throws {
        let sandbox = try Sandbox()
        for name in ["..", ".hidden", "a..b", "with space", ""] {
            let result = try sandbox.run(["write", name, "Key", "value"])
            #expect(result.status == 1, "\(name)")
            #expect(result.standardOutput == "")
            #expect(result.standardError.hasPrefix("defaults: invalid domain name"), "\(name): \(result)")
        }
        #expect(sandbox.list("prefs").filter { $0.hasSuffix(".plist") }.isEmpty)
    }

    @Test func appIsNotSupported() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["read", "-app", "TextEdit"]), status: 1,
            stderr: "defaults: -app TextEdit: applications are not bundles on Linux; name the application's domain "
                + "instead (such as com.example.App)\n")
    }

    @Test(.enabled(if: Sandbox.machineID.count == 32, "this machine has no /etc/machine-id"))
    func printHostIdentifierPrintsTheMachineID() throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(["printHostIdentifier"]), stdout: Sandbox.machineID + "\n")
    }
}
