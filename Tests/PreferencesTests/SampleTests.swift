// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// The ported NSUserDefaults sample (docs/PREFERENCES.md), run as a program.
@Suite struct SampleTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theSampleSavesSynchronizesAndReadsBack() throws {
        let fixture = try FacadeFixture()
        let product = BuiltProduct("PreferencesFixture")
        let run = try product.run(["sample"], environment: fixture.environment)
        #expect(run.status == 0)
        #expect(run.standardOutput == "Ada Lovelace, 36, 1.65 m, female\n")
        #expect(run.standardError == "")

        // synchronize() wrote the file, with native types.
        #expect(
            try fixture.stored("PreferencesFixture")
                == ["name": "Ada Lovelace", "age": 36, "height": 1.65, "gender": "female"])

        // Another process reads the values back.
        let read = try product.run(
            ["read", "name", "age", "height", "gender", "missing"], environment: fixture.environment)
        #expect(read.status == 0)
        #expect(
            read.standardOutput
                == "name = Ada Lovelace\nage = 36\nheight = 1.65\ngender = female\nmissing is absent\n")
        #expect(read.standardError == "")
    }

    @Test func theDocumentationShowsExactlyTheLinesTheProgramRuns() throws {
        let guide = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/PREFERENCES.md"), encoding: .utf8)
        let section = try #require(guide.range(of: "## Porting the classic NSUserDefaults sample"))
        let afterHeading = guide[section.upperBound...]
        let blockStart = try #require(afterHeading.range(of: "```swift\n"))
        let blockEnd = try #require(afterHeading[blockStart.upperBound...].range(of: "```"))
        var documented = afterHeading[blockStart.upperBound..<blockEnd.lowerBound].split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        #expect(Array(documented.prefix(2)) == ["import Preferences", ""])
        documented.removeFirst(2)
        if documented.last == "" { documented.removeLast() }
        #expect(documented.count + 2 <= 20)

        let source = try String(
            contentsOf: Self.repository.appendingPathComponent("Tests/Fixtures/PreferencesFixture/Sample.swift"),
            encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let begin = try #require(lines.firstIndex { $0.contains("// BEGIN SAMPLE") })
        let end = try #require(lines.firstIndex { $0.contains("// END SAMPLE") })
        let program = lines[(begin + 1)..<end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }
        #expect(documented == program)
    }
}
