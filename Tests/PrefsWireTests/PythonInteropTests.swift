// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Testing

/// Python's plistlib as an independent implementation of the framing, and the documented Python client.
@Suite struct PythonInteropTests {
    /// The repository root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let clientScript = repositoryRoot.appendingPathComponent("docs/examples/client.py")

    /// Runs `python3` with arguments and extra environment; returns the exit status and standard output.
    static func python(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe.closingOnExec()
        let errors = Pipe.closingOnExec()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        nonisolated(unsafe) var errorData = Data()
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData, as: UTF8.self)
        )
    }

    static func frames(in bytes: [UInt8]) throws -> [PlistDictionary] {
        var decoder = WireFrameDecoder()
        try decoder.append(bytes)
        var result: [PlistDictionary] = []
        while let frame = try decoder.nextFrame() { result.append(frame) }
        try decoder.finish()
        return result
    }

    /// Reads frames with plistlib (checking the first against a literal), writes each back with plistlib, and
    /// writes requests of its own, as a Python client would build them.
    static let interopScript = """
        import datetime, plistlib, struct, sys

        def frames(data):
            offset = 0
            while offset < len(data):
                (length,) = struct.unpack(">I", data[offset:offset + 4])
                yield plistlib.loads(data[offset + 4:offset + 4 + length])
                offset += 4 + length

        def encode(messages):
            payloads = [plistlib.dumps(m, fmt=plistlib.FMT_BINARY) for m in messages]
            return b"".join(struct.pack(">I", len(p)) + p for p in payloads)

        ours, theirs, own = sys.argv[1:4]
        messages = list(frames(open(ours, "rb").read()))
        assert messages[0] == {"id": 1, "op": "set", "domain": "com.example.app", "byHost": True, "key": "Size",
                               "value": {"w": 800, "h": 600.5, "when": datetime.datetime(2001, 1, 1, 0, 0, 42)},
                               "expectedVersion": 2**64 - 1}, messages[0]
        assert all(isinstance(m, dict) for m in messages)
        open(theirs, "wb").write(encode(messages))
        open(own, "wb").write(encode([
            {"id": 1, "op": "hello", "version": 1, "client": "python"},
            {"id": 2, "op": "set", "domain": "com.example.app", "byHost": True, "key": "Size",
             "value": {"w": 800, "h": 600.5}, "expectedVersion": 3},
            {"id": 3, "op": "setMany", "domain": "com.example.app", "values": {"a": [1, "two"], "b": b"\\x00\\x01"},
             "removeKeys": ["c"]},
            {"id": 2**64 - 1, "op": "subscribe", "app": "com.example.app", "suites": ["group.x"],
             "keyPrefix": "Window"},
            {"id": 5, "op": "getEffective", "app": "com.example.app", "key": "AppleLocale"},
            {"id": 6, "op": "listDomains", "scope": "system"},
            {"id": 7, "op": "unsubscribe", "subscription": 0},
        ]))
        print(len(messages))
        """

    @Test func plistlibReadsOurFramesAndWeReadItsFrames() throws {
        let directory = try TemporaryDirectory()
        let app = WireDomain("com.example.app")
        let first = WireRequest(
            id: 1,
            .set(
                WireDomain("com.example.app", byHost: true), key: "Size",
                value: ["w": 800, "h": 600.5, "when": .date(PlistDate(secondsSinceReferenceDate: 42))],
                expectedVersion: UInt64.max))
        let requests: [WireRequest] = [
            first,
            WireRequest(id: 2, .hello(WireHello(version: 2, minVersion: 1, client: "swift"))),
            WireRequest(
                id: 3,
                .setMany(
                    app, values: ["a": [1, "x"], "b": .data([0, 1, 2])], removeKeys: ["c"], expectedVersion: nil)),
            WireRequest(id: UInt64.max, .subscribe(WireSubscriptionFilter(.domain(app), keys: .prefix("Win")))),
        ]
        let messages: [WireServerMessage] = [
            .reply(WireReply(id: 1, .success(.hello(WireHelloResult(version: 1, server: "prefsd", limits: .default))))),
            .reply(WireReply(id: 2, .success(.get(value: .integer(PlistInteger(UInt64.max)), version: 5)))),
            .reply(WireReply(id: 3, .failure(WireError(.versionConflict, "conflict", currentVersion: 6)))),
            .reply(
                WireReply(
                    id: 4,
                    .success(
                        .getEffective(
                            WireResolution(
                                found: WireResolution.Entry(
                                    value: "en_GB", source: WireSource(layer: .global, domain: "NSGlobalDomain")),
                                shadowed: [
                                    WireResolution.Entry(
                                        value: "fr_FR",
                                        source: WireSource(layer: .system, domain: "NSGlobalDomain", path: "/etc/p"))
                                ]))))),
            .event(
                .batch(
                    subscription: 3,
                    [
                        WireChange(domain: app, key: "a", old: nil, new: 1, sequence: 7),
                        WireChange(domain: app, key: "b", old: "x", new: nil, sequence: 8),
                    ], origin: WireOrigin(.client, pid: 99, uid: 1000))),
            .event(
                .resync(
                    subscription: 3,
                    WireSnapshot(
                        values: ["a": 1], sequences: [WireSnapshot.DomainSequence(domain: app, sequence: 8)]))),
            .event(.closing(WireError(.shuttingDown, "bye"))),
        ]
        let ours = directory.file("ours.bin")
        let stream =
            try requests.flatMap { try WireFrame.encode($0.dictionary) }
            + messages.flatMap { try WireFrame.encode($0.dictionary) }
        try Data(stream).write(to: URL(fileURLWithPath: ours))

        let (status, output, errors) = try Self.python(
            ["-c", Self.interopScript, ours, directory.file("theirs.bin"), directory.file("own.bin")])
        try #require(status == 0, "python failed: \(errors)")
        #expect(output == "\(requests.count + messages.count)\n")

        // plistlib's re-encoding of our frames reads back to the same typed messages.
        let theirs = try Self.frames(
            in: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("theirs.bin")))))
        try #require(theirs.count == requests.count + messages.count)
        for (index, request) in requests.enumerated() {
            #expect(try WireRequest(dictionary: theirs[index]) == request)
        }
        for (index, message) in messages.enumerated() {
            #expect(try WireServerMessage(dictionary: theirs[requests.count + index]) == message)
        }

        // Requests written by hand in Python parse strictly into the operations they mean.
        let own = try Self.frames(in: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("own.bin")))))
        let parsed = try own.map { try WireRequest(dictionary: $0) }
        #expect(
            parsed == [
                WireRequest(id: 1, .hello(WireHello(version: 1, client: "python"))),
                WireRequest(
                    id: 2,
                    .set(
                        WireDomain("com.example.app", byHost: true), key: "Size", value: ["w": 800, "h": 600.5],
                        expectedVersion: 3)),
                WireRequest(
                    id: 3,
                    .setMany(
                        app, values: ["a": [1, "two"], "b": .data([0, 1])], removeKeys: ["c"], expectedVersion: nil)),
                WireRequest(
                    id: UInt64.max,
                    .subscribe(
                        WireSubscriptionFilter(
                            .effective(WireSearchList(app: "com.example.app", suites: ["group.x"])),
                            keys: .prefix("Window")))),
                WireRequest(id: 5, .getEffective(WireSearchList(app: "com.example.app"), key: "AppleLocale")),
                WireRequest(id: 6, .listDomains(scope: .system, byHost: false)),
                WireRequest(id: 7, .unsubscribe(subscription: 0)),
            ])
    }

    @Test func documentedClientTalksToAServerBuiltOnPrefsWire() throws {
        let directory = try TemporaryDirectory(prefix: "wire")
        let server = try FakePrefsServer(path: directory.file("socket"))
        let (status, output, errors) = try Self.python(
            [Self.clientScript.path, "com.example.demo", "greeting", "hello from python"],
            environment: ["PREFSD_SOCKET": server.path])
        let transcript = server.stop()
        #expect(status == 0, "client.py failed: \(errors)")
        #expect(transcript.failure == nil)
        #expect(output == "protocol version 1\ngreeting = hello from python\n")
        let demo = WireDomain("com.example.demo")
        #expect(
            transcript.requests == [
                WireRequest(id: 1, .hello(WireHello(version: 1, client: "client.py"))),
                WireRequest(id: 2, .set(demo, key: "greeting", value: "hello from python", expectedVersion: nil)),
                WireRequest(id: 3, .get(demo, key: "greeting")),
            ])
    }

    @Test func protocolDocumentEmbedsTheExampleClientVerbatim() throws {
        let client = try String(contentsOf: Self.clientScript, encoding: .utf8)
        let document = try String(
            contentsOf: Self.repositoryRoot.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        #expect(document.contains("```python\n" + client + "```\n"))
        #expect(client.split(separator: "\n").allSatisfy { $0.count <= 120 })
    }
}
