// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsDaemon
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire
import Testing

@Suite("prefsd protocol")
struct ProtocolTests {
    let app = WireDomain("com.example.app")

    @Test("hello comes first, once; other requests before it are refused naming op")
    func helloGate() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect(hello: false)
        let early = try connection.call(.get(app, key: "a"))
        #expect(early == .failure(.badField("op", "is get before hello: the first request must be hello")))
        let hello = try connection.call(.hello(WireHello(version: 3, minVersion: 1, client: "tests")))
        guard case .success(.hello(let result)) = hello else {
            Issue.record("hello failed: \(hello)")
            return
        }
        #expect(result.version == 1)
        #expect(result.server == DaemonConfiguration.defaultServerName)
        #expect(result.limits == .default)
        let again = try connection.call(.hello(WireHello()))
        #expect(again == .failure(.badField("op", "is hello again: the version is already negotiated")))
        let after = try connection.call(.get(app, key: "a"))
        #expect(after == .success(.get(value: nil, version: 0)))
    }

    @Test("a hello with no common version is refused, and a later one can succeed")
    func unsupportedVersion() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect(hello: false)
        guard case .failure(let error) = try connection.call(.hello(WireHello(version: 9, minVersion: 2))) else {
            Issue.record("hello 2–9 succeeded")
            return
        }
        #expect(error.code == .unsupportedVersion)
        try connection.hello()
    }

    @Test("pipelined requests are answered in order and each sees the earlier ones")
    func pipelining() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        var ids: [UInt64] = []
        for index in 0..<200 {
            ids.append(
                try connection.send(
                    .set(app, key: "k", value: .integer(PlistInteger(Int64(index))), expectedVersion: nil)))
            ids.append(try connection.send(.get(app, key: "k")))
        }
        for (position, id) in ids.enumerated() {
            let reply = try connection.receiveReply()
            #expect(reply.id == id)
            if position % 2 == 1 {
                guard case .success(.get(let value, let version)) = reply.outcome else {
                    Issue.record("get failed: \(reply)")
                    return
                }
                #expect(value == .integer(PlistInteger(Int64(position / 2))))
                #expect(version == UInt64(position / 2 + 1))
            }
        }
    }

    /// What a request of ``pipelinedRequestsToSeveralDomains()`` expects.
    enum Expected {
        case success(WireResult)
        case failure(WireError.Code)
    }

    /// Requests in one read, naming domains that repeat, differ at the same length, differ in layer or by-host, or are
    /// refused: the connection reuses the previous domain only when a request names that very one.
    @Test("pipelined requests to several domains each reach their own")
    func pipelinedRequestsToSeveralDomains() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        let first = WireDomain("com.example.a")
        let second = WireDomain("com.example.b")
        let host = WireDomain("com.example.a", byHost: true)
        let system = WireDomain("com.example.a", scope: .system)
        let longer = WireDomain("com.example.a.longer")
        let requests: [(WireOperation, Expected)] = [
            (.set(first, key: "k", value: "1", expectedVersion: nil), .success(.set(version: 1))),
            (.set(second, key: "k", value: "2", expectedVersion: nil), .success(.set(version: 1))),
            (.set(host, key: "k", value: "3", expectedVersion: nil), .success(.set(version: 1))),
            (.set(WireDomain("com/example"), key: "k", value: "4", expectedVersion: nil), .failure(.invalidName)),
            (.get(first, key: "k"), .success(.get(value: "1", version: 1))),
            (.get(second, key: "k"), .success(.get(value: "2", version: 1))),
            (.get(host, key: "k"), .success(.get(value: "3", version: 1))),
            (.set(system, key: "k", value: "5", expectedVersion: nil), .failure(.readOnly)),
            (.get(system, key: "k"), .success(.get(value: nil, version: 0))),
            (.get(longer, key: "k"), .success(.get(value: nil, version: 0))),
            (.remove(first, key: "k", expectedVersion: 1), .success(.remove(version: 2))),
            (.get(first, key: "k"), .success(.get(value: nil, version: 2))),
        ]
        var bytes: [UInt8] = []
        for (index, request) in requests.enumerated() {
            bytes += try WireFrame.encode(WireRequest(id: UInt64(index), request.0).dictionary)
        }
        try connection.sendRaw(bytes)
        for (index, request) in requests.enumerated() {
            let reply = try connection.receiveReply()
            #expect(reply.id == UInt64(index))
            switch request.1 {
            case .success(let result): #expect(reply.outcome == .success(result), "request \(index)")
            case .failure(let code): #expect(reply.outcome.failureCode == code, "request \(index)")
            }
        }
    }

    @Test("every operation round-trips through the store")
    func operations() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        #expect(try connection.call(.readDomain(app)).failureCode == .notFound)
        #expect(
            try connection.call(.set(app, key: "a", value: "1", expectedVersion: nil)) == .success(.set(version: 1)))
        #expect(
            try connection.call(.setMany(app, values: ["b": 2, "c": 3], removeKeys: ["a"], expectedVersion: nil))
                == .success(.setMany(version: 4)))
        #expect(
            try connection.call(.readDomain(app)) == .success(.readDomain(values: ["b": 2, "c": 3], version: 4)))
        #expect(try connection.call(.remove(app, key: "b", expectedVersion: nil)) == .success(.remove(version: 5)))
        #expect(try connection.call(.remove(app, key: "b", expectedVersion: nil)) == .success(.remove(version: 5)))
        #expect(
            try connection.call(.writeDomain(app, values: ["x": true], expectedVersion: nil))
                == .success(.writeDomain(version: 7)))
        #expect(try connection.call(.synchronize) == .success(.synchronize))
        let file = daemon.paths.preferencesDirectory + "/com.example.app.plist"
        let stored = try PlistSerialization.decode(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(stored == ["x": true])
        #expect(
            try connection.call(.listDomains(scope: .user, byHost: false))
                == .success(.listDomains(["com.example.app"])))
        #expect(try connection.call(.removeDomain(app, expectedVersion: nil)) == .success(.removeDomain(version: 8)))
        #expect(try connection.call(.removeDomain(app, expectedVersion: nil)).failureCode == .notFound)
        #expect(try connection.call(.synchronize) == .success(.synchronize))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test("readDomain of a missing domain answers notFound with the version a first write must expect")
    func missingDomainCarriesItsVersion() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        #expect(try connection.call(.readDomain(app)).failureVersion == 0)
        _ = try connection.call(.set(app, key: "a", value: "1", expectedVersion: nil))
        #expect(try connection.call(.removeDomain(app, expectedVersion: nil)) == .success(.removeDomain(version: 2)))
        // Absent again, at the removal's version: a write expecting it creates the domain, an older one conflicts.
        #expect(try connection.call(.readDomain(app)).failureCode == .notFound)
        #expect(try connection.call(.readDomain(app)).failureVersion == 2)
        #expect(
            try connection.call(.writeDomain(app, values: ["b": 2], expectedVersion: 0)).failureCode
                == .versionConflict)
        #expect(
            try connection.call(.writeDomain(app, values: ["b": 2], expectedVersion: 2))
                == .success(.writeDomain(version: 3)))
    }

    @Test("a corrupt file is an error on get and readDomain, with the version a write setting it aside expects")
    func corruptDomainCarriesItsReasonAndVersion() async throws {
        let directory = try TemporaryDirectory(prefix: "prefsd")
        try FileManager.default.createDirectory(atPath: directory.file("prefs"), withIntermediateDirectories: true)
        let path = directory.file("prefs/com.example.app.plist")
        try Data("<?xml version=\"1.0\"?>\n<plist><dict><key>a</key>\n<integer>1</inte".utf8)
            .write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -10)], ofItemAtPath: path)
        let daemon = try await TestDaemon(directory: directory)
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()

        var versions: [UInt64?] = []
        for read in [WireOperation.get(app, key: "a"), .readDomain(app)] {
            guard case .failure(let error) = try connection.call(read) else {
                Issue.record("\(read.name) of a corrupt domain succeeded")
                continue
            }
            #expect(error.code == .corruptDomain)
            #expect(error.path == path)
            #expect(error.message.contains("is corrupt: invalid XML: expected '>' (at line 3, column 17)"))
            versions.append(error.currentVersion)
        }
        guard let version = versions.first ?? nil, versions == [version, version] else {
            Issue.record("no one version with the errors: \(versions)")
            return
        }
        // An edit from the empty domain at that version is accepted; the file is set aside when it is written.
        #expect(
            try connection.call(.set(app, key: "b", value: 1, expectedVersion: version))
                == .success(.set(version: version + 1)))
        #expect(try connection.call(.get(app, key: "b")) == .success(.get(value: 1, version: version + 1)))
        #expect(try connection.call(.synchronize) == .success(.synchronize))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("prefs"))
        #expect(names.contains { $0.hasPrefix("com.example.app.plist.corrupt-") }, "\(names)")
    }

    @Test("by-host domains are separate from plain ones")
    func byHost() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        let host = WireDomain("com.example.app", byHost: true)
        _ = try connection.call(.set(host, key: "k", value: "host", expectedVersion: nil))
        #expect(try connection.call(.get(app, key: "k")) == .success(.get(value: nil, version: 0)))
        #expect(try connection.call(.get(host, key: "k")) == .success(.get(value: "host", version: 1)))
        #expect(
            try connection.call(.listDomains(scope: .user, byHost: true)) == .success(.listDomains(["com.example.app"]))
        )
    }

    @Test("compare-and-set applies at the expected version and reports the current one otherwise")
    func compareAndSet() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        #expect(try connection.call(.set(app, key: "a", value: 1, expectedVersion: 0)) == .success(.set(version: 1)))
        let conflict = try connection.call(.set(app, key: "a", value: 2, expectedVersion: 0))
        guard case .failure(let error) = conflict else {
            Issue.record("stale compare-and-set succeeded")
            return
        }
        #expect(error.code == .versionConflict)
        #expect(error.currentVersion == 1)
        #expect(try connection.call(.get(app, key: "a")) == .success(.get(value: 1, version: 1)))
        #expect(
            try connection.call(.setMany(app, values: ["a": 3], removeKeys: [], expectedVersion: 1))
                == .success(.setMany(version: 2)))
        #expect(try connection.call(.removeDomain(app, expectedVersion: 1)).failureCode == .versionConflict)
    }

    @Test("names, read-only layers and limits are refused with the documented codes")
    func refusals() async throws {
        var limits = WireLimits.default
        limits.maxKeyBytes = 8
        limits.maxDepth = 2
        let daemon = try await TestDaemon(limits: limits)
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        let traversal = try connection.call(.get(WireDomain("../etc/passwd"), key: "k"))
        #expect(traversal.failureCode == .invalidName)
        let system = try connection.call(
            .set(WireDomain("com.example.app", scope: .system), key: "k", value: 1, expectedVersion: nil))
        guard case .failure(let readOnly) = system else {
            Issue.record("system write succeeded")
            return
        }
        #expect(readOnly.code == .readOnly)
        #expect(readOnly.path == daemon.paths.systemDirectory! + "/com.example.app.plist")
        let longKey = try connection.call(.set(app, key: "123456789", value: 1, expectedVersion: nil))
        #expect(longKey.failureCode == .limitExceeded)
        #expect(longKey.failureLimit == .maxKeyBytes)
        let deep = try connection.call(.set(app, key: "k", value: [[[1]]], expectedVersion: nil))
        #expect(deep.failureLimit == .maxDepth)
        try connection.send(["id": 7, "op": "frobnicate"])
        let reply = try connection.receiveReply()
        #expect(reply.id == 7)
        #expect(reply.outcome.failureCode == .unknownOperation)
        try connection.send(["id": 8, "op": "get", "domain": "a", "key": "k", "bytHost": true])
        let strict = try connection.receiveReply()
        #expect(strict.outcome.failureCode == .badRequest)
        if case .failure(let error) = strict.outcome { #expect(error.field == "bytHost") }
        #expect(try connection.call(.get(app, key: "k")) == .success(.get(value: nil, version: 0)))
    }

    @Test("getEffective reports the winning layer and what it shadows")
    func effective() async throws {
        let daemon = try await TestDaemon()
        defer { Task { await daemon.stop() } }
        let connection = try daemon.connect()
        _ = try connection.call(.set(WireDomain("NSGlobalDomain"), key: "Theme", value: "light", expectedVersion: nil))
        _ = try connection.call(.set(app, key: "Theme", value: "dark", expectedVersion: nil))
        let result = try connection.call(.getEffective(WireSearchList(app: "com.example.app"), key: "Theme"))
        guard case .success(.getEffective(let resolution)) = result else {
            Issue.record("getEffective failed: \(result)")
            return
        }
        #expect(resolution.found?.value == "dark")
        #expect(resolution.found?.source.layer == .app)
        #expect(resolution.found?.source.path == daemon.paths.preferencesDirectory + "/com.example.app.plist")
        #expect(resolution.shadowed.map(\.value) == ["light"])
        #expect(resolution.shadowed.first?.source.layer == .global)
    }
}

extension Result where Success == WireResult, Failure == WireError {
    var failureCode: WireError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }

    var failureVersion: UInt64? {
        if case .failure(let error) = self { return error.currentVersion }
        return nil
    }

    var failureLimit: WireLimit? {
        if case .failure(let error) = self { return error.limit }
        return nil
    }
}
