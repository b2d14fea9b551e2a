// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsWire

extension WireStreamFuzzTarget {
    /// Streams to start fuzzing from: one frame for each operation's request, all of them in one stream, the
    /// client's view of a few server messages, and some refused or broken frames.
    public static var seeds: [[UInt8]] {
        let user = WireDomain("com.example.app")
        let byHost = WireDomain("com.example.app", byHost: true)
        let system = WireDomain("com.example.tool", scope: .system)
        let value: PlistValue = [
            "name": "Main", "size": 42, "ratio": 0.5, "on": true, "tags": ["a", "b"],
            "when": .date(PlistDate(secondsSinceReferenceDate: 1000.5)), "bytes": .data([0, 1, 0xFF]),
        ]
        let operations: [WireOperation] = [
            .hello(WireHello()), .hello(WireHello(version: 2, minVersion: 1, client: "fuzz")),
            .get(user, key: "Colour"),
            .getEffective(WireSearchList(app: "com.example.app", suites: ["group.x"]), key: "k"),
            .set(byHost, key: "Window", value: value, expectedVersion: 3),
            .setMany(system, values: ["a": "b", "n": 1], removeKeys: ["c"], expectedVersion: nil),
            .remove(WireDomain("NSGlobalDomain", scope: .forced), key: "k", expectedVersion: 0),
            .readDomain(user), .writeDomain(user, values: ["k": value], expectedVersion: nil),
            .removeDomain(byHost, expectedVersion: 9), .listDomains(scope: .user, byHost: true), .synchronize,
            .subscribe(WireSubscriptionFilter(.domain(user), keys: .prefix("Win"))),
            .subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: "com.example.app")), keys: .key("k"))),
            .unsubscribe(subscription: 7),
        ]
        var messages = operations.enumerated().map { index, operation in
            WireRequest(id: UInt64(index + 1), operation).dictionary
        }
        let change = WireChange(domain: user, key: "k", old: 1, new: value, sequence: 5)
        messages += [
            WireReply(id: 1, .failure(WireError(.notFound, "no such key", field: "key"))).dictionary,
            WireReply(id: 2, .success(.get(value: value, version: 4))).dictionary,
            WireEvent.change(subscription: 1, change, origin: WireOrigin(.client, pid: 12, uid: 1000)).dictionary,
            WireEvent.batch(subscription: 1, [change, change], origin: WireOrigin(.file)).dictionary,
            WireEvent.closing(WireError(.shuttingDown, "prefsd is stopping")).dictionary,
            ["id": 3, "op": "fly"], ["op": "get"], ["id": -1, "op": "synchronize"],
            ["id": 4, "op": "get", "domain": "d", "key": "k", "extra": true],
        ]
        var seeds = messages.compactMap { try? WireFrame.encode($0) }
        seeds.append(seeds.prefix(operations.count).flatMap { $0 })
        seeds.append([0, 0, 0, 0])  // an empty frame
        seeds.append([0, 0, 0, 9] + Array("bplist00".utf8))  // a frame cut short
        seeds.append([0, 0, 0, 4] + Array("abcd".utf8))  // a payload that is not a binary property list
        return seeds
    }
}
