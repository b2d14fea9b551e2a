// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// The end of the message for an argument where a `-key` should be.
private let pairs = "arguments must be -key value pairs (put other arguments after --)"

/// The opt-in argument domain: `-key value` pairs, parsed strictly, searched after the forced values, never written.
@Suite struct ArgumentTests {
    @Test(
        arguments: [
            (["-Name", "Ada Lovelace"], ["Name": PlistValue.string("Ada Lovelace")]),
            (["-Size", "12"], ["Size": "12"]),
            (["-List", "(a, b)"], ["List": ["a", "b"]]),
            (["-Map", "{ k = v; n = \"two words\"; }"], ["Map": ["k": "v", "n": "two words"]]),
            (["-Quoted", "\"spaced out\""], ["Quoted": "spaced out"]),
            (["-JSON", "[1, true]"], ["JSON": [1, true]]),
            (["-XML", "<integer>5</integer>"], ["XML": 5]),
            (["-XMLDocument", "<plist><real>2.5</real></plist>"], ["XMLDocument": 2.5]),
            (["-Negative", "-3"], ["Negative": "-3"]),
            (["-Twice", "1", "-Twice", "2"], ["Twice": "2"]),
            (["-a", "1", "--", "file.txt", "-b", "2"], ["a": "1"]),
            (["--"], [:]),
            ([], [:]),
        ] as [([String], PlistDictionary)])
    func wellFormedPairsParse(arguments: [String], expected: PlistDictionary) throws {
        #expect(try Preferences.parseArguments(arguments) == expected)
    }

    @Test(
        arguments: [
            (
                ["file.txt"],
                "argument 1 \"file.txt\" is not a -key: " + pairs
            ),
            (
                ["-a", "1", "stray"],
                "argument 3 \"stray\" is not a -key: " + pairs
            ),
            (
                ["-"],
                "argument 1 \"-\" is not a -key: " + pairs
            ),
            (["-a"], "argument 1 \"-a\" has no value"),
            (["-a", "--"], "argument 1 \"-a\" has no value"),
            (
                ["-flag", "-Theme", "dark"],
                "argument 3 \"dark\" is not a -key: " + pairs
            ),
            (
                ["-List", "(a, b"],
                "argument 2, the value of -List, starts like a property list but does not parse as one"
            ),
            (
                ["-Map", "{ k = v "],
                "argument 2, the value of -Map, starts like a property list but does not parse as one"
            ),
            (
                ["-XML", "<integer>x</integer>"],
                "argument 2, the value of -XML, starts like a property list but does not parse as one"
            ),
            (
                ["-Quote", "\"unterminated"],
                "argument 2, the value of -Quote, starts like a property list but does not parse as one"
            ),
        ] as [([String], String)])
    func malformedArgumentsAreErrorsNotGuesses(arguments: [String], message: String) throws {
        do {
            _ = try Preferences.parseArguments(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message == message)
        }
    }

    @Test func theArgumentDomainOverridesTheAppButNotForcedValuesAndIsNeverWritten() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["Locked": "admin"], domain: "com.example.App", scope: .forced)
        try fixture.install(["Theme": "light", "Locked": "user"], domain: "com.example.App", scope: .user)
        let prefs = try Preferences(
            domain: "com.example.App", arguments: ["-Theme", "dark", "-Locked", "cli", "-Extra", "(1, 2)"],
            storage: fixture.storage)
        #expect(prefs.string(forKey: "Theme") == "dark")
        #expect(prefs.string(forKey: "Locked") == "admin")
        #expect(prefs.source(forKey: "Theme").winner?.layer == .arguments)
        prefs.set("sepia", forKey: "Theme")  // written to the app's domain, still shadowed by the argument
        #expect(prefs.string(forKey: "Theme") == "dark")
        prefs.synchronize()
        #expect(try fixture.stored("com.example.App") == ["Theme": "sepia", "Locked": "user"])
        #expect(prefs.volatileDomain(forName: Preferences.argumentDomain)["Extra"] as? [String] == ["1", "2"])
    }

    @Test func malformedArgumentsCreateNoInstanceAndSetNothing() throws {
        let storage = PreferencesStorage.inMemory()
        #expect(throws: PreferencesError.self) {
            try Preferences(domain: "com.example.App", arguments: ["-Theme", "dark", "oops"], storage: storage)
        }
        let prefs = try Preferences(domain: "com.example.App", storage: storage)
        #expect(prefs.object(forKey: "Theme") == nil)
        #expect(prefs.volatileDomain(forName: Preferences.argumentDomain).isEmpty)
    }

    @Test func aProgramThatOptsInReadsItsCommandLine() throws {
        let fixture = try FacadeFixture()
        let product = BuiltProduct("PreferencesFixture")
        let good = try product.run(
            ["arguments", "-Theme", "dark", "-Sizes", "(10, 12)", "--", "ignored"], environment: fixture.environment)
        #expect(good.status == 0)
        #expect(good.standardOutput == "Sizes = (\n    10,\n    12\n)\nTheme = dark\n")
        #expect(good.standardError == "")
        let bad = try product.run(["arguments", "-Theme"], environment: fixture.environment)
        #expect(bad.status == 2)
        #expect(bad.standardOutput == "")
        #expect(bad.standardError == "PreferencesFixture: argument 1 \"-Theme\" has no value\n")
        // Never persisted: the program wrote no file.
        #expect(!FileManager.default.fileExists(atPath: fixture.path("PreferencesFixture", .user)))
    }
}
