// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import PrefsWire

/// The fast path for frequent requests (`WireRequest(flatPayload:limits:)`) against the general way
/// (`WireFrame.decodePayload` and `WireRequest(dictionary:)`): it must read the requests it is for, and for every
/// payload it reads, give exactly what the general way gives.
@Suite struct WireFlatPayloadTests {
    static let limits = WireLimits.default

    /// The general way's reading of a payload: the request, or `nil` when it refuses it.
    static func general(_ payload: [UInt8], limits: WireLimits = limits) -> WireRequest? {
        payload.withUnsafeBytes { bytes in
            guard let dictionary = try? WireFrame.decodePayload(bytes, limits: limits) else { return nil }
            return try? WireRequest(dictionary: dictionary)
        }
    }

    static func fast(_ payload: [UInt8], limits: WireLimits = limits) -> WireRequest? {
        payload.withUnsafeBytes { WireRequest(flatPayload: $0, limits: limits) }
    }

    static let app = WireDomain("com.example.app")

    /// Requests the fast path reads.
    static let frequent: [WireRequest] = [
        WireRequest(id: 1, .get(app, key: "Colour")),
        WireRequest(id: 0, .get(WireDomain("NSGlobalDomain", scope: .system), key: "AppleLocale")),
        WireRequest(id: UInt64.max, .get(WireDomain("com.example.app", byHost: true), key: "k")),
        WireRequest(id: 70_000, .get(WireDomain("a", scope: .fleetDefault), key: "")),
        WireRequest(id: 2, .set(app, key: "Colour", value: "red", expectedVersion: nil)),
        WireRequest(id: 3, .set(app, key: "Count", value: 5, expectedVersion: 9)),
        WireRequest(id: 4, .set(app, key: "Big", value: .integer(PlistInteger(Int64.min)), expectedVersion: nil)),
        WireRequest(id: 5, .set(app, key: "Ratio", value: 2.5, expectedVersion: UInt64.max)),
        WireRequest(id: 6, .set(app, key: "On", value: true, expectedVersion: nil)),
        WireRequest(id: 7, .set(app, key: "Off", value: false, expectedVersion: 0)),
        WireRequest(id: 8, .set(app, key: "Empty", value: "", expectedVersion: nil)),
        WireRequest(
            id: 9, .set(app, key: "Long", value: .string(String(repeating: "x", count: 300)), expectedVersion: nil)),
        WireRequest(id: 12, .set(app, key: "Huge", value: .integer(PlistInteger(UInt64.max)), expectedVersion: nil)),
        WireRequest(id: 10, .remove(app, key: "Colour", expectedVersion: nil)),
        WireRequest(id: 11, .remove(WireDomain("com.example.app", byHost: true), key: "Colour", expectedVersion: 4)),
    ]

    /// Requests the fast path leaves to the general way.
    static let others: [WireRequest] = [
        WireRequest(id: 1, .hello(WireHello())),
        WireRequest(id: 2, .set(app, key: "List", value: [1, 2], expectedVersion: nil)),
        WireRequest(
            id: 3, .set(app, key: "When", value: .date(PlistDate(secondsSinceReferenceDate: 0)), expectedVersion: nil)),
        WireRequest(id: 4, .set(app, key: "Bytes", value: .data([1]), expectedVersion: nil)),
        WireRequest(id: 6, .get(app, key: "Café")),
        WireRequest(id: 7, .set(app, key: "k", value: "naïve", expectedVersion: nil)),
        WireRequest(id: 8, .readDomain(app)),
        WireRequest(id: 9, .synchronize),
        WireRequest(id: 10, .getEffective(WireSearchList(app: "com.example.app"), key: "k")),
    ]

    /// A connection's requests read one after another, sharing the previous domain name: each gets its own domain,
    /// whether the names repeat, differ in one byte at the same length, or change length.
    @Test func aConnectionsSuccessiveRequestsEachGetTheirOwnDomain() throws {
        let names = [
            "com.example.a", "com.example.a", "com.example.b", "com.example.a", "short", "com.example.a.longer",
            "com.example.a", "NSGlobalDomain", "NSGlobalDomain", "a", "b", "com.example.a",
        ]
        var recent = RecentDomainName()
        for (index, name) in names.enumerated() {
            let request = WireRequest(id: UInt64(index), .get(WireDomain(name), key: "k"))
            let payload = try WireFrame.encodePayload(request.dictionary)
            let flat = payload.withUnsafeBytes {
                WireFlatRequest(payload: $0, limits: Self.limits, recentDomain: &recent)
            }
            #expect(flat?.request == request, "request \(index) names \(name)")
        }
    }

    @Test("reads the frequent requests exactly as the general way does", arguments: frequent)
    func frequentRequests(request: WireRequest) throws {
        let payload = try WireFrame.encodePayload(request.dictionary)
        #expect(Self.fast(payload) == request)
        #expect(Self.general(payload) == request)
    }

    @Test("leaves every other request to the general way", arguments: others)
    func otherRequests(request: WireRequest) throws {
        let payload = try WireFrame.encodePayload(request.dictionary)
        #expect(Self.fast(payload) == nil)
        #expect(Self.general(payload) == request)
    }

    @Test(
        "leaves refused and odd messages to the general way",
        arguments: [
            ["id": -1, "op": "get", "domain": "d", "key": "k"],
            ["id": 1, "op": "get", "domain": "d"],
            ["id": 1, "op": "get", "domain": "d", "key": "k", "value": 1],
            ["id": 1, "op": "get", "domain": "d", "key": "k", "bytHost": true],
            ["id": 1, "op": "get", "domain": "d", "key": "k", "byHost": true, "scope": "system"],
            ["id": 1, "op": "get", "domain": "d", "key": "k", "scope": "elsewhere"],
            ["id": 1, "op": "get", "domain": "d", "key": 5],
            ["id": "1", "op": "get", "domain": "d", "key": "k"],
            ["id": 1, "op": "set", "domain": "d", "key": "k"],
            ["id": 1, "op": "remove", "domain": "d", "key": "k", "value": "v"],
            ["id": 1, "op": "remove", "domain": "d", "key": "k", "expectedVersion": -3],
            ["id": 1, "op": "fly", "domain": "d", "key": "k"],
        ] as [PlistDictionary])
    func oddMessages(message: PlistDictionary) throws {
        let payload = try WireFrame.encodePayload(message)
        #expect(Self.fast(payload) == nil)
    }

    @Test("applies the frame limits the general way applies")
    func limitsApply() throws {
        let payload = try WireFrame.encodePayload(WireRequest(id: 1, .get(Self.app, key: "k")).dictionary)
        var tight = WireLimits.default
        tight.maxFrameObjects = 8  // the request has 9: the dictionary, 4 keys, 4 values
        #expect(Self.general(payload, limits: tight) == nil)
        #expect(Self.fast(payload, limits: tight) == nil)
        tight.maxFrameObjects = 9
        #expect(Self.fast(payload, limits: tight) == Self.general(payload, limits: tight))
        tight.maxFrameBytes = payload.count - 1
        #expect(Self.fast(payload, limits: tight) == nil)
    }

    @Test("reads a request written with wide offsets and references the same way")
    func wideOffsets() throws {
        // A bplist00 document with 2-byte offsets and 2-byte references, as another writer may produce.
        let keys = ["id", "op", "domain", "key"]
        let values: [[UInt8]] = [
            [0x10, 42], [0x53] + Array("get".utf8), [0x51, UInt8(ascii: "d")], [0x51, UInt8(ascii: "k")],
        ]
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = [bytes.count]
        bytes.append(0xD4)
        for index in 1...8 { bytes += [0, UInt8(index)] }
        for key in keys {
            offsets.append(bytes.count)
            bytes += [0x50 | UInt8(key.utf8.count)] + Array(key.utf8)
        }
        for value in values {
            offsets.append(bytes.count)
            bytes += value
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 2]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(offsets.count)] + [UInt8](repeating: 0, count: 8)
        bytes += [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        let expected = WireRequest(id: 42, .get(WireDomain("d"), key: "k"))
        #expect(Self.general(bytes) == expected)
        #expect(Self.fast(bytes) == expected)
    }

    @Test("agrees with the general way on 20,000 damaged payloads")
    func damagedPayloads() throws {
        var generator = SplitMix64(seed: 0x5EED)
        var readByFastPath = 0
        for round in 0..<20_000 {
            let request = Self.frequent[round % Self.frequent.count]
            var payload = try WireFrame.encodePayload(request.dictionary)
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let index = Int(generator.next() % UInt64(payload.count))
                payload[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            guard let fast = Self.fast(payload) else { continue }
            readByFastPath += 1
            #expect(Self.general(payload) == fast, "payload \(payload)")
        }
        // Damage to a string's characters or an integer's bytes still reads: the comparison above is not vacuous.
        #expect(readByFastPath > 1_000)
    }
}

/// A small deterministic generator (SplitMix64), so a failure repeats.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
