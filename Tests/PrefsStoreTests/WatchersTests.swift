// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsStore

/// The observers of one target: removal in any order, compaction, and the subscription order kept throughout.
@Suite struct WatchersTests {
    private static func watchers(_ ids: ClosedRange<UInt64>) -> StoreState.Watchers {
        var watchers = StoreState.Watchers()
        for id in ids { watchers.append(StoreState.Watcher(id: id, key: id.isMultiple(of: 2) ? "even" : nil)) }
        return watchers
    }

    private static func live(_ watchers: StoreState.Watchers) -> [UInt64] {
        watchers.entries.filter { !$0.isRemoved }.map(\.id)
    }

    @Test func removedObserversStopWatchingAndTheOrderStays() {
        var watchers = Self.watchers(1...10)
        for id: UInt64 in [3, 5, 7] { watchers.remove(id: id) }
        #expect(Self.live(watchers) == [1, 2, 4, 6, 8, 9, 10])
        #expect(Self.live(watchers).count == 7)
        #expect(watchers.entries.count == 10, "three of ten removed: kept as gaps")
        #expect(watchers.entries.filter { $0.watches("even") }.map(\.id) == [1, 2, 4, 6, 8, 9, 10])
        #expect(watchers.entries.filter { $0.watches("other") }.map(\.id) == [1, 9])
    }

    @Test func moreThanHalfRemovedCompacts() {
        var watchers = Self.watchers(1...10)
        for id: UInt64 in [10, 1, 5, 3, 8, 2] { watchers.remove(id: id) }
        #expect(watchers.entries.map(\.id) == [4, 6, 7, 9])
        #expect(watchers.entries.allSatisfy { !$0.isRemoved })
        watchers.append(StoreState.Watcher(id: 11, key: nil))
        watchers.remove(id: 6)
        #expect(Self.live(watchers) == [4, 7, 9, 11])
    }

    @Test func unknownAndRepeatedRemovalsChangeNothing() {
        var watchers = Self.watchers(1...4)
        watchers.remove(id: 42)
        watchers.remove(id: 0)
        watchers.remove(id: 2)
        watchers.remove(id: 2)
        #expect(Self.live(watchers).count == 3)
        #expect(Self.live(watchers) == [1, 3, 4])
    }

    @Test func removingEveryObserverEmptiesIt() {
        var watchers = Self.watchers(1...1000)
        for id in stride(from: UInt64(1000), through: 1, by: -1) { watchers.remove(id: id) }
        #expect(watchers.isEmpty)
        #expect(watchers.entries.count <= 1)
    }
}
