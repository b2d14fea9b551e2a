// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import PrefsStore

@Suite struct StorePathsTests {
    let machineID = "0123456789abcdef0123456789abcdef"

    @Test func defaultsFollowXDGAndHome() {
        let paths = StorePaths(environment: ["HOME": "/home/ada"], machineID: machineID)
        #expect(paths.preferencesDirectory == "/home/ada/.config/preferences")
        #expect(paths.systemDirectory == "/etc/preferences")
        #expect(paths.forcedDirectory == "/etc/preferences/forced")
        #expect(paths.shippedDirectory == "/usr/share/preferences/domains")

        let xdg = StorePaths(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg/"], machineID: machineID)
        #expect(xdg.preferencesDirectory == "/cfg/preferences")
        // The XDG specification says a relative XDG_CONFIG_HOME is invalid.
        let relative = StorePaths(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "cfg"], machineID: machineID)
        #expect(relative.preferencesDirectory == "/home/ada/.config/preferences")
    }

    @Test func environmentOverridesEveryDirectory() {
        let paths = StorePaths(
            environment: [
                "HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg", "PREFERENCES_HOME": "/p/",
                "PREFERENCES_SYSTEM_DIR": "/s",
                "PREFERENCES_DOMAINS_DIR": "/d",
            ], machineID: machineID)
        #expect(paths.preferencesDirectory == "/p")
        #expect(paths.systemDirectory == "/s")
        #expect(paths.forcedDirectory == "/s/forced")
        #expect(paths.shippedDirectory == "/d")
        let empty = StorePaths(environment: ["HOME": "/h", "PREFERENCES_HOME": ""], machineID: machineID)
        #expect(empty.preferencesDirectory == "/h/.config/preferences")
    }

    @Test func everyScopeHasItsFile() throws {
        let paths = StorePaths(
            preferencesDirectory: "/p", systemDirectory: "/s", shippedDirectory: "/d", machineID: machineID)
        let app = try DomainName("com.example.App")
        #expect(try paths.path(for: DomainID(app)) == "/p/com.example.App.plist")
        #expect(try paths.path(for: DomainID(app, scope: .byHost)) == "/p/ByHost/com.example.App.\(machineID).plist")
        #expect(try paths.path(for: DomainID(app, scope: .system)) == "/s/com.example.App.plist")
        #expect(try paths.path(for: DomainID(app, scope: .forced)) == "/s/forced/com.example.App.plist")
        #expect(try paths.path(for: DomainID(app, scope: .shipped)) == "/d/com.example.App.plist")
        #expect(try paths.path(for: .global) == "/p/.GlobalPreferences.plist")
        #expect(
            try paths.path(for: DomainID(.global, scope: .byHost)) == "/p/ByHost/.GlobalPreferences.\(machineID).plist")
        #expect(try paths.lockLocation(of: DomainID(app)).path == "/p/.locks/com.example.App.lock")
        #expect(
            try paths.lockLocation(of: DomainID(app, scope: .byHost)).path
                == "/p/.locks/ByHost/com.example.App.\(machineID).lock")
    }

    @Test("the separate lock directory of a file path's directory: one name per directory, shortened when long")
    func separateLocksDirectories() throws {
        #expect(
            StorePaths.separateLocksDirectory(for: "/home/u/work", runtimeDirectory: "/run/user/1000/")
                == "/run/user/1000/preferences/locks/%2Fhome%2Fu%2Fwork")
        // `%` is escaped too, so `/a%2Fb` and `/a/b` do not share a lock.
        #expect(
            StorePaths.separateLocksDirectory(for: "/a%2Fb", runtimeDirectory: "/r")
                != StorePaths.separateLocksDirectory(for: "/a/b", runtimeDirectory: "/r"))
        let deep = "/" + Array(repeating: "directory", count: 40).joined(separator: "/")
        let name = try #require(
            StorePaths.separateLocksDirectory(for: deep, runtimeDirectory: "/r").split(separator: "/").last)
        #expect(name.utf8.count <= 200)
        #expect(
            StorePaths.separateLocksDirectory(for: deep + "x", runtimeDirectory: "/r")
                != StorePaths.separateLocksDirectory(for: deep, runtimeDirectory: "/r"))

        var paths = StorePaths(preferencesDirectory: "/w", systemDirectory: nil, shippedDirectory: nil, machineID: nil)
        paths.separateLocksDirectory = "/r/preferences/locks/%2Fw"
        #expect(
            try paths.lockLocation(of: DomainID(DomainName("local"))).path == "/r/preferences/locks/%2Fw/local.lock")
    }

    @Test func fileNamesMapBackToDomains() throws {
        let paths = StorePaths(
            preferencesDirectory: "/p", systemDirectory: "/s", shippedDirectory: "/d", machineID: machineID)
        #expect(paths.domain(forFileName: "com.example.plist", scope: .user) == DomainID(try DomainName("com.example")))
        #expect(paths.domain(forFileName: ".GlobalPreferences.plist", scope: .user) == .global)
        #expect(paths.domain(forFileName: "NSGlobalDomain.plist", scope: .user) == nil)
        #expect(paths.domain(forFileName: ".com.example.plist.tmp-12-ab", scope: .user) == nil)
        #expect(paths.domain(forFileName: "com.example.plist.corrupt-20240101T000000Z", scope: .user) == nil)
        #expect(
            paths.domain(forFileName: "com.example.\(machineID).plist", scope: .byHost)
                == DomainID(try DomainName("com.example"), scope: .byHost))
        #expect(paths.domain(forFileName: "com.example.ffffffffffffffffffffffffffffffff.plist", scope: .byHost) == nil)
    }

    @Test func byHostNeedsAValidMachineID() throws {
        for bad in [nil, "", "not-hex", "0123456789ABCDEF", String(repeating: "g", count: 32)] as [String?] {
            let paths = StorePaths(
                preferencesDirectory: "/p", systemDirectory: nil, shippedDirectory: nil, machineID: bad)
            #expect(paths.machineID == nil)
            let error = #expect(throws: PrefsStoreError.self) {
                try paths.path(for: DomainID(try DomainName("a"), scope: .byHost))
            }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("machine id") == true)
        }
        let trimmed = StorePaths(
            preferencesDirectory: "/p", systemDirectory: nil, shippedDirectory: nil, machineID: machineID + "\n")
        #expect(trimmed.machineID == machineID)
    }

    @Test func readsTheSystemMachineIDAsSystemdDoes() throws {
        let text = try? String(contentsOfFile: StorePaths.machineIDPath, encoding: .utf8)
        let expected = text?.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(StorePaths.systemMachineID() == (expected?.utf8.count == 32 ? expected : nil))
    }

    @Test func aMachineIDInUpperCaseIsTheSameIDAndAnInvalidOneIsNamed() {
        let upper = "0123456789ABCDEF0123456789ABCDEF"
        #expect(StorePaths.machineID(environment: ["PREFERENCES_MACHINE_ID": upper]) == machineID)
        #expect(StorePaths(environment: [:], machineID: upper).machineID == machineID)
        #expect(StorePaths.machineIDProblem(environment: ["PREFERENCES_MACHINE_ID": upper]) == nil)
        #expect(StorePaths.machineIDProblem(environment: [:]) == nil)
        let problem = StorePaths.machineIDProblem(environment: ["PREFERENCES_MACHINE_ID": "host-7"])
        #expect(
            problem?.hasPrefix("PREFERENCES_MACHINE_ID \"host-7\" is not a machine id (32 hexadecimal digits); ")
                == true)
    }
}
