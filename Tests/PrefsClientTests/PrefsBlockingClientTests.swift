// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsClient
import PrefsDaemon
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

@Suite("PrefsBlockingClient")
struct PrefsBlockingClientTests {
    let app = WireDomain("com.example.app")

    @Test("every operation through the client")
    func operations() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        #expect(client.hello.version == 1)
        #expect(client.socketPath == daemon.socketPath)
        #expect(try client.send(.get(app, key: "k")) == .get(value: nil, version: 0))
        #expect(try client.send(.set(app, key: "k", value: "v", expectedVersion: nil)) == .set(version: 1))
        #expect(
            try client.send(.setMany(app, values: ["a": 1], removeKeys: ["k"], expectedVersion: nil))
                == .setMany(version: 3))
        #expect(try client.send(.readDomain(app)) == .readDomain(values: ["a": 1], version: 3))
        #expect(try client.send(.listDomains(scope: .user, byHost: false)) == .listDomains(["com.example.app"]))
        #expect(try client.send(.synchronize) == .synchronize)
        let effective = try client.send(.getEffective(WireSearchList(app: "com.example.app"), key: "a"))
        guard case .getEffective(let resolution) = effective else {
            Issue.record("getEffective answered with another result")
            return
        }
        #expect(resolution.found?.value == 1)
        do {
            _ = try client.send(.set(app, key: "a", value: 2, expectedVersion: 1))
            Issue.record("a stale compare-and-set succeeded")
        } catch {
            #expect(error.code == .refused)
            #expect(error.serverError?.code == .versionConflict)
            #expect(error.serverError?.currentVersion == 3)
        }
        #expect(try client.send(.remove(app, key: "a", expectedVersion: 3)) == .remove(version: 4))
        #expect(
            try client.send(.writeDomain(app, values: ["z": true], expectedVersion: nil)) == .writeDomain(version: 5))
        #expect(try client.send(.removeDomain(app, expectedVersion: nil)) == .removeDomain(version: 6))
        await server.stop()
    }

    @Test("a read sent with hello is answered with it, once, and the connection goes on")
    func readWithHello() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let writer = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "writer")
        #expect(try writer.send(.set(app, key: "k", value: "v", expectedVersion: nil)) == .set(version: 1))
        let reader = try PrefsBlockingClient(
            socketPath: daemon.socketPath, clientName: "reader", timeout: .seconds(30),
            handshakeTimeout: PrefsBlockingClient.defaultHandshakeTimeout, reading: .readDomain(app))
        #expect(reader.hello.version == 1)
        #expect(try reader.takeFirstResult()?.get() == .readDomain(values: ["k": "v"], version: 1))
        #expect(reader.takeFirstResult() == nil)
        // The requests after it are numbered on from the read's.
        #expect(try reader.send(.get(app, key: "k")) == .get(value: "v", version: 1))
        await server.stop()
    }

    @Test("a read sent with hello that the daemon refuses is its result; the connection stays usable")
    func refusedReadWithHello() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let reader = try PrefsBlockingClient(
            socketPath: daemon.socketPath, clientName: "reader", timeout: .seconds(30),
            handshakeTimeout: PrefsBlockingClient.defaultHandshakeTimeout,
            reading: .readDomain(WireDomain("com.example.absent")))
        guard case .failure(let error)? = reader.takeFirstResult() else {
            Issue.record("the read of a domain that does not exist succeeded")
            return
        }
        #expect(error.code == .refused)
        #expect(error.serverError?.code == .notFound)
        #expect(try reader.send(.get(app, key: "k")) == .get(value: nil, version: 0))
        await server.stop()
    }

    @Test("only a read goes out with hello")
    func writeIsNotSentWithHello() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(
            socketPath: daemon.socketPath, clientName: "tests", timeout: .seconds(30),
            handshakeTimeout: PrefsBlockingClient.defaultHandshakeTimeout,
            reading: .set(app, key: "k", value: "v", expectedVersion: nil))
        #expect(client.takeFirstResult() == nil)
        #expect(try client.send(.get(app, key: "k")) == .get(value: nil, version: 0))
        await server.stop()
    }

    @Test("threads sharing one client each get their own reply")
    func sharedClient() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        let app = self.app
        let mismatches = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                let key = "t\(thread)-\(index)"
                let value = PlistValue.integer(PlistInteger(Int64(index)))
                let stored = try? client.send(.set(app, key: key, value: value, expectedVersion: nil))
                guard case .set? = stored, case .get(value, _)? = try? client.send(.get(app, key: key)) else {
                    mismatches.add(1, ordering: .relaxed)
                    continue
                }
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
        guard case .readDomain(let values, _) = try client.send(.readDomain(app)) else {
            Issue.record("readDomain answered with another result")
            return
        }
        #expect(values.count == 400)
        await server.stop()
    }

    @Test("a subscriber sees another client's change with old and new value, and nil once cancelled")
    func subscription() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let watcher = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "watcher")
        let writer = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "writer")
        _ = try writer.send(.set(app, key: "Theme", value: "light", expectedVersion: nil))
        let received = ReceivedEvents<PrefsSubscription.Event?>()
        let subscription = try watcher.subscribe(WireSubscriptionFilter(.domain(app), keys: .key("Theme"))) { event in
            received.append(event)
        }
        #expect(subscription.snapshot.values == ["Theme": "light"])
        _ = try writer.send(.set(app, key: "Other", value: 1, expectedVersion: nil))
        _ = try writer.send(.set(app, key: "Theme", value: "dark", expectedVersion: nil))
        guard case .changes(let changes, let origin)?? = received.wait(for: 1).first else {
            Issue.record("no change: \(received.all)")
            return
        }
        #expect(changes == [WireChange(domain: app, key: "Theme", old: "light", new: "dark", sequence: 3)])
        #expect(origin.kind == .client)
        #expect(origin.pid == getpid())
        subscription.cancel()
        let events = received.wait(for: 2)
        #expect(events.count == 2)
        #expect(events.last == .some(nil))
        await server.stop()
    }

    @Test("requests, refusals, and several subscriptions on one connection with nothing lost before start()")
    func severalSubscriptions() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        let first = WireDomain("com.example.first")
        let second = WireDomain("com.example.second")
        #expect(try client.send(.set(first, key: "a", value: 1, expectedVersion: nil)) == .set(version: 1))
        do {
            _ = try client.send(.readDomain(WireDomain("com.example.none")))
            Issue.record("reading a missing domain succeeded")
        } catch {
            #expect(error.serverError?.code == .notFound)
        }
        // A refusal leaves the connection usable.
        #expect(try client.send(.get(first, key: "a")) == .get(value: 1, version: 1))

        let received = ReceivedEvents<(Int, PrefsSubscription.Event?)>()
        let subscription = try client.subscribe(
            [WireSubscriptionFilter(.domain(first)), WireSubscriptionFilter(.domain(second))], startsReading: false
        ) { index, event in received.append((index, event)) }
        #expect(subscription.snapshots.map(\.values) == [["a": 1], [:]])
        _ = try client.send(.set(second, key: "b", value: 2, expectedVersion: nil))
        _ = try client.send(.set(first, key: "a", value: 3, expectedVersion: nil))
        usleep(100_000)
        #expect(received.all.isEmpty)
        subscription.start()
        let events = received.wait(for: 2)
        #expect(events.count == 2)
        #expect(events.first?.0 == 1)
        if case .changes(let changes, _)? = events.first?.1 { #expect(changes.first?.new == 2) }
        #expect(events.last?.0 == 0)
        if case .changes(let changes, _)? = events.last?.1 { #expect(changes.first?.old == 1) }
        subscription.cancel()
        await server.stop()
    }

    @Test("a late cancel of an ended subscription leaves a socket that reused its descriptor number alone")
    func aLateCancelTouchesNoOtherSocket() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        let received = ReceivedEvents<PrefsSubscription.Event?>()
        let subscription = try client.subscribe(WireSubscriptionFilter(.domain(app))) { received.append($0) }
        await server.stop()
        #expect(received.wait(for: 1) == [nil])  // the reader closed its socket
        // New sockets take the lowest free numbers, the subscription's among them.
        var pairs: [(Int32, Int32)] = []
        for _ in 0..<32 {
            var ends: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            pairs.append((ends[0], ends[1]))
        }
        subscription.cancel()
        for (first, second) in pairs {
            var byte: UInt8 = 7
            #expect(write(first, &byte, 1) == 1, "a socket was shut down by the late cancel")
            byte = 0
            #expect(read(second, &byte, 1) == 1 && byte == 7)
            close(first)
            close(second)
        }
    }

    @Test("when the daemon stops, subscriptions end with nil and the connection stays broken")
    func daemonStops() async throws {
        let daemon = try ClientTestDaemon()
        var server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        _ = try client.send(.set(app, key: "n", value: 1, expectedVersion: nil))
        _ = try client.send(.synchronize)
        let received = ReceivedEvents<PrefsSubscription.Event?>()
        let subscription = try client.subscribe(WireSubscriptionFilter(.domain(app))) { received.append($0) }
        await server.stop()
        #expect(received.wait(for: 1) == [nil])
        server = try await daemon.start()
        var first: PrefsClientError?
        do {
            _ = try client.send(.get(app, key: "n"))
        } catch {
            first = error
        }
        #expect(first?.code == .connectionLost || first?.code == .outcomeUnknown)
        do {
            _ = try client.send(.get(app, key: "n"))
            Issue.record("a broken connection answered")
        } catch {
            #expect(error.code == first?.code)
        }
        // A new client reaches the restarted daemon, which read the value back from its file.
        let again = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        guard case .get(let value, _) = try again.send(.get(app, key: "n")) else {
            Issue.record("get answered with another result")
            return
        }
        #expect(value == 1)
        subscription.cancel()
        await server.stop()
    }

    @Test("a daemon that runs but answers hello after more than the handshake timeout is waited for")
    func slowGreetingIsWaitedFor() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-client")
        let path = directory.file("socket")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        #expect(listen(listener, 1) == 0)
        // A busy daemon, played by this (running) process: it reads the greeting and answers 2.5 s later.
        let greeting = WireHelloResult(version: 1, server: "slow test daemon", limits: .default)
        let reply = try WireFrame.encode(WireReply(id: 1, .success(.hello(greeting))).dictionary)
        let served = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            defer {
                close(connection)
                served.signal()
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(connection, &buffer, buffer.count, 0)
            usleep(2_500_000)
            _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Hold the connection until the client goes away.
            _ = recv(connection, &buffer, buffer.count, 0)
        }
        let start = ContinuousClock.now
        let client = try PrefsBlockingClient(socketPath: path, clientName: "tests", handshakeTimeout: .seconds(1))
        #expect(ContinuousClock.now - start >= .seconds(2))
        #expect(client.hello.server == "slow test daemon")
        _ = consume client
        served.wait()
    }

    @Test("without a daemon, connecting fails with daemonUnavailable naming the socket")
    func unavailable() throws {
        let daemon = try ClientTestDaemon()
        do {
            _ = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
            Issue.record("connecting without a daemon succeeded")
        } catch {
            #expect(error.code == .daemonUnavailable)
            #expect(error.message.hasPrefix("prefsd does not answer on \(daemon.socketPath): "))
        }
    }

    @Test("the daemon's refusals arrive with their code and message; the client refuses what it sends itself")
    func refusal() async throws {
        let daemon = try ClientTestDaemon()
        let server = try await daemon.start()
        let client = try PrefsBlockingClient(socketPath: daemon.socketPath, clientName: "tests")
        do {
            _ = try client.send(.set(WireDomain("bad/name"), key: "k", value: 1, expectedVersion: nil))
            Issue.record("a bad name was accepted")
        } catch {
            #expect(error.code == .refused)
            #expect(error.serverError?.code == .invalidName)
            #expect(
                error.message.hasPrefix("prefsd refused the request: invalidName: field `domain`: invalid domain name"))
        }
        do {
            _ = try client.send(.subscribe(WireSubscriptionFilter(.domain(app))))
            Issue.record("a subscribe went through send(_:)")
        } catch {
            #expect(error.code == .refused)
            #expect(error.serverError?.code == .badRequest)
            #expect(error.serverError?.field == "op")
        }
        #expect(try client.send(.get(app, key: "k")) == .get(value: nil, version: 0))
        await server.stop()
    }
}
