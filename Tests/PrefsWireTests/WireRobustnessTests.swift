// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsWire

/// Random values and random damage: every value type survives a frame, and no byte stream crashes the decoder
/// or the message parser.
@Suite struct WireRobustnessTests {
    static let seeds: [UInt64] = Array(1...12)

    @Test(arguments: seeds)
    func everyValueTypeSurvivesAFrame(seed: UInt64) throws {
        var generator = RandomPlist(seed: seed, profile: .binary)
        let value = generator.value(maxDepth: 4)
        let domain = WireDomain("com.example.random", byHost: seed % 2 == 0)
        let request = WireRequest(
            id: generator.next(), .set(domain, key: generator.string(), value: value, expectedVersion: nil))
        var decoder = WireFrameDecoder()
        try decoder.append(try WireFrame.encode(request.dictionary))
        #expect(try WireRequest(dictionary: try #require(try decoder.nextFrame())) == request)
        let event = WireEvent.change(
            subscription: seed, WireChange(domain: domain, key: "k", old: value, new: nil, sequence: seed),
            origin: WireOrigin(.file))
        try decoder.append(try WireFrame.encode(event.dictionary))
        #expect(try WireEvent(dictionary: try #require(try decoder.nextFrame())) == event)
    }

    /// Flips, truncates and duplicates bytes of a valid stream; whatever happens must be a frame, a
    /// `PrefsWireError`, or a parse error, never a crash or a hang.
    @Test(arguments: seeds)
    func damagedStreamsFailCleanly(seed: UInt64) throws {
        var generator = RandomPlist(seed: seed, profile: .binary)
        let requests: [WireRequest] = [
            WireRequest(id: 1, .hello(WireHello())),
            WireRequest(
                id: 2, .set(WireDomain("d"), key: "k", value: generator.value(maxDepth: 3), expectedVersion: 4)),
            WireRequest(id: 3, .subscribe(WireSubscriptionFilter(.effective(WireSearchList(app: "a", suites: ["s"]))))),
        ]
        let stream = try requests.flatMap { try WireFrame.encode($0.dictionary) }
        for _ in 0..<60 {
            var damaged = stream
            switch generator.next() % 3 {
            case 0:
                for _ in 0..<(1 + generator.next() % 4) {
                    let index = Int(generator.next() % UInt64(damaged.count))
                    damaged[index] ^= UInt8(truncatingIfNeeded: 1 << (generator.next() % 8))
                }
            case 1:
                damaged.removeLast(Int(generator.next() % UInt64(damaged.count)))
            default:
                let start = Int(generator.next() % UInt64(damaged.count))
                damaged.insert(contentsOf: damaged[start...].prefix(16), at: start)
            }
            var limits = WireLimits.default
            limits.maxFrameBytes = 64 << 10
            var decoder = WireFrameDecoder(limits: limits)
            do {
                try decoder.append(damaged)
                while let frame = try decoder.nextFrame() {
                    _ = try? WireRequest(dictionary: frame)
                    _ = try? WireServerMessage(dictionary: frame)
                }
                try? decoder.finish()
            } catch {
                #expect(error.code == .malformedFrame || error.code == .limitExceeded)
            }
        }
    }
}
