// SPDX-License-Identifier: Apache-2.0
import NIOCore
import PrefsPlist
import PrefsStore
import PrefsWire
import Testing

@testable import PrefsDaemon

@Suite("change conversions: one batch's wire form, made once")
struct ChangeConversionsTests {
    static let domain = DomainID(try! DomainName("com.example.app"), scope: .user)

    static func event(_ key: String, _ value: Int, sequence: UInt64, origin: ChangeOrigin = .thisProcess) -> ChangeEvent
    {
        ChangeEvent(
            domain: domain, key: key, oldValue: nil, newValue: .integer(PlistInteger(Int64(value))), sequence: sequence,
            origin: origin)
    }

    @Test("another batch of the same length is converted anew, not taken for the last one")
    func anotherBatchIsConvertedAnew() {
        var conversions = ChangeConversions()
        let first = [Self.event("a", 1, sequence: 1), Self.event("b", 2, sequence: 2)]
        let second = [Self.event("c", 3, sequence: 3), Self.event("d", 4, sequence: 4)]
        #expect(conversions.convert(first).all.map(\.change.key) == ["a", "b"])
        #expect(conversions.convert(first).commonOrigin?.map(\.sequence) == [1, 2])
        #expect(conversions.convert(second).all.map(\.change.key) == ["c", "d"])
        #expect(conversions.convert(second).commonOrigin?.map(\.sequence) == [3, 4])
        #expect(conversions.convert([]).all.isEmpty)
    }

    @Test("a batch of several origins has no common-origin form; each change keeps its own")
    func severalOrigins() {
        var conversions = ChangeConversions()
        let mixed = [
            Self.event("a", 1, sequence: 1, origin: .client(pid: 5, uid: 1000)), Self.event("b", 2, sequence: 2),
        ]
        let converted = conversions.convert(mixed)
        #expect(converted.commonOrigin == nil)
        #expect(converted.all.map(\.origin) == [.client(pid: 5, uid: 1000), .thisProcess])
        #expect(converted.all.map(\.change.domain) == [WireDomain("com.example.app"), WireDomain("com.example.app")])
    }

    @Test("a whole batch's frame is shared with the same subscription, filter and origin, and only for that batch")
    func wholeBatchFrameIsSharedWithinTheBatch() {
        var conversions = ChangeConversions()
        let batch = [Self.event("a", 1, sequence: 1)]
        let filter = WireSubscriptionFilter(.domain(WireDomain("com.example.app")), keys: .key("a"))
        let origin = WireOrigin(.client, pid: 5)
        let frame = ByteBuffer(bytes: [0, 0, 0, 1, 7])
        _ = conversions.convert(batch)
        #expect(conversions.wholeBatchFrame(subscription: 1, filter: filter, origin: origin) == nil)
        conversions.keepWholeBatchFrame(frame, subscription: 1, filter: filter, origin: origin)
        _ = conversions.convert(batch)
        #expect(conversions.wholeBatchFrame(subscription: 1, filter: filter, origin: origin) == frame)
        #expect(conversions.wholeBatchFrame(subscription: 2, filter: filter, origin: origin) == nil)
        let otherKeys = WireSubscriptionFilter(.domain(WireDomain("com.example.app")), keys: .all)
        #expect(conversions.wholeBatchFrame(subscription: 1, filter: otherKeys, origin: origin) == nil)
        let otherOrigin = WireOrigin(.client, pid: 6)
        #expect(conversions.wholeBatchFrame(subscription: 1, filter: filter, origin: otherOrigin) == nil)
        _ = conversions.convert([Self.event("a", 2, sequence: 2)])
        #expect(conversions.wholeBatchFrame(subscription: 1, filter: filter, origin: origin) == nil)
    }
}
