// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import PrefsStore

@Suite struct SearchListTests {
    @Test func layersFollowTheDesignOrder() throws {
        let app = name("com.example.App")
        let suite = name("com.example.Suite")
        let list = SearchList(domain: app, suites: [suite], includesArguments: true)
        let expected: [Layer] = [
            .domain(DomainID(app, scope: .forced)), .domain(DomainID(.global, scope: .forced)),
            .domain(DomainID(app, scope: .fleetForced)), .domain(DomainID(.global, scope: .fleetForced)),
            .arguments,
            .domain(DomainID(app, scope: .byHost)), .domain(DomainID(app)),
            .domain(DomainID(suite, scope: .byHost)), .domain(DomainID(suite)),
            .domain(DomainID(.global, scope: .byHost)), .domain(.global),
            .domain(DomainID(app, scope: .system)), .domain(DomainID(.global, scope: .system)),
            .domain(DomainID(app, scope: .fleetDefault)), .domain(DomainID(.global, scope: .fleetDefault)),
            .registered,
            .domain(DomainID(app, scope: .shipped)), .domain(DomainID(suite, scope: .shipped)),
            .domain(DomainID(.global, scope: .shipped)),
        ]
        #expect(list.layers == expected)
    }

    @Test func flagsLeaveLayersOut() {
        let app = name("com.example.App")
        let list = SearchList(domain: app, suites: [app, .global], includesByHost: false, includesGlobal: false)
        #expect(
            list.layers == [
                .domain(DomainID(app, scope: .forced)), .domain(DomainID(app, scope: .fleetForced)),
                .domain(DomainID(app)), .domain(DomainID(app, scope: .system)),
                .domain(DomainID(app, scope: .fleetDefault)), .registered, .domain(DomainID(app, scope: .shipped)),
            ])
        #expect(!list.layers.contains(.arguments))
    }

    /// Puts a value for `key` in every layer, then removes them from the top: each removal must reveal the next
    /// layer, and the explanation must list all those below as shadowed.
    @Test func everyLayerWinsOverTheOnesBelowIt() throws {
        let fixture = try StoreFixture()
        let app = name("com.example.App")
        let suite = name("com.example.Suite")
        let list = SearchList(domain: app, suites: [suite], includesArguments: true)
        for layer in list.layers {
            guard case .domain(let id) = layer else { continue }
            try fixture.install(["key": .string("\(layer)"), "only-\(id.scope)-\(id.name)": true], as: id)
        }
        let store = fixture.makeStore()
        store.setArgumentDomain(["key": "arguments"])

        // Registered defaults cannot be taken away again, so they get their own check below.
        var remaining = list.layers.filter { $0 != .registered }
        while let top = remaining.first {
            let resolution = store.resolve("key", in: list)
            #expect(resolution.value == .string("\(top)"), "expected \(top) to win")
            #expect(resolution.winner?.layer == top)
            #expect(resolution.shadowed.map(\.layer) == Array(remaining.dropFirst()))
            #expect(store.effectiveValue(forKey: "key", in: list) == .string("\(top)"))
            if case .domain(let id) = top {
                #expect(resolution.winner?.path == (try fixture.path(id)))
                #expect(resolution.isForced == id.scope.isForced)
            } else {
                #expect(resolution.winner?.path == nil)
            }
            switch top {
            case .arguments, .registered:
                store.setArgumentDomain([:])
            case .domain(let id):
                if id.scope.isWritable {
                    try store.set(nil, forKey: "key", in: id)
                } else {
                    try writeFile(try fixture.path(id), Array("{ }".utf8))
                    try store.synchronize()
                }
            }
            remaining.removeFirst()
        }
        #expect(store.resolve("key", in: list).winner == nil)
    }

    @Test func registeredDefaultsComeAfterSystemAndBeforeShipped() throws {
        let fixture = try StoreFixture()
        let app = name("com.example.App")
        try fixture.install(["a": "system", "b": "system"], as: DomainID(.global, scope: .system))
        try fixture.install(["a": "shipped", "b": "shipped", "c": "shipped"], as: DomainID(app, scope: .shipped))
        let store = fixture.makeStore()
        store.register(defaults: ["a": "registered", "c": "registered"])
        let list = SearchList(domain: app)
        #expect(store.resolve("a", in: list).winner?.layer == .domain(DomainID(.global, scope: .system)))
        #expect(
            store.resolve("a", in: list).shadowed.map(\.layer) == [
                .registered, .domain(DomainID(app, scope: .shipped)),
            ])
        #expect(store.resolve("c", in: list).winner?.layer == .registered)
        store.register(defaults: ["c": "again"])
        #expect(store.effectiveValue(forKey: "c", in: list) == "again")
        #expect(store.registeredDefaults == ["a": "registered", "c": "again"])
    }

    @Test func theEffectiveViewMergesFirstHitWins() throws {
        let fixture = try StoreFixture()
        let app = name("com.example.App")
        try fixture.install(["a": "system", "b": "system"], as: DomainID(app, scope: .system))
        try fixture.install(["a": "global", "c": "global"], as: .global)
        try fixture.install(["forced": "yes"], as: DomainID(.global, scope: .forced))
        try fixture.install(["shipped": 1], as: DomainID(app, scope: .shipped))
        let store = fixture.makeStore()
        store.register(defaults: ["registered": true, "a": "registered"])
        try store.set("app", forKey: "a", in: DomainID(app))

        let view = store.effectiveView(for: SearchList(domain: app))
        #expect(
            view.values == [
                "a": "app", "b": "system", "c": "global", "forced": "yes", "shipped": 1, "registered": true,
            ])
        #expect(store.effectiveView(for: SearchList(domain: app)) === view)

        let before = view.version
        try store.set(nil, forKey: "a", in: DomainID(app))
        #expect(view.value(forKey: "a") == "global")
        #expect(view.version > before)
        try store.set("shadowed", forKey: "forced", in: DomainID(app))
        #expect(view.value(forKey: "forced") == "yes")
        let resolution = view.resolve("forced")
        #expect(resolution.isForced)
        #expect(resolution.shadowed.map(\.value) == ["shadowed"])
        #expect(
            resolution.description == """
                forced = yes from forced NSGlobalDomain (\(try fixture.path(DomainID(.global, scope: .forced))))
                  shadows shadowed from user com.example.App (\(try fixture.path(DomainID(app))))
                """)
    }

    @Test func explainReportsCorruptLayersItSkipped() throws {
        let fixture = try StoreFixture()
        let app = name("com.example.App")
        try fixture.install(["key": "global"], as: .global)
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        try writeFile(try fixture.path(DomainID(app)), Array("<plist><dict><key>key</key>".utf8))
        let store = fixture.makeStore()
        let resolution = store.resolve("key", in: SearchList(domain: app))
        #expect(resolution.value == "global")
        #expect(resolution.skipped.map(\.layer) == [.domain(DomainID(app))])
        #expect(resolution.skipped.first?.error.code == .corruptFile)
        #expect(resolution.description.contains("skipped user com.example.App"))
        #expect(resolution.description.contains(try fixture.path(DomainID(app))))
    }
}
