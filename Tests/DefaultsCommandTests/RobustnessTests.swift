// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// Random command lines built from the words `defaults` knows: each either runs or fails with an error and a
/// status, never a crash; a usage error always prints the usage text.
@Suite struct RobustnessTests {
    /// SplitMix64, so that every run tries the same command lines.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    static let words = [
        "read", "READ", "read-type", "write", "rename", "delete", "remove", "import", "export", "domains", "find",
        "help", "explain", "completion", "man", "__complete", "keys", "printHostIdentifier", "-currentHost", "-host",
        "-g", "-globalDomain", "NSGlobalDomain", "-app", "com.example.App", "com.example.Other", "sub/y", "a b",
        "..", "", "-", "--", "-keypath", "a.b.0", "a\\.b", "-format", "json", "xml", "binary", "openstep", "yaml",
        "-suite", "-string", "-data", "0fab", "zz", "-int", "-integer", "12", "-9", "x1", "-float", "1.5", "nan",
        "-bool", "yes", "maybe", "-date", "2024-05-01", "-array", "-array-add", "-dict", "-dict-add", "(1, 2)",
        "{ a = 1; }", "<integer>3</integer>", "(unclosed", "\"q\"", "trailing\\", "Key", "k", "v", "bash", "fish",
    ]

    static let verbs = [
        "read", "read-type", "write", "rename", "delete", "import", "export", "domains", "find", "explain",
        "__complete",
    ]
    static let domains = ["com.example.App", "-g", "relative/x", "com.example.Other", "bad name"]

    @Test func randomCommandLinesFailCleanlyOrRun() async throws {
        var generator = SeededGenerator(state: 20_240_501)
        let domain = DomainID(try! DomainName("com.example.App"))
        // export and import resolve relative paths here, never in the package's directory.
        let directory = try TemporaryDirectory(prefix: "defaults-robustness")
        for _ in 0..<1500 {
            // Mostly a verb and a domain first, so that the verbs' own argument handling is reached.
            var arguments: [String] = []
            if Int.random(in: 0..<10, using: &generator) == 0 { arguments.append("-currentHost") }
            if Int.random(in: 0..<10, using: &generator) > 0 {
                arguments.append(Self.verbs.randomElement(using: &generator)!)
            }
            if Int.random(in: 0..<10, using: &generator) > 1 {
                arguments.append(Self.domains.randomElement(using: &generator)!)
            }
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                arguments.append(Self.words.randomElement(using: &generator)!)
            }
            // watch would wait for a signal; it is covered by the end-to-end tests.
            if arguments.contains(where: { $0.lowercased() == "watch" }) { continue }
            let storage = RecordingStorage(domains: [domain: ["Key": ["a": [1, "two"]], "k": "v"]])
            let console = CapturingConsole(input: "{ imported = 1; }")
            let environment = DefaultsEnvironment(
                variables: ["PREFERENCES_HOME": "/nonexistent"], machineID: "00112233445566778899aabbccddeeff",
                currentDirectory: directory.path, hostName: "box")
            let runner = CommandRunner(console: console, environment: environment) { _, _, _ in storage }
            let status = await runner.run(arguments)
            #expect([0, 1, 255].contains(status), "\(arguments)")
            if status == 255 { #expect(console.output == HelpText.text, "\(arguments)") }
            // A failure says why; explain of an unset key says so on standard output.
            if status == 1 { #expect(!console.error.isEmpty || !console.output.isEmpty, "\(arguments)") }
            #expect(console.error.isEmpty || console.error.hasSuffix("\n"), "\(arguments)")
        }
    }
}
