// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import Testing

/// One layer of the search list of `com.example.App` with suites `com.example.suite1`, `com.example.suite2`.
enum TestLayer: Sendable, CustomTestStringConvertible {
    case file(String, PreferenceScope)
    case arguments
    case registered

    var testDescription: String {
        switch self {
        case .file(let domain, let scope): "\(scope) \(domain)"
        case .arguments: "arguments"
        case .registered: "registered"
        }
    }

    /// The value this layer holds for the key `k`.
    var value: String { testDescription }

    var expected: PreferenceLayer {
        switch self {
        case .file(let domain, let scope): .domain(domain, scope)
        case .arguments: .arguments
        case .registered: .registration
        }
    }

    /// DESIGN §3: forced (local, then the fleet's), arguments, by-host then plain app, each suite, global, system,
    /// the fleet's defaults, registration, shipped.
    static let searchOrder: [TestLayer] = [
        .file("com.example.App", .forced), .file("NSGlobalDomain", .forced),
        .file("com.example.App", .fleetForced), .file("NSGlobalDomain", .fleetForced),
        .arguments,
        .file("com.example.App", .byHost), .file("com.example.App", .user),
        .file("com.example.suite1", .byHost), .file("com.example.suite1", .user),
        .file("com.example.suite2", .byHost), .file("com.example.suite2", .user),
        .file("NSGlobalDomain", .byHost), .file("NSGlobalDomain", .user),
        .file("com.example.App", .system), .file("NSGlobalDomain", .system),
        .file("com.example.App", .fleetDefault), .file("NSGlobalDomain", .fleetDefault),
        .registered,
        .file("com.example.App", .shipped), .file("com.example.suite1", .shipped),
        .file("com.example.suite2", .shipped), .file("NSGlobalDomain", .shipped),
    ]
}

/// Every layer and the order they are searched in, through the facade, on real files.
@Suite struct SearchOrderTests {
    /// Installs `k` in the layers from `first` down, so that `first` must win and shadow the others in order.
    @Test(arguments: TestLayer.searchOrder.indices)
    func eachLayerWinsOverEveryLayerBelowIt(first: Int) throws {
        let fixture = try FacadeFixture()
        let layers = Array(TestLayer.searchOrder[first...])
        var arguments: [String] = []
        var registered: [String: Any] = [:]
        for layer in layers {
            switch layer {
            case .file(let domain, let scope):
                try fixture.install(["k": .string(layer.value)], domain: domain, scope: scope)
            case .arguments: arguments = ["-k", layer.value]
            case .registered: registered = ["k": layer.value]
            }
        }
        let prefs = try Preferences(domain: "com.example.App", arguments: arguments, storage: fixture.storage)
        prefs.addSuite(named: "com.example.suite1")
        prefs.addSuite(named: "com.example.suite2")
        prefs.register(defaults: registered)

        #expect(prefs.string(forKey: "k") == layers[0].value)
        let source = prefs.source(forKey: "k")
        #expect(source.winner?.layer == layers[0].expected)
        #expect(source.shadowed.map(\.layer) == layers.dropFirst().map(\.expected))
        #expect(source.isForced == (first < 4))
        #expect(prefs.objectIsForced(forKey: "k") == (first < 4))
        #expect(try prefs.value(forKey: "k") == .string(layers[0].value))
    }

    @Test func searchOrderListsEveryLayerInDesignOrder() throws {
        let fixture = try FacadeFixture()
        let prefs = try fixture.preferences(suites: ["com.example.suite1", "com.example.suite2"])
        #expect(prefs.searchOrder == TestLayer.searchOrder.map(\.expected))
    }

    @Test func removingTheWinningLayerLetsTheNextOneShowThrough() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["k": "system"], domain: "com.example.App", scope: .system)
        try fixture.install(["k": "global"], domain: "NSGlobalDomain", scope: .user)
        let prefs = try fixture.preferences()
        prefs.set("user", forKey: "k")
        #expect(prefs.string(forKey: "k") == "user")
        prefs.removeObject(forKey: "k")
        #expect(prefs.string(forKey: "k") == "global")
        try FileManager.default.removeItem(atPath: fixture.path("NSGlobalDomain", .user))
        prefs.synchronize()
        #expect(prefs.string(forKey: "k") == "system")
    }

    @Test func explainPrintsTheWinnerTheShadowedLayersAndTheSkippedOnes() throws {
        let fixture = try FacadeFixture()
        try fixture.install(["FontSize": 18], domain: "com.example.App", scope: .forced)
        try fixture.install(["FontSize": 14], domain: "com.example.App", scope: .user)
        try fixture.install(["FontSize": 11], domain: "NSGlobalDomain", scope: .user)
        try fixture.install(["FontSize": 10], domain: "com.example.App", scope: .shipped)
        try FileManager.default.createDirectory(
            atPath: fixture.systemDirectory, withIntermediateDirectories: true)
        try Data("{ broken".utf8).write(to: URL(fileURLWithPath: fixture.path("NSGlobalDomain", .system)))
        let prefs = try fixture.preferences()
        prefs.register(defaults: ["FontSize": 12])

        let source = prefs.source(forKey: "FontSize")
        let forced = fixture.path("com.example.App", .forced)
        let user = fixture.path("com.example.App", .user)
        let global = fixture.path("NSGlobalDomain", .user)
        let broken = fixture.path("NSGlobalDomain", .system)
        let shipped = fixture.path("com.example.App", .shipped)
        #expect(
            source.description == """
                FontSize = 18 from forced com.example.App (\(forced))
                  shadows 14 from user com.example.App (\(user))
                  shadows 11 from user NSGlobalDomain (\(global))
                  shadows 12 from registered
                  shadows 10 from shipped com.example.App (\(shipped))
                  skipped system NSGlobalDomain: \(broken), the file of domain NSGlobalDomain (system), is corrupt: \
                the input ends after the key "broken"; expected '=' or ';' (at line 1, column 9)
                """)
        #expect(source.value == 18)
        #expect(source.isForced)
        #expect(source.skipped.map(\.layer) == [.domain("NSGlobalDomain", .system)])
        #expect(source.skipped.map(\.error.code) == [.corrupt])

        let absent = prefs.source(forKey: "Nothing")
        #expect(absent.winner == nil)
        #expect(
            absent.description == """
                Nothing is not set in any layer
                  skipped system NSGlobalDomain: \(broken), the file of domain NSGlobalDomain (system), is corrupt: \
                the input ends after the key "broken"; expected '=' or ';' (at line 1, column 9)
                """)
    }
}

/// The registration defaults the project ships in `Domains/`, read through the facade.
@Suite struct ShippedDomainsTests {
    static let shippedDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Domains").path

    static var shippedFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: shippedDirectory)) ?? []).filter {
            $0.hasSuffix(".plist")
        }.sorted()
    }

    @Test(.enabled(if: !shippedFiles.isEmpty, "the repository has no Domains/ files yet"))
    func everyShippedDefaultIsTheEffectiveValueOfAnEmptyUserSetup() throws {
        let fixture = try FacadeFixture()
        let storage = PreferencesStorage.directories(
            preferences: fixture.preferencesDirectory, domains: Self.shippedDirectory,
            machineID: FacadeFixture.machineID)
        for file in Self.shippedFiles {
            let stem = String(file.dropLast(".plist".count))
            let domain = stem == ".GlobalPreferences" ? "NSGlobalDomain" : stem
            let path = Self.shippedDirectory + "/" + file
            let contents = try PlistSerialization.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            let values = try #require(contents.dictionaryValue, "\(file) is not a dictionary")
            let prefs = try Preferences(domain: domain, storage: storage)
            for (key, value) in values {
                #expect(try prefs.value(forKey: key) == value, "\(file): \(key)")
                #expect(prefs.source(forKey: key).winner?.layer == .domain(domain, .shipped))
                #expect(prefs.source(forKey: key).winner?.path == path)
            }
        }
    }
}
