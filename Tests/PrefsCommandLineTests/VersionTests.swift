// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import PrefsCommandLine

/// The version is written once, in ``PreferencesVersion``; the files that must repeat it are checked against it.
@Suite struct VersionTests {
    /// The repository's root: this file is `Tests/PrefsCommandLineTests/VersionTests.swift`.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func contents(_ relativePath: String) throws -> String {
        try String(contentsOfFile: repository + "/" + relativePath, encoding: .utf8)
    }

    /// The lines of a file that start with a prefix, without it.
    static func lines(of text: String, after prefix: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count) }
    }

    @Test func theVersionIsThreeNumbers() {
        let parts = PreferencesVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil })
        #expect(PreferencesVersion.versionLine(program: "prefsd") == "prefsd \(PreferencesVersion.current)\n")
    }

    /// Keep a Changelog: `## [Unreleased]` first, then the releases newest first, `## [1.0.0] - 2026-12-02`.
    @Test func theChangelogsNewestReleaseIsTheVersion() throws {
        let headings = Self.lines(of: try Self.contents("CHANGELOG.md"), after: "## ")
        try #require(headings.count >= 2, "CHANGELOG.md has no release")
        #expect(headings[0] == "[Unreleased]")
        let newest = headings[1]
        #expect(newest.hasPrefix("[\(PreferencesVersion.current)] - "), "the newest release is \(newest)")
        let date = newest.split(separator: " ").last.map(String.init) ?? ""
        let fields = date.split(separator: "-").compactMap { Int($0) }
        #expect(date.count == 10 && fields.count == 3, "'\(date)' is not YYYY-MM-DD")
        #expect(fields.count == 3 && (1...12).contains(fields[1]) && (1...31).contains(fields[2]), "'\(date)'")
    }

    @Test func thePythonClientHasTheVersion() throws {
        let project = Self.lines(of: try Self.contents("clients/python/pyproject.toml"), after: "version = ")
        #expect(project == ["\"\(PreferencesVersion.current)\""])
        let module = Self.lines(of: try Self.contents("clients/python/src/prefsd/__init__.py"), after: "__version__ = ")
        #expect(module == ["\"\(PreferencesVersion.current)\""])
    }

    /// Each page names the version in its title line and in the line its `--version` prints.
    @Test(arguments: [("packaging/man/plutil.1", "plutil"), ("packaging/man/prefsd.8", "prefsd")])
    func theHandWrittenManualPagesNameTheVersion(page: String, program: String) throws {
        let text = try Self.contents(page)
        let title = try #require(Self.lines(of: text, after: ".TH ").first)
        #expect(title.contains("\"\(PreferencesVersion.projectName) \(PreferencesVersion.current)\""), "\(title)")
        #expect(text.contains("\"\(program) \(PreferencesVersion.current)\""), "\(page) shows what --version prints")
    }

    static let debianChangelog = repository + "/debian/changelog"

    /// `preferences (1.0.0-1) unstable; urgency=medium`: the upstream version is what the parentheses hold before
    /// the last `-` (the Debian revision), after an epoch's `:` if any.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: debianChangelog), "debian/changelog does not exist"))
    func theDebianChangelogsNewestEntryHasTheVersion() throws {
        let text = try String(contentsOfFile: Self.debianChangelog, encoding: .utf8)
        let first = try #require(text.split(separator: "\n").first)
        let opening = try #require(first.firstIndex(of: "("))
        let closing = try #require(first[opening...].firstIndex(of: ")"))
        var version = first[first.index(after: opening)..<closing]
        if let epoch = version.firstIndex(of: ":") { version = version[version.index(after: epoch)...] }
        if let revision = version.lastIndex(of: "-") { version = version[..<revision] }
        #expect(version == PreferencesVersion.current[...], "debian/changelog: \(first)")
    }
}
