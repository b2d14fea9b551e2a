// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDomain
import PrefsTestSupport
import Testing

@testable import Preferences

/// The application domain `Preferences.standard` uses: the executable's name, made a valid domain name.
@Suite struct ApplicationDomainTests {
    @Test(arguments: [
        ("com.example.Editor", "com.example.Editor"),
        ("my app", "my_app"),
        ("tool+x", "tool_x"),
        (".hidden", "_.hidden"),
        ("a..b", "a._b"),
        ("café", "caf__"),
        ("", "application"),
        (String(repeating: "x", count: 300), String(repeating: "x", count: 216)),
    ])
    func executableNamesBecomeValidDomainNames(executable: String, domain: String) {
        #expect(Preferences.domainName(sanitizing: executable).rawValue == domain)
    }

    @Test func theApplicationDomainIsNamedAfterTheRunningExecutable() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let name = (executable as NSString).lastPathComponent
        #expect(Preferences.applicationDomain == Preferences.domainName(sanitizing: name).rawValue)
        // Preferences.standard itself is checked in a child process (below), whose environment points at a temp
        // dir: here it would open the real user's Preferences directory.
    }

    @Test func aProgramsStandardDomainIsItsName() throws {
        let fixture = try FacadeFixture()
        let run = try BuiltProduct("PreferencesFixture").run(["sample"], environment: fixture.environment)
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: fixture.path("PreferencesFixture", .user)))
    }
}
