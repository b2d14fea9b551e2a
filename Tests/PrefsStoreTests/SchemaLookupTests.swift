// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// Schema files in the layers' `Schemas` directories: the highest layer's readable one wins, a broken one is named and
/// skipped, none is ever listed as a domain; and the schemas `Domains/Schemas` ships agree with the rules compiled in
/// and with the shipped defaults.
@Suite struct SchemaLookupTests {
    static let editor = try! DomainName("com.example.Editor")

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func schema(default value: Int) -> String {
        "{ Keys = { FontSize = { Type = integer; Default = \(value); Minimum = 6; Maximum = 72; }; }; }"
    }

    @Test func theHighestLayersSchemaWins() throws {
        let fixture = try StoreFixture()
        #expect(SchemaLookup.find(for: Self.editor, in: fixture.paths).schema == nil)
        let shipped = fixture.directory.file("domains/Schemas/com.example.Editor.schema.plist")
        try Self.write(Self.schema(default: 10), to: shipped)
        #expect(SchemaLookup.find(for: Self.editor, in: fixture.paths).schema?.path == shipped)
        let system = fixture.directory.file("system/Schemas/com.example.Editor.schema.plist")
        try Self.write(Self.schema(default: 11), to: system)
        #expect(SchemaLookup.find(for: Self.editor, in: fixture.paths).schema?.path == system)
        let user = fixture.directory.file("prefs/Schemas/com.example.Editor.schema.plist")
        try Self.write(Self.schema(default: 12), to: user)
        let lookup = SchemaLookup.find(for: Self.editor, in: fixture.paths)
        #expect(lookup.schema?.path == user)
        #expect(lookup.schema?.keys["FontSize"]?.defaultValue == 12)
        #expect(lookup.problems.isEmpty)
    }

    @Test func aBrokenSchemaIsNamedAndTheNextLayersIsUsed() throws {
        let fixture = try StoreFixture()
        let shipped = fixture.directory.file("domains/Schemas/com.example.Editor.schema.plist")
        try Self.write(Self.schema(default: 10), to: shipped)
        let user = fixture.directory.file("prefs/Schemas/com.example.Editor.schema.plist")
        try Self.write("{ Keys = { FontSize = { Type = integer; Minimum = 9; Maximum = 1; }; }; }", to: user)
        let lookup = SchemaLookup.find(for: Self.editor, in: fixture.paths)
        #expect(lookup.schema?.path == shipped)
        #expect(lookup.problems.map(\.message) == ["schema \(user): key FontSize: Minimum 9 is greater than Maximum 1"])
        #expect(lookup.problems.first?.code == .invalidSchema)
    }

    @Test func schemaFilesAreNeverListedAsDomains() throws {
        let fixture = try StoreFixture()
        for directory in ["prefs", "system", "domains"] {
            try Self.write(Self.schema(default: 10), to: fixture.directory.file("\(directory)/Schemas/x.schema.plist"))
            try Self.write("{ A = 1; }", to: fixture.directory.file("\(directory)/com.example.Real.plist"))
        }
        let store = fixture.makeStore(watchesFiles: false)
        for scope in [DomainScope.user, .system, .shipped] {
            #expect(try store.domainNames(scope: scope).map(\.rawValue) == ["com.example.Real"], "\(scope)")
        }
    }

    @Test func theShippedPrefsdSchemaAgreesWithTheCompiledInRulesAndTheShippedDefaults() throws {
        let path = Self.repository + "/Domains/Schemas/prefsd.schema.plist"
        let schema = try #require(try SchemaLookup.read(path, domain: DomainSchema.prefsd.domain))
        #expect(Set(schema.keys.keys) == Set(DomainSchema.prefsd.keys.keys))
        for (key, compiled) in DomainSchema.prefsd.keys {
            let shipped = try #require(schema.keys[key])
            #expect(shipped.hasSameRule(as: compiled), "\(key): \(shipped) against \(compiled)")
            #expect(shipped.summary != nil, "\(key) has a summary")
        }
        let defaults = try PlistSerialization.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: Self.repository + "/Domains/prefsd.plist"))))
        let values = try #require(defaults.dictionaryValue)
        #expect(Set(values.keys) == Set(schema.keys.keys))
        for (key, value) in values {
            let expected = try #require(schema.keys[key]?.defaultValue, "\(key) has a default")
            #expect(KeySchema.sameValue(expected, value), "\(key): \(expected) in the schema, \(value) shipped")
        }
    }

    @Test func theShippedGlobalSchemaAgreesWithTheShippedGlobalDefaults() throws {
        let path = Self.repository + "/Domains/Schemas/NSGlobalDomain.schema.plist"
        let schema = try #require(try SchemaLookup.read(path, domain: .global))
        let defaults = try PlistSerialization.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: Self.repository + "/Domains/.GlobalPreferences.plist"))))
        for (key, value) in try #require(defaults.dictionaryValue) {
            let entry = try #require(schema.keys[key], "\(key) is described")
            #expect(entry.defaultValue == value, "\(key)")
            #expect(entry.accepts(value), "\(key)")
        }
        for key in ["AppleLocale", "AppleLanguages", "AppleICUForce24HourTime"] {
            #expect(schema.keys[key]?.summary != nil, "\(key)")
        }
    }
}
