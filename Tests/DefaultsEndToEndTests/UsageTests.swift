// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsCommandLine
import PrefsTestSupport
import Testing

/// `help`, `--version` and usage errors: the reason on standard error first, then the usage text on standard output,
/// exit status 255.
@Suite struct UsageTests {
    @Test(arguments: [["help"], ["HELP"], ["--help"], ["-h"], ["-help"], ["-currentHost", "help"]])
    func helpPrintsTheHelpTextAndSucceeds(arguments: [String]) throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(arguments), stdout: helpText)
    }

    @Test func noArgumentsPrintsTheUsageLikeMacOS() throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run([]), status: 255, stdout: helpText)
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["-currentHost"], "a command is missing"),
        (["read-type", "com.example.App"], "a key is missing"),
        (["read-type"], "a domain is missing"),
        (["read", "com.example.App", "Key", "extra"], "unexpected argument 'extra'"),
        (["write"], "a domain is missing"),
        (["write", "com.example.App"], "write needs a key and a value, or a dictionary"),
        (["write", "com.example.App", "-keypath", "a.b"], "the value for key a.b is missing"),
        (["rename", "com.example.App", "Old"], "rename needs the old key and the new key"),
        (["rename", "com.example.App", "Old", "New", "extra"], "unexpected argument 'extra'"),
        (["delete", "com.example.App", "Key", "extra"], "unexpected argument 'extra'"),
        (["find"], "find needs a word"),
        (["domains", "extra"], "unexpected argument 'extra'"),
        (["read", "-format", "yaml", "com.example.App"], "-format takes openstep, xml, json or binary"),
        (["read", "com.example.App", "-keypath"], "-keypath needs a key path"),
        (["completion", "tcsh"], "completion takes bash, zsh or fish"),
        (["explain", "com.example.App"], "explain needs a domain and a key"),
        (["explain", "-suite"], "-suite needs a domain"),
        (["watch", "com.example.App", "-keypath", "a.b"], "watch takes a key, not a key path"),
        (["read", "-app"], "-app needs an application name"),
    ])
    func aUsageErrorPrintsTheUsageAndTheReason(arguments: [String], reason: String) throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(arguments), status: 255, stdout: helpText, stderr: "defaults: \(reason)\n")
    }

    @Test(arguments: [
        (["raed", "D"], "unknown command 'raed'; did you mean 'read'?"),
        (["WIRTE", "D", "k", "v"], "unknown command 'WIRTE'; did you mean 'write'?"),
        (["-currentHost", "domian"], "unknown command 'domian'; did you mean 'domains'?"),
        (["remvoe", "D"], "unknown command 'remvoe'; did you mean 'remove'?"),
        (["--verison"], "unknown command '--verison'; did you mean '--version'?"),
        (["rd"], "unknown command 'rd'"),
        (["migrate", "-dryrun"], "migrate does not know the option -dryrun; did you mean '-dry-run'?"),
        (
            ["fleet", "lsit"],
            "fleet needs write, read, delete, list, hosts, wait or status (got lsit); did you mean 'list'?"
        ),
        (["fleet", "read", "-froced", "D"], "fleet does not know the option -froced; did you mean '-forced'?"),
    ])
    func aMisspelledNameGetsTheNearestSuggested(arguments: [String], reason: String) throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(arguments), status: 255, stdout: helpText, stderr: "defaults: \(reason)\n")
    }

    /// On a terminal both streams show: the reason must head the usage text, not follow its fifty lines.
    @Test func theReasonIsWrittenBeforeTheUsageText() throws {
        let sandbox = try Sandbox()
        let merged = try BuiltProduct(path: "/bin/sh").run(
            ["-c", "exec \"$0\" \"$@\" 2>&1", sandbox.defaults.path, "raed"], environment: sandbox.environment)
        expectRun(merged, status: 255, stdout: "defaults: unknown command 'raed'; did you mean 'read'?\n" + helpText)
    }

    @Test(arguments: [["--version"], ["-version"], ["-currentHost", "--version"]])
    func versionPrintsOneLineAndSucceeds(arguments: [String]) throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(arguments), stdout: "defaults \(PreferencesVersion.current)\n")
    }
}
