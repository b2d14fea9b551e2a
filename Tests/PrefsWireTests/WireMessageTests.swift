// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import PrefsWire

/// Every message type through its dictionary form and a real frame, and strict validation of every field.
@Suite struct WireMessageTests {
    /// Encodes the dictionary into a frame and decodes it back, as a peer would see it.
    static func throughFrame(_ dictionary: PlistDictionary) throws -> PlistDictionary {
        var decoder = WireFrameDecoder()
        try decoder.append(try WireFrame.encode(dictionary))
        return try #require(try decoder.nextFrame())
    }

    static let app = WireDomain("com.example.app")
    static let hostApp = WireDomain("com.example.app", byHost: true)
    static let systemGlobal = WireDomain(WireDomain.globalDomainName, scope: .system)
    static let nestedValue: PlistValue = [
        "list": [1, 2.5, true, "text", .data([0, 255]), .date(PlistDate(secondsSinceReferenceDate: -1))],
        "big": .integer(PlistInteger(UInt64.max)), "empty": [:],
    ]

    static let operations: [WireOperation] = [
        .hello(WireHello()),
        .hello(WireHello(version: 3, minVersion: 1, client: "defaults 1.0")),
        .get(app, key: "Colour"),
        .get(systemGlobal, key: "AppleLocale"),
        .getEffective(WireSearchList(app: "com.example.app"), key: "Colour"),
        .getEffective(WireSearchList(app: "com.example.app", suites: ["group.one", "group.two"]), key: "k"),
        .set(app, key: "Colour", value: "red", expectedVersion: nil),
        .set(hostApp, key: "Window", value: nestedValue, expectedVersion: 41),
        .setMany(app, values: ["a": 1, "b": nestedValue], removeKeys: ["c", "d"], expectedVersion: UInt64.max),
        .setMany(app, values: [:], removeKeys: [], expectedVersion: nil),
        .remove(app, key: "Colour", expectedVersion: nil),
        .remove(hostApp, key: "Colour", expectedVersion: 0),
        .readDomain(app),
        .readDomain(WireDomain("com.example.app", scope: .forced)),
        .writeDomain(app, values: ["x": nestedValue], expectedVersion: 9),
        .writeDomain(app, values: [:], expectedVersion: nil),
        .removeDomain(hostApp, expectedVersion: nil),
        .removeDomain(app, expectedVersion: 12),
        .listDomains(scope: .user, byHost: false),
        .listDomains(scope: .user, byHost: true),
        .listDomains(scope: .system, byHost: false),
        .synchronize,
        .subscribe(WireSubscriptionFilter(.domain(app))),
        .subscribe(WireSubscriptionFilter(.domain(hostApp), keys: .key("Colour"))),
        .subscribe(WireSubscriptionFilter(.domain(systemGlobal), keys: .prefix("Apple"))),
        .subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: "com.example.app", suites: ["s"])))),
        .subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: "a")), keys: .key("k"))),
        .unsubscribe(subscription: 3),
        .fleetStatus,
    ]

    @Test func everyOperationIsCovered() {
        #expect(Set(Self.operations.map(\.name)) == Set(WireOperation.Name.allCases))
    }

    @Test(arguments: operations)
    func requestRoundTrips(operation: WireOperation) throws {
        for id in [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max] {
            let request = WireRequest(id: id, operation)
            let decoded = try WireRequest(dictionary: try Self.throughFrame(request.dictionary))
            #expect(decoded == request)
        }
    }

    @Test func requestDictionaryUsesTheDocumentedFields() {
        let request = WireRequest(id: 5, .set(Self.hostApp, key: "k", value: 1, expectedVersion: 4))
        #expect(
            request.dictionary == [
                "id": 5, "op": "set", "domain": "com.example.app", "byHost": true, "key": "k", "value": 1,
                "expectedVersion": 4,
            ])
        let subscribe = WireRequest(
            id: 6,
            .subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: "a", suites: ["s"])), keys: .prefix("p"))))
        #expect(subscribe.dictionary == ["id": 6, "op": "subscribe", "app": "a", "suites": ["s"], "keyPrefix": "p"])
        let system = WireRequest(id: 7, .readDomain(Self.systemGlobal))
        #expect(system.dictionary == ["id": 7, "op": "readDomain", "domain": "NSGlobalDomain", "scope": "system"])
    }

    static let source = WireSource(layer: .app, domain: "com.example.app", path: "/home/u/.config/preferences/a.plist")
    static let snapshot = WireSnapshot(
        values: ["Colour": "red", "Size": 3],
        sequences: [
            WireSnapshot.DomainSequence(domain: app, sequence: 17),
            WireSnapshot.DomainSequence(domain: WireDomain(WireDomain.globalDomainName, byHost: true), sequence: 0),
            WireSnapshot.DomainSequence(domain: systemGlobal, sequence: UInt64.max),
        ])

    static let results: [WireResult] = [
        .hello(WireHelloResult(version: 1, server: "prefsd 1.0", limits: .default)),
        .get(value: nestedValue, version: 3),
        .get(value: nil, version: 0),
        .getEffective(WireResolution(found: nil)),
        .getEffective(
            WireResolution(
                found: WireResolution.Entry(
                    value: "forced", source: WireSource(layer: .forced, domain: "com.example.app")),
                shadowed: [
                    WireResolution.Entry(value: "mine", source: source),
                    WireResolution.Entry(
                        value: nestedValue, source: WireSource(layer: .global, domain: "NSGlobalDomain", byHost: true)),
                ],
                skipped: [
                    WireResolution.Skipped(
                        source: WireSource(layer: .suite, domain: "group.one", path: "/p/group.one.plist"),
                        reason: "line 3: unterminated string")
                ])),
        .set(version: 1),
        .setMany(version: 2),
        .remove(version: 3),
        .readDomain(values: ["a": nestedValue], version: 4),
        .readDomain(values: [:], version: 0),
        .writeDomain(version: 5),
        .removeDomain(version: UInt64.max),
        .listDomains(["com.example.app", "NSGlobalDomain"]),
        .listDomains([]),
        .synchronize,
        .subscribe(subscription: 9, snapshot: snapshot),
        .unsubscribe,
        .fleetStatus(nil),
        .fleetStatus(WireFleetStatus(state: .connecting, cacheDirectory: "/home/u/.config/preferences/Fleet")),
        .fleetStatus(
            WireFleetStatus(
                state: .offline, endpoint: "http://10.0.0.5:2379", appliedRevision: 42, latestRevision: Int64.max,
                lastError: "no etcd endpoint answered", lastErrorDate: PlistDate(secondsSince1970: 1_790_000_000.5),
                refusedValues: UInt64.max, cacheDirectory: "/p/Fleet")),
        .fleetStatus(WireFleetStatus.roaming),
    ]

    static let errors: [WireError] = [
        WireError(.badRequest, "field `key` is missing", field: "key"),
        WireError(.limitExceeded, "key of 2000 bytes exceeds maxKeyBytes (1024)", limit: .maxKeyBytes),
        WireError(.versionConflict, "domain com.example.app is at version 8, not 7", currentVersion: 8),
        WireError(.readOnly, "forced layer", path: "/etc/preferences/forced/com.example.app.plist"),
        WireError(WireError.Code(rawValue: "someFutureCode"), "from a newer server"),
    ]

    @Test func everyResultIsCovered() {
        #expect(Set(Self.results.map(\.operation)) == Set(WireOperation.Name.allCases))
    }

    @Test(arguments: results)
    func successReplyRoundTrips(result: WireResult) throws {
        let reply = WireReply(id: UInt64.max, .success(result))
        #expect(try WireReply(dictionary: try Self.throughFrame(reply.dictionary)) == reply)
        #expect(try WireServerMessage(dictionary: reply.dictionary) == .reply(reply))
        #expect(reply.dictionary["op"] == .string(result.operation.rawValue))
    }

    @Test(arguments: errors)
    func errorReplyRoundTrips(error: WireError) throws {
        let reply = WireReply(id: 12, .failure(error))
        #expect(try WireReply(dictionary: try Self.throughFrame(reply.dictionary)) == reply)
        #expect(reply.dictionary["op"] == nil)
    }

    static let events: [WireEvent] = [
        .change(
            subscription: 1, WireChange(domain: app, key: "Colour", old: "red", new: "blue", sequence: 18),
            origin: WireOrigin(.client, pid: 4242, uid: 1000)),
        .change(
            subscription: 1, WireChange(domain: hostApp, key: "New", old: nil, new: nestedValue, sequence: 1),
            origin: WireOrigin(.file)),
        .change(
            subscription: UInt64.max, WireChange(domain: systemGlobal, key: "Gone", old: 1, new: nil, sequence: 2),
            origin: WireOrigin(.file, uid: 0)),
        .batch(
            subscription: 2,
            [
                WireChange(domain: app, key: "a", old: nil, new: 1, sequence: 19),
                WireChange(domain: app, key: "b", old: 2, new: nil, sequence: 20),
            ], origin: WireOrigin(.client, pid: Int32.max, uid: UInt32.max)),
        .resync(subscription: 3, snapshot),
        .closing(WireError(.shuttingDown, "prefsd is stopping")),
        .closing(WireError(.malformedFrame, "frame payload is not a binary property list")),
    ]

    @Test(arguments: events)
    func eventRoundTrips(event: WireEvent) throws {
        let dictionary = try Self.throughFrame(event.dictionary)
        #expect(dictionary["id"] == nil)
        #expect(try WireEvent(dictionary: dictionary) == event)
        #expect(try WireServerMessage(dictionary: dictionary) == .event(event))
    }

    @Test func changeEventUsesTheDocumentedFields() {
        let event = WireEvent.change(
            subscription: 4, WireChange(domain: Self.hostApp, key: "k", old: nil, new: 2, sequence: 8),
            origin: WireOrigin(.client, pid: 10, uid: 1000))
        #expect(
            event.dictionary == [
                "event": "change", "subscription": 4, "domain": "com.example.app", "byHost": true, "key": "k",
                "new": 2, "sequence": 8, "origin": ["kind": "client", "pid": 10, "uid": 1000],
            ])
    }

    @Test func limitsRoundTripByName() throws {
        let limits = WireLimits(
            maxFrameBytes: 1, maxFrameObjects: 2, maxDepth: 3, maxDomainBytes: 4, maxKeyBytes: 5, maxConnections: 6,
            maxSubscriptions: 7, subscriptionQueueLength: 8, maxSuites: 9, maxBufferedFrameBytes: 10)
        #expect(Set(limits.dictionary.keys) == Set(WireLimit.allCases.map(\.rawValue)))
        #expect(try WireLimits(dictionary: limits.dictionary) == limits)
        #expect(WireLimit.allCases.map { limits[$0] } == Array(1...10))
    }

    @Test func limitsAreAnOpenSet() throws {
        // A newer server may announce limits this version does not know, an older one fewer: neither fails hello.
        var expected = WireLimits.default
        expected.maxFrameBytes = 1
        #expect(try WireLimits(dictionary: ["maxFrameBytes": 1, "maxFutureThing": 3]) == expected)
    }

    // MARK: - Hello negotiation

    @Test func helloNegotiatesTheNewestCommonVersion() throws {
        #expect(try WireHello(version: 1).negotiatedVersion() == 1)
        #expect(try WireHello(version: 5, minVersion: 1).negotiatedVersion() == 1)
        #expect(try WireHello(version: 5, minVersion: 2).negotiatedVersion(supported: 1...3) == 3)
        let tooNew = try #require(throws: WireError.self) {
            try WireHello(version: 9, minVersion: 2).negotiatedVersion()
        }
        #expect(tooNew.code == .unsupportedVersion)
        #expect(tooNew.message.contains("2–9"))
        let tooOld = try #require(throws: WireError.self) {
            try WireHello(version: 1).negotiatedVersion(supported: 2...4)
        }
        #expect(tooOld.code == .unsupportedVersion)
    }

    // MARK: - Strict validation

    /// The rejection for a request dictionary, which must fail.
    static func rejection(_ dictionary: PlistDictionary) throws -> WireRequest.Rejection {
        try #require(throws: WireRequest.Rejection.self) { try WireRequest(dictionary: dictionary) }
    }

    @Test func unknownOperationKeepsTheId() throws {
        let rejection = try Self.rejection(["id": 4, "op": "frobnicate"])
        #expect(rejection.id == 4)
        #expect(rejection.error.code == .unknownOperation)
        #expect(rejection.error.message.contains("frobnicate"))
        #expect(rejection.reply == WireReply(id: 4, .failure(rejection.error)))
    }

    @Test(
        arguments: [
            ([:], "is missing"),
            (["id": "1", "op": "get"], "must be an integer, not a string"),
            (["id": -1, "op": "get"], "must not be negative"),
            (["id": 1.0, "op": "get"], "must be an integer, not a float"),
            (["id": .integer(PlistInteger(Int64.min)), "op": "get"], "must not be negative"),
        ] as [(PlistDictionary, String)])
    func badIdCannotBeAnswered(dictionary: PlistDictionary, problem: String) throws {
        let rejection = try Self.rejection(dictionary)
        #expect(rejection.id == nil)
        #expect(rejection.reply == nil)
        #expect(rejection.error.code == .badRequest)
        #expect(rejection.error.field == "id")
        #expect(rejection.error.message.contains(problem), "\(rejection.error.message)")
    }

    @Test(
        arguments: [
            (["id": 1], "op", "is missing"),
            (["id": 1, "op": 5], "op", "must be a string, not an integer"),
            (["id": 1, "op": "get", "key": "k"], "domain", "is missing"),
            (["id": 1, "op": "get", "domain": 1, "key": "k"], "domain", "must be a string, not an integer"),
            (["id": 1, "op": "get", "domain": "d"], "key", "is missing"),
            (["id": 1, "op": "get", "domain": "d", "key": ["k"]], "key", "must be a string, not an array"),
            (["id": 1, "op": "get", "domain": "d", "key": "k", "byHost": "yes"], "byHost", "must be a boolean"),
            (
                ["id": 1, "op": "get", "domain": "d", "key": "k", "bytHost": true], "bytHost",
                "is not part of this message"
            ),
            (["id": 1, "op": "get", "domain": "d", "key": "k", "scope": "global"], "scope", "must be one of user"),
            (
                ["id": 1, "op": "get", "domain": "d", "key": "k", "scope": "system", "byHost": true], "byHost",
                "only user"
            ),
            (["id": 1, "op": "set", "domain": "d", "key": "k"], "value", "is missing"),
            (
                ["id": 1, "op": "set", "domain": "d", "key": "k", "value": 1, "expectedVersion": -3], "expectedVersion",
                "must not be negative"
            ),
            (
                ["id": 1, "op": "set", "domain": "d", "key": "k", "value": 1, "expectedVersion": "3"],
                "expectedVersion",
                "must be an integer"
            ),
            (["id": 1, "op": "setMany", "domain": "d", "values": ["a", "b"]], "values", "must be a dictionary"),
            (["id": 1, "op": "setMany", "domain": "d", "removeKeys": ["a", 2]], "removeKeys[1]", "must be a string"),
            (
                ["id": 1, "op": "setMany", "domain": "d", "values": ["a": 1], "removeKeys": ["b", "a"]],
                "removeKeys[1]",
                "which `values` also sets"
            ),
            (["id": 1, "op": "writeDomain", "domain": "d"], "values", "is missing"),
            (["id": 1, "op": "getEffective", "key": "k"], "app", "is missing"),
            (["id": 1, "op": "getEffective", "app": "a", "suites": "s", "key": "k"], "suites", "must be an array"),
            (["id": 1, "op": "getEffective", "app": "a", "suites": [1], "key": "k"], "suites[0]", "must be a string"),
            (["id": 1, "op": "getEffective", "app": "a", "key": "k", "domain": "d"], "domain", "is not part"),
            (["id": 1, "op": "subscribe"], "domain", "is missing"),
            (["id": 1, "op": "subscribe", "domain": "d", "app": "a"], "app", "cannot be combined"),
            (
                ["id": 1, "op": "subscribe", "domain": "d", "key": "k", "keyPrefix": "p"], "keyPrefix",
                "cannot be combined"
            ),
            (["id": 1, "op": "subscribe", "app": "a", "byHost": true], "byHost", "is not part"),
            (["id": 1, "op": "unsubscribe"], "subscription", "is missing"),
            (
                ["id": 1, "op": "unsubscribe", "subscription": true], "subscription",
                "must be an integer, not a boolean"
            ),
            (["id": 1, "op": "synchronize", "domain": "d"], "domain", "is not part"),
            (["id": 1, "op": "fleetStatus", "endpoint": "e"], "endpoint", "is not part"),
            (["id": 1, "op": "hello"], "version", "is missing"),
            (["id": 1, "op": "hello", "version": 0], "version", "must be between 1"),
            (["id": 1, "op": "hello", "version": 1, "minVersion": 2], "minVersion", "must not be above"),
            (["id": 1, "op": "hello", "version": 1, "client": 7], "client", "must be a string"),
            (["id": 1, "op": "listDomains", "scope": "forced", "byHost": true], "byHost", "only user"),
        ] as [(PlistDictionary, String, String)])
    func badFieldIsNamed(dictionary: PlistDictionary, field: String, problem: String) throws {
        let rejection = try Self.rejection(dictionary)
        #expect(rejection.id == 1)
        #expect(rejection.error.code == .badRequest)
        #expect(rejection.error.field == field)
        #expect(rejection.error.message.contains("`\(field)`"), "\(rejection.error.message)")
        #expect(rejection.error.message.contains(problem), "\(rejection.error.message)")
    }

    @Test func hugeIdsAreExact() throws {
        let request = try WireRequest(dictionary: ["id": .integer(PlistInteger(UInt64.max)), "op": "synchronize"])
        #expect(request.id == UInt64.max)
        let reply = WireReply(id: request.id, .success(.synchronize))
        #expect(try WireReply(dictionary: try Self.throughFrame(reply.dictionary)).id == UInt64.max)
    }

    @Test(
        arguments: [
            (["op": "get", "value": 1], "id"),
            (["id": 1, "op": "readDomain", "version": 1], "values"),
            (["id": 1, "op": "get", "version": 1, "value": 1, "extra": 1], "extra"),
            (["id": 1, "op": "set"], "version"),
            (["id": 1, "error": ["code": "internal"]], "error.message"),
            (["id": 1, "error": ["code": 3, "message": "m"]], "error.code"),
            (["id": 1, "error": ["code": "c", "message": "m", "what": 1]], "error.what"),
            (
                ["id": 1, "op": "hello", "version": 1, "server": "s", "limits": ["maxFrameBytes": "large"]],
                "limits.maxFrameBytes"
            ),
            (["id": 1, "op": "getEffective", "value": 1], "source"),
            (
                ["id": 1, "op": "getEffective", "value": 1, "source": ["layer": "attic", "domain": "d"]], "source.layer"
            ),
            (["id": 1, "op": "getEffective", "shadowed": [["value": 1]]], "shadowed[0].source"),
            (
                ["id": 1, "op": "subscribe", "subscription": 1, "values": [:], "sequences": [["domain": "d"]]],
                "sequences[0].sequence"
            ),
            (["id": 1, "op": "listDomains", "domains": [1]], "domains[0]"),
            (["id": 1, "op": "fleetStatus"], "inFleet"),
            (["id": 1, "op": "fleetStatus", "inFleet": false, "state": "connected"], "state"),
            (["id": 1, "op": "fleetStatus", "inFleet": true, "revision": 1], "state"),
            (
                ["id": 1, "op": "fleetStatus", "inFleet": true, "state": "lost", "revision": 1, "refusedValues": 0],
                "state"
            ),
            (
                [
                    "id": 1, "op": "fleetStatus", "inFleet": true, "state": "offline", "revision": -1,
                    "refusedValues": 0, "cacheDirectory": "/c",
                ], "revision"
            ),
            (
                [
                    "id": 1, "op": "fleetStatus", "inFleet": true, "state": "offline", "revision": 1,
                    "lastErrorDate": "yesterday", "refusedValues": 0, "cacheDirectory": "/c",
                ], "lastErrorDate"
            ),
            (
                ["id": 1, "op": "fleetStatus", "inFleet": true, "state": "offline", "revision": 1, "refusedValues": 0],
                "cacheDirectory"
            ),
        ] as [(PlistDictionary, String)])
    func badReplyFieldIsNamed(dictionary: PlistDictionary, field: String) throws {
        let error = try #require(throws: WireError.self) { try WireReply(dictionary: dictionary) }
        #expect(error.code == .badRequest)
        #expect(error.field == field, "\(error.message)")
    }

    @Test(
        arguments: [
            (["event": "change"], "subscription"),
            (["event": "weather", "subscription": 1], "event"),
            (["event": "batch", "subscription": 1, "origin": ["kind": "client"], "changes": []], "changes"),
            (
                [
                    "event": "batch", "subscription": 1, "origin": ["kind": "client"],
                    "changes": [["domain": "d", "key": "k"]],
                ],
                "changes[0].sequence"
            ),
            (["event": "batch", "subscription": 1, "origin": ["kind": "client"], "changes": [1]], "changes[0]"),
            (["event": "change", "subscription": 1, "origin": ["kind": "psychic"]], "origin.kind"),
            (["event": "change", "subscription": 1, "origin": ["kind": "client", "pid": -4]], "origin.pid"),
            (
                ["event": "change", "subscription": 1, "origin": ["kind": "client", "uid": 5_000_000_000]], "origin.uid"
            ),
            (["event": "resync", "subscription": 1, "values": [:]], "sequences"),
            (["event": "closing"], "error"),
            (["event": "closing", "error": ["code": "internal", "message": "m"], "id": 3], "event"),
            ([:], "id"),
        ] as [(PlistDictionary, String)])
    func badServerMessageFieldIsNamed(dictionary: PlistDictionary, field: String) throws {
        let error = try #require(throws: WireError.self) { try WireServerMessage(dictionary: dictionary) }
        #expect(error.code == .badRequest)
        #expect(error.field == field, "\(error.message)")
    }

    @Test func unknownErrorCodesAndLimitsStayReadable() throws {
        let error = try WireError(dictionary: ["code": "quotaExceeded", "message": "m", "limit": "maxFutureThing"])
        #expect(error.code.rawValue == "quotaExceeded")
        #expect(error.limit == nil)
        #expect(!WireError.Code.allDefined.contains(error.code))
        #expect(Set(WireError.Code.allDefined.map(\.rawValue)).count == WireError.Code.allDefined.count)
    }

    @Test func keyFilterMatchesByScalarPrefix() {
        #expect(WireSubscriptionFilter.Keys.all.matches("anything"))
        #expect(WireSubscriptionFilter.Keys.key("a.b").matches("a.b"))
        #expect(!WireSubscriptionFilter.Keys.key("a.b").matches("a.bc"))
        #expect(WireSubscriptionFilter.Keys.prefix("Apple").matches("AppleLocale"))
        #expect(!WireSubscriptionFilter.Keys.prefix("Apple").matches("Appl"))
        // Scalars decide: "e" is a prefix of "e" + U+0301 but not of precomposed "é".
        #expect(!WireSubscriptionFilter.Keys.prefix("e").matches("\u{E9}"))
        #expect(WireSubscriptionFilter.Keys.prefix("e").matches("e\u{301}"))
    }

    @Test func fleetStatusUsesTheDocumentedFieldsAndComputesTheLag() {
        let status = WireFleetStatus(
            state: .connected, endpoint: "http://127.0.0.1:2379", appliedRevision: 40, latestRevision: 42,
            refusedValues: 1, cacheDirectory: "/c/Fleet")
        #expect(status.lag == 2)
        #expect(
            WireReply(id: 3, .success(.fleetStatus(status))).dictionary == [
                "id": 3, "op": "fleetStatus", "inFleet": true, "state": "connected",
                "endpoint": "http://127.0.0.1:2379", "revision": 40, "latestRevision": 42, "refusedValues": 1,
                "cacheDirectory": "/c/Fleet",
            ])
        #expect(
            WireReply(id: 4, .success(.fleetStatus(nil))).dictionary == [
                "id": 4, "op": "fleetStatus", "inFleet": false,
            ])
        #expect(WireFleetStatus(state: .connecting, appliedRevision: 9, cacheDirectory: "/c").lag == nil)
        // A revision reported before the cache caught up with an older one is no negative lag.
        #expect(
            WireFleetStatus(state: .connected, appliedRevision: 9, latestRevision: 5, cacheDirectory: "/c").lag == 0)
    }

    @Test func operationsKnowTheirDomainAndWhetherTheyWrite() {
        #expect(WireOperation.set(Self.app, key: "k", value: 1, expectedVersion: nil).domain == Self.app)
        #expect(WireOperation.subscribe(WireSubscriptionFilter(.domain(Self.hostApp))).domain == Self.hostApp)
        #expect(WireOperation.getEffective(WireSearchList(app: "a"), key: "k").domain == nil)
        #expect(
            Set(Self.operations.filter(\.isWrite).map(\.name))
                == [.set, .setMany, .remove, .writeDomain, .removeDomain])
    }
}

extension WireFleetStatus {
    /// A status with roaming domains, some changes waiting.
    static var roaming: WireFleetStatus {
        var status = WireFleetStatus(state: .connected, appliedRevision: 3, cacheDirectory: "/p/Fleet")
        status.roamingUser = "ada"
        status.roamingDomains = ["com.example.Editor", "NSGlobalDomain"]
        status.roamingPending = 2
        return status
    }
}
