// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `help` and usage errors: the usage text on standard output, exit status 255, the reason on standard error.
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
}
