// SPDX-License-Identifier: Apache-2.0
import PrefsDaemon
import PrefsPlist
import Testing

/// What a reload of the fleet settings changes at once and what only at the next start, each said in one line.
@Suite struct FleetConfigurationTests {
    static let base: PlistDictionary = [
        "FleetEndpoints": .array(["http://10.0.0.1:2379"]), "FleetGroups": .array(["lab"]),
        "FleetHostName": "web-1",
    ]

    static func settings(_ changes: PlistDictionary) throws -> FleetSettings {
        try #require(DaemonSettings(values: base.merging(changes) { _, new in new }).fleet)
    }

    @Test func eachChangedSettingIsOneLineAndReplacesTheSettings() throws {
        let configuration = FleetConfiguration(try Self.settings([:]))
        let generation = configuration.generation
        let changes = configuration.replace(
            with: try Self.settings([
                "FleetEndpoints": .array(["http://10.0.0.2:2379", "http://10.0.0.3:2379"]),
                "FleetGroups": .array(["office", "eu"]), "FleetHostTTL": 10, "FleetWatchCheckSeconds": 2,
            ]))
        #expect(
            changes.applied == [
                "FleetEndpoints http://10.0.0.1:2379 -> http://10.0.0.2:2379,http://10.0.0.3:2379",
                "FleetGroups lab -> office,eu", "FleetHostTTL 30 -> 10",
                "FleetWatchCheckSeconds 10.0 seconds -> 2.0 seconds",
            ])
        #expect(changes.atNextStart.isEmpty)
        #expect(configuration.current.groups == ["office", "eu"])
        #expect(configuration.generation != generation)
    }

    @Test func roamingChangesWaitForTheNextStartAndNothingChangedSignalsNothing() throws {
        let configuration = FleetConfiguration(try Self.settings([:]))
        let generation = configuration.generation
        let none = configuration.replace(with: try Self.settings([:]))
        #expect(none.applied.isEmpty && none.atNextStart.isEmpty)
        let changes = configuration.replace(
            with: try Self.settings(["FleetRoamingDomains": .array(["com.example.Notes"]), "FleetRoamingUser": "ada"]))
        #expect(changes.applied.isEmpty)
        #expect(changes.atNextStart.count == 2)
        #expect(changes.atNextStart.first == "FleetRoamingDomains none -> com.example.Notes")
        #expect(configuration.current.roamingDomains.isEmpty)
        #expect(configuration.generation == generation)
    }
}
