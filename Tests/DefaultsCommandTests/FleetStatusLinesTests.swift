// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsWire
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// The lines `defaults fleet status` prints for each state the daemon reports.
@Suite struct FleetStatusLinesTests {
    @Test func notInAFleet() {
        #expect(CommandRunner.fleetStatusLines(nil) == ["state: not in a fleet (prefsd has no FleetEndpoints setting)"])
    }

    @Test func connectingHasOnlyWhatIsKnown() {
        let status = WireFleetStatus(state: .connecting, appliedRevision: 7, cacheDirectory: "/p/Fleet")
        #expect(
            CommandRunner.fleetStatusLines(status) == [
                "state: connecting", "revision: 7", "refused values: 0", "cache: /p/Fleet",
            ])
    }

    @Test func offlineShowsTheLagAndTheLastError() {
        let status = WireFleetStatus(
            state: .offline, endpoint: "http://10.0.0.5:2379", appliedRevision: 40, latestRevision: 42,
            lastError: "no etcd endpoint answered", lastErrorDate: PlistDate(secondsSince1970: 1_790_000_000),
            refusedValues: 2, cacheDirectory: "/p/Fleet")
        #expect(
            CommandRunner.fleetStatusLines(status) == [
                "state: offline", "endpoint: http://10.0.0.5:2379", "revision: 40", "latest revision: 42", "lag: 2",
                "last error: no etcd endpoint answered", "last error date: 2026-09-21 14:13:20 +0000",
                "refused values: 2", "cache: /p/Fleet",
            ])
    }

    @Test func roamingShowsItsDomainsAndWhatWaits() {
        var status = WireFleetStatus(state: .connected, appliedRevision: 3, cacheDirectory: "/p/Fleet")
        status.roamingUser = "ada"
        status.roamingDomains = ["com.example.Editor", "NSGlobalDomain"]
        status.roamingPending = 2
        #expect(
            CommandRunner.fleetStatusLines(status) == [
                "state: connected", "revision: 3", "refused values: 0",
                "roaming: com.example.Editor, NSGlobalDomain as ada", "roaming changes waiting: 2", "cache: /p/Fleet",
            ])
    }

    @Test func aRegisteredHostShowsItsNameGroupsPolicyAndLease() {
        var status = WireFleetStatus(state: .connected, appliedRevision: 40, latestRevision: 44, cacheDirectory: "/c")
        status.hostName = "web-1"
        status.machineID = "0123456789abcdef0123456789abcdef"
        status.groups = ["web", "eu"]
        status.policyRevision = 42
        status.hostKey = "/preferences/hosts/0123456789abcdef0123456789abcdef"
        status.hostLeaseSeconds = 30
        #expect(
            CommandRunner.fleetStatusLines(status) == [
                "state: connected", "host: web-1", "machine id: 0123456789abcdef0123456789abcdef", "groups: web, eu",
                "revision: 40", "policy revision: 42 (2 behind)", "latest revision: 44", "lag: 4",
                "registered: /preferences/hosts/0123456789abcdef0123456789abcdef (lease 30 s)", "refused values: 0",
                "cache: /c",
            ])
        status.hostKey = nil
        status.hostLeaseSeconds = nil
        status.registrationError = "no etcd endpoint answered a lease of 30 s"
        #expect(
            CommandRunner.fleetStatusLines(status).contains(
                "registered: no (no etcd endpoint answered a lease of 30 s)"))
    }

    @Test func aVerbsHelpHasItsFormsAndItsManualWrapped() {
        let text = HelpText.text(of: "fleet")
        #expect(text.hasPrefix("usage:\n  defaults fleet write -forced|-default"))
        #expect(text.contains("defaults fleet hosts [-group <name> | -host <id>] [-behind] [-format text|json]"))
        #expect(text.contains("\nhosts lists every live host"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 })
        #expect(text.hasSuffix("All commands: defaults help; the manual: defaults man.\n"))
        #expect(HelpText.text(of: "printhostidentifier").contains("defaults printHostIdentifier"))
    }
}
